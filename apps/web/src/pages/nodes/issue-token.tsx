import { Alert, Button, Checkbox, Code, Group, MultiSelect, Text, TextInput } from '@mantine/core';
import { ROUTE_GROUPS, type RouteGroup } from '../../../../../libs/contracts/route-groups.js';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, must, type Schemas } from '../../api.js';
import { Copy } from '../../components/common.js';
import { DateTimeField } from '../../components/jalali-picker.js';
import { FormError, useFieldErrors } from '../../components/form-errors.js';
import { queryKeys } from '../../api/queries.js';

export type IssuedToken = Schemas['IssuedTokenDto'];

/**
 * Issues an API token by name, optionally narrower than its user (read-only, an expiry, route
 * groups); its value is shown once, with a copy button, until closed or the token is deleted (the
 * tokens area holds which one is shown, so a delete clears it).
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
  const [readOnly, setReadOnly] = useState(false);
  const [expiresAt, setExpiresAt] = useState('');
  const [routeGroups, setRouteGroups] = useState<RouteGroup[]>([]);
  const issue = useMutation({
    mutationFn: () =>
      must(
        api.POST('/api/tokens', {
          body: {
            name: name.trim(),
            readOnly,
            expiresAt: expiresAt ? new Date(expiresAt).toISOString() : null,
            routeGroups: routeGroups.length ? routeGroups : null,
          },
        }),
      ),
    onSuccess: (token) => {
      setIssued(token);
      setName('');
      setReadOnly(false);
      setExpiresAt('');
      setRouteGroups([]);
      void queryClient.invalidateQueries({ queryKey: queryKeys.tokens });
    },
  });
  const issueErrors = useFieldErrors(issue.error, { name, readOnly, expiresAt, routeGroups });
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
      <Group align="flex-start" gap="xs">
        <DateTimeField
          label={t('tokens.expiresAt')}
          description={t('tokens.expiresHelp')}
          value={expiresAt}
          onChange={setExpiresAt}
          error={issueErrors.of('expiresAt')}
          empty={t('tokens.never')}
          style={{ flex: '1 1 200px' }}
          testId="token-expires"
        />
        <MultiSelect
          label={t('tokens.routeGroups')}
          description={t('tokens.routeGroupsHelp')}
          data={ROUTE_GROUPS.map((group) => ({ value: group, label: t(`routeGroups.${group}`) }))}
          value={routeGroups}
          onChange={(value) => setRouteGroups(value as RouteGroup[])}
          error={issueErrors.of('routeGroups')}
          clearable
          style={{ flex: '1 1 200px' }}
          data-testid="token-groups"
        />
      </Group>
      <Checkbox
        label={t('tokens.readOnlyLabel')}
        checked={readOnly}
        onChange={(e) => setReadOnly(e.currentTarget.checked)}
        error={issueErrors.of('readOnly')}
        data-testid="token-read-only"
      />
      <FormError error={issue.error} fields={['name', 'readOnly', 'expiresAt', 'routeGroups']} />
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
