import { ActionIcon, Button, Card, Divider, Group, Stack, Switch, Table, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconQrcode, IconTrash } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useState, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { api, messageOf, must, saveFile } from '../api.js';
import { ConfirmButton, formatBytes, formatDate, Ltr } from '../components/common.js';
import { FormError, useFieldErrors } from '../components/form-errors.js';
import { PageLoader } from '../components/page-loader.js';
import { useCanManage } from '../session.js';
import { ClientForm, initialValues, toBody } from './client-form.js';
import { StatusBadge } from './clients.js';
import { queryKeys, useClient } from '../api/queries.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { Drawer } from '../components/layers.js';

const ConfigsModal = lazy(() => import('./client-configs.js'));

/** One client: its state, the form to change it, its devices and their configs. */
export default function ClientDrawer({ id, onClose }: { id: string; onClose: () => void }) {
  const { t, i18n } = useTranslation();
  const canManage = useCanManage();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState(false);
  const [configs, setConfigs] = useState(false);
  const client = useClient(id);
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: queryKeys.client(id) });
    void queryClient.invalidateQueries({ queryKey: queryKeys.clients });
  };
  const done = (message: string) => () => {
    notifications.show({ message, color: 'teal' });
    refresh();
  };
  const failed = (error: unknown) => notifications.show({ message: messageOf(error), color: 'red' });
  const update = useMutation({
    mutationFn: (body: Partial<ReturnType<typeof toBody>> & { enabled?: boolean }) =>
      must(api.PATCH('/api/clients/{id}', { params: { path: { id } }, body })),
    onSuccess: () => {
      setEditing(false);
      done(t('common.saved'))();
    },
  });
  const toggle = useMutation({
    mutationFn: (enabled: boolean) =>
      must(api.PATCH('/api/clients/{id}', { params: { path: { id } }, body: { enabled } })),
    onSuccess: done(t('common.saved')),
    onError: failed,
  });
  const reset = useMutation({
    mutationFn: () => must(api.POST('/api/clients/{id}/reset', { params: { path: { id } } })),
    onSuccess: done(t('clients.resetDone')),
    onError: failed,
  });
  const rotate = useMutation({
    mutationFn: () => must(api.POST('/api/clients/{id}/rotate-keys', { params: { path: { id } } })),
    onSuccess: done(t('clients.rotated')),
    onError: failed,
  });
  const remove = useMutation({
    mutationFn: () => must(api.DELETE('/api/clients/{id}', { params: { path: { id } } })),
    onSuccess: () => {
      refresh();
      onClose();
    },
    onError: failed,
  });
  const data = client.data;
  return (
    <Drawer
      opened
      onClose={onClose}
      position={i18n.dir() === 'rtl' ? 'left' : 'right'}
      size="lg"
      title={data?.name ?? t('nav.clients')}
    >
      {!data ? (
        client.error ? (
          <Text c="red">{messageOf(client.error)}</Text>
        ) : (
          <PageLoader />
        )
      ) : editing ? (
        <ClientForm
          initial={initialValues(data)}
          error={update.error}
          pending={update.isPending}
          submitLabel={t('common.save')}
          onSubmit={(values) => update.mutate(toBody(values))}
        />
      ) : (
        <Stack>
          <Group justify="space-between">
            <StatusBadge status={data.status} />
            {canManage && (
              <Switch
                label={t('clients.enabled')}
                checked={data.status !== 'disabled'}
                onChange={(e) => toggle.mutate(e.currentTarget.checked)}
                data-testid="client-enabled"
              />
            )}
          </Group>
          <Table>
            <Table.Tbody>
              <Info
                label={t('clients.usage')}
                value={
                  <Ltr>{`${formatBytes(data.usedBytes)} / ${data.quotaBytes ? formatBytes(data.quotaBytes) : '∞'} (↑ ${formatBytes(data.upBytes)} ↓ ${formatBytes(data.downBytes)})`}</Ltr>
                }
              />
              <Info
                label={t('clients.expires')}
                value={data.expiresAt ? formatDate(data.expiresAt, i18n.language) : '—'}
              />
              <Info label={t('clients.devices')} value={<Ltr>{`${data.deviceCount} / ${data.deviceLimit}`}</Ltr>} />
              <Info label={t('clients.groups')} value={data.groups.join(', ') || '—'} />
              <Info label={t('clients.telegramId')} value={data.telegramId?.toString() ?? '—'} />
              <Info label={t('clients.lastHandshake')} value={formatDate(data.lastHandshake, i18n.language)} />
              {data.note && <Info label={t('clients.note')} value={data.note} />}
            </Table.Tbody>
          </Table>
          <Group gap="xs">
            <Button
              size="xs"
              onClick={() => setConfigs(true)}
              data-testid="open-configs"
              leftSection={<IconQrcode size={14} />}
            >
              {t('clients.configs')}
            </Button>
            {canManage && (
              <>
                <Button size="xs" variant="default" onClick={() => setEditing(true)} data-testid="edit-client">
                  {t('common.edit')}
                </Button>
                <ConfirmButton
                  message={t('clients.confirmReset', { name: data.name })}
                  onConfirm={() => reset.mutate()}
                  color="orange"
                  data-testid="reset-client"
                >
                  {t('clients.reset')}
                </ConfirmButton>
                <ConfirmButton
                  message={t('clients.confirmRotate', { name: data.name })}
                  onConfirm={() => rotate.mutate()}
                  color="orange"
                >
                  {t('clients.rotate')}
                </ConfirmButton>
                <ConfirmButton
                  message={t('clients.confirmDelete', { name: data.name })}
                  onConfirm={() => remove.mutate()}
                  data-testid="delete-client"
                >
                  {t('common.delete')}
                </ConfirmButton>
              </>
            )}
          </Group>
          <Divider label={t('clients.devices')} />
          <Devices clientId={id} devices={data.devices} canManage={canManage} onChange={refresh} />
        </Stack>
      )}
      <Suspense>{configs && data && <ConfigsModal clientId={id} onClose={() => setConfigs(false)} />}</Suspense>
    </Drawer>
  );
}

function Info({ label, value }: { label: string; value: ReactNode }) {
  return (
    <Table.Tr>
      <Table.Td c="dimmed" w="40%">
        {label}
      </Table.Td>
      <Table.Td>{value}</Table.Td>
    </Table.Tr>
  );
}

function Devices({
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
