import { Badge, Button, Group, Modal, NumberInput, Select, Stack, Switch, Table, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconPlus } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, messageOf, must, type Schemas } from '../api.js';
import { ConfirmButton, EmptyState, PageHeader } from '../components/common.js';
import { fieldError, FormError } from '../components/form-errors.js';
import { PageLoader } from '../components/page-loader.js';
import { useCanManage } from '../session.js';

type Host = Schemas['HostDto'];

/** Hosts: the alternative addresses clients dial for an interface, highest priority first. */
export default function HostsPage() {
  const { t } = useTranslation();
  const canManage = useCanManage();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<Host | 'new' | null>(null);
  const hosts = useQuery({ queryKey: ['hosts'], queryFn: () => must(api.GET('/api/hosts')) });
  const interfaces = useQuery({ queryKey: ['interfaces'], queryFn: () => must(api.GET('/api/interfaces')) });
  const names = new Map((interfaces.data ?? []).map((entry) => [entry.id, entry.name]));
  const remove = useMutation({
    mutationFn: (id: string) => must(api.DELETE('/api/hosts/{id}', { params: { path: { id } } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['hosts'] }),
    onError: (error) => notifications.show({ message: messageOf(error), color: 'red' }),
  });
  if (!hosts.data) return <PageLoader />;
  return (
    <>
      <PageHeader title={t('nav.hosts')}>
        {canManage && (
          <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing('new')} disabled={!interfaces.data?.length}>
            {t('hosts.new')}
          </Button>
        )}
      </PageHeader>
      {hosts.data.length === 0 ? (
        <EmptyState>{interfaces.data?.length ? t('hosts.empty') : t('hosts.needInterface')}</EmptyState>
      ) : (
        <Table.ScrollContainer minWidth={600}>
          <Table striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('common.name')}</Table.Th>
                <Table.Th>{t('hosts.interface')}</Table.Th>
                <Table.Th>{t('hosts.address')}</Table.Th>
                <Table.Th>{t('hosts.priority')}</Table.Th>
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {hosts.data.map((host) => (
                <Table.Tr key={host.id}>
                  <Table.Td fw={500}>
                    {host.name} {!host.enabled && <Badge color="gray" variant="light">{t('hosts.disabled')}</Badge>}
                  </Table.Td>
                  <Table.Td>{names.get(host.interfaceId) ?? host.interfaceId}</Table.Td>
                  <Table.Td>{host.address}:{host.effectivePort}</Table.Td>
                  <Table.Td>{host.priority}</Table.Td>
                  <Table.Td>
                    {canManage && (
                      <Group gap={4} wrap="nowrap">
                        <Button size="xs" variant="default" onClick={() => setEditing(host)}>{t('common.edit')}</Button>
                        <ConfirmButton message={t('hosts.confirmDelete', { name: host.name })} onConfirm={() => remove.mutate(host.id)}>
                          {t('common.delete')}
                        </ConfirmButton>
                      </Group>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {editing && <HostModal host={editing === 'new' ? undefined : editing} interfaces={interfaces.data ?? []} onClose={() => setEditing(null)} />}
    </>
  );
}

function HostModal({ host, interfaces, onClose }: { host?: Host; interfaces: Schemas['InterfaceDto'][]; onClose: () => void }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [values, setValues] = useState({ interfaceId: host?.interfaceId ?? interfaces[0]?.id ?? '', name: host?.name ?? '', address: host?.address ?? '', port: host?.port ?? 0, priority: host?.priority ?? 0, enabled: host?.enabled ?? true });
  const set = (key: keyof typeof values, value: unknown) => setValues((before) => ({ ...before, [key]: value }));
  const save = useMutation({
    mutationFn: () => {
      const body = { name: values.name.trim(), address: values.address.trim(), port: Number(values.port), priority: Number(values.priority), enabled: values.enabled };
      return host ? must(api.PATCH('/api/hosts/{id}', { params: { path: { id: host.id } }, body })) : must(api.POST('/api/hosts', { body: { ...body, interfaceId: values.interfaceId } }));
    },
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['hosts'] });
      onClose();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <Modal opened onClose={onClose} title={host ? host.name : t('hosts.new')}>
      <Stack component="form" onSubmit={submit} gap="sm">
        {!host && <Select label={t('hosts.interface')} data={interfaces.map((entry) => ({ value: entry.id, label: entry.name }))} value={values.interfaceId} onChange={(value) => set('interfaceId', value ?? '')} error={fieldError(save.error, 'interfaceId')} />}
        <TextInput label={t('common.name')} value={values.name} onChange={(e) => set('name', e.currentTarget.value)} error={fieldError(save.error, 'name')} />
        <TextInput label={t('hosts.address')} value={values.address} onChange={(e) => set('address', e.currentTarget.value)} error={fieldError(save.error, 'address')} />
        <Group grow>
          <NumberInput label={t('hosts.port')} description={t('hosts.portZero')} value={values.port} onChange={(value) => set('port', value)} error={fieldError(save.error, 'port')} />
          <NumberInput label={t('hosts.priority')} value={values.priority} onChange={(value) => set('priority', value)} error={fieldError(save.error, 'priority')} />
        </Group>
        <Switch label={t('hosts.enabled')} checked={values.enabled} onChange={(e) => set('enabled', e.currentTarget.checked)} />
        <FormError error={save.error} fields={['interfaceId', 'name', 'address', 'port', 'priority', 'enabled']} />
        <Group justify="flex-end">
          <Button type="submit" loading={save.isPending}>{host ? t('common.save') : t('common.create')}</Button>
        </Group>
      </Stack>
    </Modal>
  );
}
