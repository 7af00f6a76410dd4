import { Alert, Button, Code, Group, Text, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, must, type Schemas } from '../../api.js';
import { Copy } from '../../components/common.js';
import { FormError, useFieldErrors } from '../../components/form-errors.js';
import { queryKeys } from '../../api/queries.js';

export type IssuedToken = Schemas['IssuedTokenDto'];

/**
 * Issues an API token by name; its value is shown once, with a copy button, until closed or the
 * token is deleted (the tokens area holds which one is shown, so a delete clears it).
 */
export function IssueToken({
  issued,
  setIssued,
}: {
  issued: IssuedToken | null;
  setIssued: (token: IssuedToken | null) => void;
}) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const issue = useMutation({
    mutationFn: () => must(api.POST('/api/tokens', { body: { name: name.trim() } })),
    onSuccess: (token) => {
      setIssued(token);
      setName('');
      void queryClient.invalidateQueries({ queryKey: queryKeys.tokens });
    },
  });
  const issueErrors = useFieldErrors(issue.error, { name });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    issue.mutate();
  };
  return (
    <>
      <Group component="form" onSubmit={submit} align="flex-start" gap="xs">
        <TextInput
          placeholder={t('tokens.name')}
          aria-label={t('tokens.name')}
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          error={issueErrors.of('name')}
          style={{ flex: '1 1 200px' }}
          data-testid="token-name"
        />
        <Button type="submit" loading={issue.isPending} data-testid="issue-token">
          {t('tokens.issue')}
        </Button>
      </Group>
      <FormError error={issue.error} fields={['name']} />
      {issued && (
        <Alert
          data-testid="issued-banner"
          color="teal"
          title={t('tokens.issuedTitle', { name: issued.name })}
          withCloseButton
          onClose={() => setIssued(null)}
        >
          <Text size="sm" mb="xs">
            {t('tokens.shownOnce')}
          </Text>
          <Group gap="xs" wrap="nowrap">
            <Code dir="ltr" style={{ wordBreak: 'break-all' }} data-testid="issued-token">
              {issued.token}
            </Code>
            <Copy value={issued.token} />
          </Group>
        </Alert>
      )}
    </>
  );
}
