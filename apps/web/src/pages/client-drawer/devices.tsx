import { ActionIcon, Button, Card, Group, Stack, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconTrash } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, messageOf, must, saveFile } from '../../api.js';
import { formatBytes, Ltr } from '../../components/common.js';
import { FormError, useFieldErrors } from '../../components/form-errors.js';
import { ConfirmDialog } from '../../components/confirm-dialog.js';

export function Devices({
  clientId,
  devices,
  canManage,
  onChange,
}: {
  clientId: string;
  devices: { id: string; name: string; onlineNow: boolean; upBytes: number; downBytes: number }[];
  canManage: boolean;
  onChange: () => void;
}) {
  const { t } = useTranslation();
  const [name, setName] = useState('');
  const add = useMutation({
    mutationFn: () =>
      must(api.POST('/api/clients/{id}/devices', { params: { path: { id: clientId } }, body: { name: name.trim() } })),
    onSuccess: () => {
      setName('');
      onChange();
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) => must(api.DELETE('/api/devices/{id}', { params: { path: { id } } })),
    onSuccess: onChange,
    onError: (error) => notifications.show({ message: messageOf(error), color: 'red' }),
  });
  const errors = useFieldErrors(add.error, { name });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate();
  };
  return (
    <Stack gap="xs">
      {devices.map((device) => (
        <Card key={device.id} withBorder padding="xs">
          <Group justify="space-between">
            <div>
              <Text size="sm" fw={500}>
                {device.name}
              </Text>
              <Text size="xs" c="dimmed">
                {device.onlineNow ? t('clients.online') : t('clients.offline')} ·{' '}
                <Ltr>↑ {formatBytes(device.upBytes)}</Ltr> <Ltr>↓ {formatBytes(device.downBytes)}</Ltr>
              </Text>
            </div>
            <Group gap={4}>
              <DeviceDownloads deviceId={device.id} />
              {canManage && (
                <ConfirmIcon
                  message={t('clients.confirmDeleteDevice', { name: device.name })}
                  onConfirm={() => remove.mutate(device.id)}
                />
              )}
            </Group>
          </Group>
        </Card>
      ))}
      {canManage && (
        <Group component="form" onSubmit={submit} align="flex-start" gap="xs">
          <TextInput
            placeholder={t('clients.deviceName')}
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            error={errors.of('name')}
            style={{ flex: 1 }}
            aria-label={t('clients.deviceName')}
          />
          <Button type="submit" variant="light" loading={add.isPending}>
            {t('clients.addDevice')}
          </Button>
        </Group>
      )}
      <FormError error={add.error} fields={['name']} />
    </Stack>
  );
}

/** Downloads every profile of one device (GET /api/devices/{id}/profiles), one file each. */
function DeviceDownloads({ deviceId }: { deviceId: string }) {
  const { t } = useTranslation();
  const download = useMutation({
    mutationFn: () => must(api.GET('/api/devices/{id}/profiles', { params: { path: { id: deviceId } } })),
    onSuccess: (profiles) =>
      profiles.forEach((profile) => saveFile(new Blob([profile.body], { type: profile.mimeType }), profile.filename)),
    onError: (error) => notifications.show({ message: messageOf(error), color: 'red' }),
  });
  return (
    <Button size="compact-xs" variant="subtle" onClick={() => download.mutate()} loading={download.isPending}>
      {t('clients.downloadProfiles')}
    </Button>
  );
}

function ConfirmIcon({ message, onConfirm }: { message: string; onConfirm: () => void }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  return (
    <>
      <ActionIcon color="red" variant="subtle" onClick={() => setOpen(true)} aria-label={t('common.delete')}>
        <IconTrash size={16} />
      </ActionIcon>
      <ConfirmDialog
        opened={open}
        onClose={() => setOpen(false)}
        message={message}
        confirmLabel={t('common.delete')}
        onConfirm={onConfirm}
      />
    </>
  );
}
