import { Alert, Anchor, Badge, Card, Group, Stack, Text } from '@mantine/core';
import { IconShieldCheck, IconShieldExclamation } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { api, must } from '../api.js';
import { useUser } from '../session.js';

/** Warnings a setting fixes: a link to the page that holds it. */
const FIXED_ON: Record<string, string> = { 'private-targets-allowed': '/settings' };

const COLOR = { critical: 'red', warning: 'orange', info: 'blue' } as const;

/**
 * GET /api/security/warnings on the Overview, for the owner and admins (the route's roles): each
 * warning in the panel's language by its code, the API's English sentence when the code is new.
 */
export function SecurityWarningsCard() {
  const { t, i18n } = useTranslation();
  const role = useUser().role;
  const allowed = role === 'owner' || role === 'admin';
  const warnings = useQuery({
    queryKey: ['security', 'warnings'],
    queryFn: () => must(api.GET('/api/security/warnings')),
    enabled: allowed,
    refetchInterval: 60_000,
  });
  if (!allowed || !warnings.data) return null;
  const list = warnings.data.warnings;
  return (
    <Card withBorder mb="md" data-testid="security-warnings">
      <Text fw={600} mb="sm">
        {t('server.warnings')}
      </Text>
      {list.length === 0 ? (
        <Group gap="xs">
          <IconShieldCheck size={18} color="var(--mantine-color-teal-6)" />
          <Text size="sm">{t('server.noWarnings')}</Text>
        </Group>
      ) : (
        <Stack gap="xs">
          {list.map((warning) => {
            const key = `server.warning.${warning.code}`;
            return (
              <Alert
                key={warning.code}
                color={COLOR[warning.severity as keyof typeof COLOR] ?? 'gray'}
                icon={<IconShieldExclamation size={18} />}
                data-testid="security-warning"
                data-code={warning.code}
              >
                <Group gap="xs" wrap="nowrap" align="flex-start">
                  <Badge size="xs" variant="light" color={COLOR[warning.severity as keyof typeof COLOR] ?? 'gray'}>
                    {t(`server.severity.${warning.severity}`)}
                  </Badge>
                  <Text size="sm">
                    {i18n.exists(key) ? t(key) : `${warning.message} ${warning.action}`}
                    {FIXED_ON[warning.code] && i18n.exists(key) && (
                      <>
                        {' '}
                        <Anchor component={Link} to={FIXED_ON[warning.code]!} size="sm" data-testid="warning-fix">
                          {t('server.openSettings')}
                        </Anchor>
                      </>
                    )}
                  </Text>
                </Group>
              </Alert>
            );
          })}
        </Stack>
      )}
    </Card>
  );
}
