import { Button, Group, Stack, Text, TextInput } from '@mantine/core';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Modal } from './layers.js';

/**
 * The one question a destructive action asks: what will happen, and a confirm button labelled
 * with the action itself ("Delete", "Reset traffic"), the same word as the button that opened it.
 * With `typeToConfirm`, the button waits until that name is typed (for what takes much with it).
 */
export function ConfirmDialog({
  opened,
  onClose,
  message,
  confirmLabel,
  onConfirm,
  typeToConfirm,
}: {
  opened: boolean;
  onClose: () => void;
  message: ReactNode;
  confirmLabel: string;
  onConfirm: () => unknown;
  typeToConfirm?: string;
}) {
  const { t } = useTranslation();
  const [typed, setTyped] = useState('');
  const close = () => {
    setTyped('');
    onClose();
  };
  return (
    <Modal opened={opened} onClose={close} title={t('common.areYouSure')} centered>
      <Stack>
        <Text size="sm">{message}</Text>
        {typeToConfirm !== undefined && (
          <TextInput
            label={t('common.typeToConfirm', { name: typeToConfirm })}
            value={typed}
            onChange={(event) => setTyped(event.currentTarget.value)}
            autoComplete="off"
            data-testid="confirm-name"
          />
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={close}>
            {t('common.cancel')}
          </Button>
          <Button
            color="red"
            data-testid="confirm"
            disabled={typeToConfirm !== undefined && typed !== typeToConfirm}
            onClick={() => {
              close();
              void onConfirm();
            }}
          >
            {confirmLabel}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
