import { Button, Card, Group, PasswordInput, Stack } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, must } from '../api.js';
import { PageHeader } from '../components/common.js';
import { FormError, useFieldErrors } from '../components/form-errors.js';
import { TwoFactorCard } from './account-two-factor.js';

/** Password change (PATCH /api/auth/me): the user's other sessions end, this one stays; then two-factor sign-in. */
export default function AccountPage() {
  const { t } = useTranslation();
  const [currentPassword, setCurrent] = useState('');
  const [newPassword, setNew] = useState('');
  const [repeat, setRepeat] = useState('');
  // Checked here, before any request: a typo would otherwise become the password.
  const [mismatch, setMismatch] = useState(false);
  const change = useMutation({
    mutationFn: () => must(api.PATCH('/api/auth/me', { body: { currentPassword, newPassword } })),
    onSuccess: () => {
      setCurrent('');
      setNew('');
      setRepeat('');
      notifications.show({ message: t('account.changed'), color: 'teal' });
    },
  });
  const errors = useFieldErrors(change.error, { currentPassword, newPassword });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (newPassword !== repeat) return setMismatch(true);
    change.mutate();
  };
  return (
    <>
      <PageHeader title={t('header.account')} />
      <Card withBorder maw={420}>
        <Stack component="form" onSubmit={submit} gap="sm">
          <PasswordInput
            label={t('account.current')}
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
            name="repeatPassword"
            value={repeat}
            onChange={(e) => {
              setRepeat(e.currentTarget.value);
              setMismatch(false);
            }}
            error={mismatch ? t('account.mismatch') : undefined}
          />
          <FormError error={change.error} fields={['currentPassword', 'newPassword']} />
          <Group justify="flex-end">
            <Button type="submit" loading={change.isPending}>
              {t('common.save')}
            </Button>
          </Group>
        </Stack>
      </Card>
      <TwoFactorCard />
    </>
  );
}
