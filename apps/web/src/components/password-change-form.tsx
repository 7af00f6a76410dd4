import { Button, Group, PasswordInput, Stack } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { FormError, useFieldErrors } from './form-errors.js';

export interface PasswordChange {
  currentPassword: string;
  newPassword: string;
}

/**
 * The one form that changes one's own password (the Account page, and the forced change of a
 * temporary one): the current password, the new one twice. A typo between the two is refused
 * here, before any request (it would otherwise become the password); the API's refusals show
 * under the field they name. `send` makes the request; `onDone` follows its success.
 */
export function PasswordChangeForm({
  send,
  onDone,
  currentLabel,
  submitLabel,
  submitTestId,
  beside,
}: {
  send: (change: PasswordChange) => Promise<unknown>;
  onDone: () => void;
  currentLabel: string;
  submitLabel: string;
  submitTestId?: string;
  /** Shown at the start of the button row (the forced change's sign-out). */
  beside?: ReactNode;
}) {
  const { t } = useTranslation();
  const [currentPassword, setCurrent] = useState('');
  const [newPassword, setNew] = useState('');
  const [repeat, setRepeat] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const change = useMutation({
    mutationFn: () => send({ currentPassword, newPassword }),
    onSuccess: () => {
      setCurrent('');
      setNew('');
      setRepeat('');
      onDone();
    },
  });
  const errors = useFieldErrors(change.error, { currentPassword, newPassword });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (newPassword !== repeat) return setMismatch(true);
    change.mutate();
  };
  return (
    <Stack component="form" onSubmit={submit} gap="sm">
      <PasswordInput
        label={currentLabel}
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
      <Group justify={beside ? 'space-between' : 'flex-end'}>
        {beside}
        <Button type="submit" loading={change.isPending} data-testid={submitTestId}>
          {submitLabel}
        </Button>
      </Group>
    </Stack>
  );
}
