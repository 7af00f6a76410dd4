import { Button, Group, Stack } from '@mantine/core';
import type { UseMutationResult } from '@tanstack/react-query';
import type { FormEvent, ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { FormError } from './form-errors.js';
import { Modal } from './layers.js';

/**
 * The dialog every create/edit form lives in: submitting runs `save`; the API's refusal shows
 * next to the input its `field` names, or above the button when no input of `fields` does; the
 * values typed stay, so nothing is lost on a failed submit.
 */
export function FormModal({
  title,
  onClose,
  save,
  fields,
  editing,
  submitTestId,
  size,
  footer,
  children,
}: {
  title: ReactNode;
  onClose: () => void;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  save: UseMutationResult<any, Error, void, any>;
  fields: string[];
  /** Editing an existing row (the button says save) or making a new one (create). */
  editing: boolean;
  submitTestId?: string;
  size?: string;
  footer?: ReactNode;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <Modal opened onClose={onClose} title={title} size={size}>
      <Stack component="form" onSubmit={submit} gap="sm">
        {children}
        <FormError error={save.error} fields={fields} />
        <Group justify="flex-end">
          <Button type="submit" loading={save.isPending} data-testid={submitTestId}>
            {editing ? t('common.save') : t('common.create')}
          </Button>
        </Group>
        {footer}
      </Stack>
    </Modal>
  );
}
