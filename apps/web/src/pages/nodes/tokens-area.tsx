import { Badge, Code, Group, Stack, Switch, Text, Title } from '@mantine/core';
import { IconKey } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, must } from '../../api.js';
import { ConfirmButton, formatDate, notifyFailure } from '../../components/common.js';
import { ListTable } from '../../components/list-table.js';
import { queryKeys, useTokens } from '../../api/queries.js';
import { IssueToken, type IssuedToken } from './issue-token.js';
import type { Schemas } from '../../api.js';

/** API tokens: issue (the value is shown once, with a copy button), disable, delete; each with its scope, expiry and last use. */
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
        minWidth={760}
        cards
        columns={[
          { header: t('common.name'), naming: true, cell: (token) => token.name },
          { header: t('tokens.hint'), cell: (token) => <Code dir="ltr">{token.hint}</Code> },
          { header: t('tokens.owner'), cell: (token) => token.owner },
          { header: t('tokens.scope'), cell: (token) => <TokenScope token={token} /> },
          {
            header: t('tokens.expires'),
            cell: (token) =>
              token.expired ? (
                <Badge color="red" variant="light" data-testid="token-expired">
                  {t('tokens.expired')}
                </Badge>
              ) : token.expiresAt ? (
                formatDate(token.expiresAt, i18n.language)
              ) : (
                t('tokens.never')
              ),
          },
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

/** What the token may do beyond its user's role: everything, or read-only and/or some route groups. */
function TokenScope({ token }: { token: Schemas['TokenDto'] }) {
  const { t } = useTranslation();
  if (!token.readOnly && !token.routeGroups) return <Text size="sm">{t('tokens.fullScope')}</Text>;
  return (
    <Group gap={4} data-testid="token-scope">
      {token.readOnly && (
        <Badge variant="light" color="blue">
          {t('tokens.readOnly')}
        </Badge>
      )}
      {token.routeGroups?.map((group) => (
        <Badge key={group} variant="outline" color="gray">
          {t(`routeGroups.${group}`)}
        </Badge>
      ))}
    </Group>
  );
}
