import { Button, Center, Group, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { api, must } from '../api.js';
import { FormError, useFieldErrors } from '../components/form-errors.js';
import { safeNext } from '../safe-next.js';
import { ME_KEY } from '../session.js';
import { LanguageMenu, ThemeToggle } from '../layout.js';

/** Sign-in: POST /api/auth/login sets the HttpOnly session cookie; then back to where the person was going. */
export function SignInPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const queryClient = useQueryClient();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  // Two-factor sign-in: the panel answered {needCode: true} to the password; the code goes with it again.
  const [needCode, setNeedCode] = useState(false);
  const [code, setCode] = useState('');
  const signIn = useMutation({
    mutationFn: () =>
      must(
        api.POST('/api/auth/login', {
          body: needCode ? { username, password, code: code.trim() } : { username, password },
        }),
      ),
    onSuccess: (signedIn) => {
      if (signedIn.needCode || !signedIn.user) return setNeedCode(true);
      queryClient.setQueryData(ME_KEY, {
        user: signedIn.user,
        via: 'session',
        mustChangePassword: signedIn.mustChangePassword ?? false,
      });
      void navigate(safeNext(params.get('next')), { replace: true });
    },
  });
  const errors = useFieldErrors(signIn.error, { username, password, code });
  // Public (GET /api/meta): the version shown under the form, before anyone signs in.
  const meta = useQuery({ queryKey: ['meta'], queryFn: () => must(api.GET('/api/meta')), staleTime: Infinity });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    signIn.mutate();
  };
  return (
    <Center mih="100vh" p="md">
      <Paper withBorder shadow="sm" p="xl" w="100%" maw={380} component="form" onSubmit={submit}>
        <Stack>
          <Group justify="space-between" wrap="nowrap" align="flex-start">
            <Title order={3}>{t('signIn.title')}</Title>
            {/* Before signing in too: the language and theme are the browser's, kept in localStorage. */}
            <Group gap="xs" wrap="nowrap">
              <LanguageMenu />
              <ThemeToggle />
            </Group>
          </Group>
          <TextInput
            label={t('signIn.username')}
            name="username"
            autoComplete="username"
            required
            value={username}
            onChange={(e) => setUsername(e.currentTarget.value)}
            error={errors.of('username')}
          />
          <PasswordInput
            label={t('signIn.password')}
            name="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
            error={errors.of('password')}
          />
          {needCode && (
            <TextInput
              label={t('signIn.code')}
              description={t('signIn.codeHelp')}
              name="code"
              autoComplete="one-time-code"
              autoFocus
              required
              dir="ltr"
              value={code}
              onChange={(e) => setCode(e.currentTarget.value)}
              error={errors.of('code')}
              data-testid="sign-in-code"
            />
          )}
          <FormError error={signIn.error} fields={['username', 'password', 'code']} />
          <Button type="submit" loading={signIn.isPending}>
            {t('signIn.submit')}
          </Button>
          {meta.data && (
            <Text size="xs" c="dimmed" ta="center" data-testid="panel-version">
              {t('server.version', { version: meta.data.version })}
            </Text>
          )}
        </Stack>
      </Paper>
    </Center>
  );
}
