import { Button, Center, Paper, Stack, Text, Title } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { api, must, type Schemas } from '../api.js';
import { PasswordChangeForm } from './password-change-form.js';

/**
 * What a user signed in with a temporary password (set by the owner) sees instead of the panel:
 * the API answers 403 to everything else until it is changed (POST /api/auth/password). Signing
 * out stays possible.
 */
export function PasswordRequired({ user }: { user: Schemas['UserDto'] }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const signOut = async () => {
    await api.POST('/api/auth/logout').catch(() => undefined);
    queryClient.clear();
    await navigate('/sign-in', { replace: true });
  };
  return (
    <Center mih="100vh" p="md">
      <Paper withBorder shadow="sm" p="xl" w="100%" maw={420} data-testid="password-required">
        <Stack gap="sm">
          <Title order={3}>{t('account.requiredTitle')}</Title>
          <Text size="sm">{t('account.requiredText', { username: user.username })}</Text>
          <PasswordChangeForm
            send={(body) => must(api.POST('/api/auth/password', { body }))}
            // GET /api/auth/me again: it now says no change is needed, and the panel shows.
            onDone={() => void queryClient.invalidateQueries()}
            currentLabel={t('account.temporary')}
            submitLabel={t('account.changeAndContinue')}
            submitTestId="change-password"
            beside={
              <Button variant="subtle" onClick={() => void signOut()} data-testid="sign-out">
                {t('header.signOut')}
              </Button>
            }
          />
        </Stack>
      </Paper>
    </Center>
  );
}
