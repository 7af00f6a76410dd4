import { Badge, Card, Code, Group, Stack, Text, Title } from '@mantine/core';
import { browserName } from '../user-agent.js';
import { notifications } from '@mantine/notifications';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, must } from '../api.js';
import { queryKeys } from '../api/queries.js';
import { ConfirmButton, formatDate, Ltr, notifyFailure, PageHeader } from '../components/common.js';
import { PasswordChangeForm } from '../components/password-change-form.js';
import { ListTable } from '../components/list-table.js';

import { TwoFactorCard } from './account-two-factor.js';

/** The account: password change (PATCH /api/auth/me), two-factor sign-in, and the user's own sessions, to review and end. */
export default function AccountPage() {
  const { t } = useTranslation();
  return (
    <>
      <PageHeader title={t('account.title')} />
      <Stack gap="lg">
        <PasswordCard />
        <TwoFactorCard />
        <SessionsCard />
      </Stack>
    </>
  );
}

/** Password change (PATCH /api/auth/me): the user's other sessions end, this one stays. */
function PasswordCard() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  return (
    <Card withBorder maw={420}>
      <Title order={3} size="h4" mb="sm">
        {t('header.password')}
      </Title>
      <PasswordChangeForm
        send={(body) => must(api.PATCH('/api/auth/me', { body }))}
        onDone={() => {
          notifications.show({ message: t('account.changed'), color: 'teal' });
          void queryClient.invalidateQueries({ queryKey: queryKeys.sessions });
        }}
        currentLabel={t('account.current')}
        submitLabel={t('common.save')}
      />
    </Card>
  );
}

/** The user's sessions (GET /api/auth/sessions): when and where each signed in, last seen; end one or all others. */
function SessionsCard() {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const sessions = useQuery({ queryKey: queryKeys.sessions, queryFn: () => must(api.GET('/api/auth/sessions')) });
  const ended = (count: number) => {
    notifications.show({
      message: t('account.sessionsEnded', { count, n: new Intl.NumberFormat(i18n.language).format(count) }),
      color: 'teal',
    });
    void queryClient.invalidateQueries({ queryKey: queryKeys.sessions });
  };
  const endOne = useMutation({
    mutationFn: (id: string) => must(api.DELETE('/api/auth/sessions/{id}', { params: { path: { id } } })),
    onSuccess: () => ended(1),
    onError: notifyFailure,
  });
  const endOthers = useMutation({
    mutationFn: () => must(api.DELETE('/api/auth/sessions')),
    onSuccess: (answer) => ended(answer.sessionsEnded),
    onError: notifyFailure,
  });
  const others = (sessions.data ?? []).filter((session) => !session.current).length;
  return (
    <Card withBorder data-testid="sessions">
      <Group justify="space-between" mb="sm" wrap="wrap">
        <Title order={3} size="h4">
          {t('account.sessions')}
        </Title>
        <ConfirmButton
          message={t('account.endOthersConfirm')}
          onConfirm={() => endOthers.mutate()}
          disabled={others === 0}
          data-testid="end-other-sessions"
        >
          {t('account.endOthers')}
        </ConfirmButton>
      </Group>
      <ListTable
        rows={sessions.data}
        cards
        minWidth={640}
        testId="sessions-table"
        rowKey={(session) => session.id}
        rowProps={(session) => ({ 'data-testid': session.current ? 'session-current' : 'session-other' })}
        columns={[
          {
            header: t('account.device'),
            naming: true,
            breakWords: true,
            cell: (session) => (
              <>
                {/* The browser as people name it ("Chrome 156 · Linux"), the whole string on hover;
                    a program's identification (curl, a script) as it sent it. */}
                {session.userAgent ? (
                  <Code dir="ltr" style={{ wordBreak: 'break-all' }} title={session.userAgent}>
                    {browserName(session.userAgent) ?? session.userAgent}
                  </Code>
                ) : (
                  t('account.unknownDevice')
                )}{' '}
                {session.current && (
                  <Badge color="teal" variant="light">
                    {t('account.thisSession')}
                  </Badge>
                )}
              </>
            ),
          },
          { header: t('account.address'), cell: (session) => <Ltr>{session.address ?? '—'}</Ltr> },
          { header: t('account.signedIn'), cell: (session) => formatDate(session.createdAt, i18n.language) },
          { header: t('account.lastSeen'), cell: (session) => formatDate(session.lastSeenAt, i18n.language) },
        ]}
        actions={(session) =>
          !session.current && (
            <ConfirmButton
              message={t('account.endConfirm')}
              onConfirm={() => endOne.mutate(session.id)}
              data-testid="end-session"
            >
              {t('account.end')}
            </ConfirmButton>
          )
        }
      />
      <Text size="xs" c="dimmed" mt="xs">
        {t('account.sessionsHint')}
      </Text>
    </Card>
  );
}
