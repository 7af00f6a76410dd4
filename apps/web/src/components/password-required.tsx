import { Button, Center, Group, Paper, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { api, must, type Schemas } from '../api.js';
import { FormError, useFieldErrors } from './form-errors.js';

/**
 * What a user signed in with a temporary password (set by the owner) sees instead of the panel:
 * the API answers 403 to everything else until it is changed (POST /api/auth/password). Signing
 * out stays possible.
 */
export function PasswordRequired({ user }: { user: Schemas['UserDto'] }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [currentPassword, setCurrent] = useState('');
  const [newPassword, setNew] = useState('');
  const [repeat, setRepeat] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const change = useMutation({
    mutationFn: () => must(api.POST('/api/auth/password', { body: { currentPassword, newPassword } })),
    // GET /api/auth/me again: it now says no change is needed, and the panel shows.
    onSuccess: () => void queryClient.invalidateQueries(),
  });
  const errors = useFieldErrors(change.error, { currentPassword, newPassword });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (newPassword !== repeat) return setMismatch(true);
    change.mutate();
  };
  const signOut = async () => {
    await api.POST('/api/auth/logout').catch(() => undefined);
    queryClient.clear();
    await navigate('/sign-in', { replace: true });
  };
  return (
    <Center mih="100vh" p="md">
      <Paper withBorder shadow="sm" p="xl" w="100%" maw={420} data-testid="password-required">
        <Stack component="form" onSubmit={submit} gap="sm">
          <Title order={3}>{t('account.requiredTitle')}</Title>
          <Text size="sm">{t('account.requiredText', { username: user.username })}</Text>
          <PasswordInput
            label={t('account.temporary')}
            autoComplete="current-password"
            value={currentPassword}
            onChange={(e) => setCurrent(e.currentTarget.value)}
            error={errors.of('currentPassword')}
          />
          <PasswordInput
            label={t('account.new')}
            autoComplete="new-password"
            value={newPassword}
            onChange={(e) => setNew(e.currentTarget.value)}
            error={errors.of('newPassword')}
          />
          <PasswordInput
            label={t('account.repeat')}
            autoComplete="new-password"
            value={repeat}
            onChange={(e) => {
              setRepeat(e.currentTarget.value);
              setMismatch(false);
            }}
            error={mismatch ? t('account.mismatch') : undefined}
          />
          <FormError error={change.error} fields={['currentPassword', 'newPassword']} />
          <Group justify="space-between">
            <Button variant="subtle" onClick={() => void signOut()} data-testid="sign-out">
              {t('header.signOut')}
            </Button>
            <Button type="submit" loading={change.isPending} data-testid="change-password">
              {t('account.changeAndContinue')}
            </Button>
          </Group>
        </Stack>
      </Paper>
    </Center>
  );
}
