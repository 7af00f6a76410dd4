import { Code, Stack, Switch, Title } from '@mantine/core';
import { IconKey } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, must } from '../../api.js';
import { ConfirmButton, formatDate, notifyFailure } from '../../components/common.js';
import { ListTable } from '../../components/list-table.js';
import { queryKeys, useTokens } from '../../api/queries.js';
import { IssueToken, type IssuedToken } from './issue-token.js';

/** API tokens: issue (the value is shown once, with a copy button), disable, delete. */
export function TokensArea() {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const tokens = useTokens();
  const [issued, setIssued] = useState<IssuedToken | null>(null);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: queryKeys.tokens });
  const toggle = useMutation({
    mutationFn: ({ id, enabled }: { id: string; enabled: boolean }) =>
      must(api.PATCH('/api/tokens/{id}', { params: { path: { id } }, body: { enabled } })),
    onSuccess: refresh,
    onError: notifyFailure,
  });
  const remove = useMutation({
    mutationFn: (id: string) => must(api.DELETE('/api/tokens/{id}', { params: { path: { id } } })),
    onSuccess: (_answer, id) => {
      // The secret of a deleted token is worth nothing: its banner goes with it.
      setIssued((shown) => (shown?.id === id ? null : shown));
      refresh();
    },
    onError: notifyFailure,
  });
  return (
    <Stack mt="xl" gap="sm" data-testid="tokens-area">
      <Title order={3}>
        <IconKey size={20} style={{ verticalAlign: 'middle' }} /> {t('tokens.title')}
      </Title>
      <IssueToken issued={issued} setIssued={setIssued} />
      <ListTable
        rows={tokens.data}
        empty={t('tokens.empty')}
        rowKey={(token) => token.id}
        minWidth={560}
        columns={[
          { header: t('common.name'), cell: (token) => token.name },
          { header: t('tokens.hint'), cell: (token) => <Code dir="ltr">{token.hint}</Code> },
          { header: t('tokens.owner'), cell: (token) => token.owner },
          { header: t('tokens.lastUsed'), cell: (token) => formatDate(token.lastUsedAt, i18n.language) },
          {
            header: t('tokens.enabled'),
            cell: (token) => (
              <Switch
                checked={token.enabled}
                onChange={(e) => toggle.mutate({ id: token.id, enabled: e.currentTarget.checked })}
                aria-label={t('tokens.enabled')}
              />
            ),
          },
        ]}
        actions={(token) => (
          <ConfirmButton
            message={t('tokens.confirmDelete', { name: token.name })}
            onConfirm={() => remove.mutate(token.id)}
          >
            {t('common.delete')}
          </ConfirmButton>
        )}
      />
    </Stack>
  );
}
