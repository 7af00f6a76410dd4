import { ActionIcon, Button, Card, Group, Stack, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconTrash } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, messageOf, must, saveFile, type Schemas } from '../../api.js';
import { interfaceLabel } from '../../api/queries.js';
import { formatBytes, Ltr, Sizes } from '../../components/common.js';
import { OnlineState } from '../clients/online-state.js';
import { FormError, useFieldErrors } from '../../components/form-errors.js';
import { ConfirmDialog } from '../../components/confirm-dialog.js';

export function Devices({
  clientId,
  devices,
  interfaces,
  canManage,
  onChange,
}: {
  clientId: string;
  devices: Schemas['DeviceDto'][];
  /** The panel's interfaces by id, with their node's name: what each address belongs to. */
  interfaces: Map<string, { name: string; nodeName: string }> | undefined;
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
        <Card key={device.id} withBorder padding="xs" data-testid="device" data-device={device.name}>
          <Group justify="space-between">
            <div style={{ minWidth: 0 }}>
              <Text size="sm" fw={500}>
                {device.name}
              </Text>
              <Group gap={6}>
                <OnlineState onlineNow={device.onlineNow} lastHandshake={device.lastHandshake} />
                <Text size="xs" c="dimmed" component="span">
                  <Sizes>↑ {formatBytes(device.upBytes)}</Sizes> <Sizes>↓ {formatBytes(device.downBytes)}</Sizes>
                </Text>
              </Group>
              {device.accounts.map((account) => {
                const iface = interfaces?.get(account.interfaceId);
                return (
                  <Text key={account.id} size="xs" data-testid="device-address">
                    <Ltr>{account.ip}</Ltr> · {iface ? interfaceLabel(iface) : '…'}
                  </Text>
                );
              })}
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

/**
 * A device's profiles as one download: the file itself when it has one, else one zip of all
 * (GET /api/devices/{id}/profiles?format=zip). One file per profile would be a burst of downloads,
 * which browsers block after the first.
 */
function DeviceDownloads({ deviceId }: { deviceId: string }) {
  const { t } = useTranslation();
  const download = useMutation({
    mutationFn: async () => {
      const profiles = (await must(
        api.GET('/api/devices/{id}/profiles', { params: { path: { id: deviceId } } }),
      )) as Schemas['ProfileDto'][];
      if (profiles.length === 0) throw new Error(t('clients.noProfiles'));
      if (profiles.length === 1)
        return { blob: new Blob([profiles[0].body], { type: profiles[0].mimeType }), name: profiles[0].filename };
      const answer = await api.GET('/api/devices/{id}/profiles', {
        params: { path: { id: deviceId }, query: { format: 'zip' } },
        parseAs: 'blob',
      });
      if (!answer.response.ok) throw new Error(answer.response.statusText);
      return { blob: answer.data as unknown as Blob, name: zipName(answer.response) };
    },
    onSuccess: ({ blob, name }) => saveFile(blob, name),
    onError: (error) => notifications.show({ message: messageOf(error), color: 'red' }),
  });
  return (
    <Button
      size="compact-xs"
      variant="subtle"
      onClick={() => download.mutate()}
      loading={download.isPending}
      data-testid="device-profiles"
    >
      {t('clients.downloadProfiles')}
    </Button>
  );
}

/** The file name the API gives the zip (Content-Disposition), or a plain one. */
function zipName(response: Response): string {
  const match = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '');
  return match?.[1] ?? 'profiles.zip';
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
