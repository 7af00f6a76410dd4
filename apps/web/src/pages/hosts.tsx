import { Badge, Button, Group, Select, Switch, TextInput } from '@mantine/core';
import { NumberInput } from '../components/number-input.js';
import { IconPlus } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, must, type Schemas } from '../api.js';
import { EditAndDelete, HostPort, notifyFailure, PageHeader } from '../components/common.js';
import { useFieldErrors } from '../components/form-errors.js';
import { FormModal } from '../components/form-modal.js';
import { ListTable } from '../components/list-table.js';
import { NodeOfflineBadge, NodeUnmanagedBadge } from '../components/node-health.js';
import { useCanManage } from '../session.js';
import { localDigits } from '../format.js';
import { queryKeys, useHosts, useInterfaceOptions } from '../api/queries.js';

type Host = Schemas['HostDto'];

/** Hosts: the alternative addresses clients dial for an interface, highest priority first. */
export default function HostsPage() {
  const { t } = useTranslation();
  const canManage = useCanManage();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<Host | 'new' | null>(null);
  const hosts = useHosts();
  const interfaces = useInterfaceOptions();
  const names = new Map(interfaces.options.map((option) => [option.value, option.label]));
  const offline = new Set(interfaces.data?.filter((entry) => entry.nodeOffline).map((entry) => entry.id));
  const unmanaged = new Set(interfaces.data?.filter((entry) => entry.nodeUnmanaged).map((entry) => entry.id));
  const remove = useMutation({
    mutationFn: (id: string) => must(api.DELETE('/api/hosts/{id}', { params: { path: { id } } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: queryKeys.hosts }),
    onError: notifyFailure,
  });
  return (
    <>
      <PageHeader title={t('nav.hosts')}>
        {canManage && (
          <Button
            leftSection={<IconPlus size={16} />}
            onClick={() => setEditing('new')}
            disabled={!interfaces.data?.length}
          >
            {t('hosts.new')}
          </Button>
        )}
      </PageHeader>
      <ListTable
        rows={hosts.data}
        empty={interfaces.data?.length ? t('hosts.empty') : t('hosts.needInterface')}
        cards
        rowKey={(host) => host.id}
        minWidth={600}
        columns={[
          {
            header: t('common.name'),
            naming: true,
            cell: (host) => (
              <>
                {host.name}{' '}
                {!host.enabled && (
                  <Badge color="gray" variant="light">
                    {t('hosts.disabled')}
                  </Badge>
                )}
                {host.enabled && offline.has(host.interfaceId) && <NodeOfflineBadge />}
                {host.enabled && unmanaged.has(host.interfaceId) && <NodeUnmanagedBadge />}
              </>
            ),
          },
          { header: t('hosts.interface'), cell: (host) => names.get(host.interfaceId) ?? host.interfaceId },
          {
            header: t('hosts.address'),
            wide: true,
            cell: (host) => <HostPort host={host.address} port={host.effectivePort} />,
          },
          { header: t('hosts.priority'), cell: (host) => localDigits(host.priority) },
        ]}
        actions={(host) =>
          canManage && (
            <EditAndDelete
              onEdit={() => setEditing(host)}
              confirmMessage={t('hosts.confirmDelete', { name: host.name })}
              onDelete={() => remove.mutate(host.id)}
            />
          )
        }
      />
      {editing && (
        <HostModal
          host={editing === 'new' ? undefined : editing}
          interfaces={interfaces.options}
          onClose={() => setEditing(null)}
        />
      )}
    </>
  );
}

function HostModal({
  host,
  interfaces,
  onClose,
}: {
  host?: Host;
  interfaces: { value: string; label: string }[];
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [values, setValues] = useState({
    interfaceId: host?.interfaceId ?? interfaces[0]?.value ?? '',
    name: host?.name ?? '',
    address: host?.address ?? '',
    port: host?.port ?? 0,
    priority: host?.priority ?? 0,
    enabled: host?.enabled ?? true,
  });
  const set = (key: keyof typeof values, value: unknown) => setValues((before) => ({ ...before, [key]: value }));
  const save = useMutation({
    mutationFn: () => {
      const body = {
        name: values.name.trim(),
        address: values.address.trim(),
        port: Number(values.port),
        priority: Number(values.priority),
        enabled: values.enabled,
      };
      return host
        ? must(api.PATCH('/api/hosts/{id}', { params: { path: { id: host.id } }, body }))
        : must(api.POST('/api/hosts', { body: { ...body, interfaceId: values.interfaceId } }));
    },
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.hosts });
      onClose();
    },
  });
  const errors = useFieldErrors(save.error, values);
  return (
    <FormModal
      title={host ? host.name : t('hosts.new')}
      onClose={onClose}
      save={save}
      fields={['interfaceId', 'name', 'address', 'port', 'priority', 'enabled']}
      editing={Boolean(host)}
    >
      {!host && (
        <Select
          label={t('hosts.interface')}
          data={interfaces}
          value={values.interfaceId}
          onChange={(value) => set('interfaceId', value ?? '')}
          error={errors.of('interfaceId')}
        />
      )}
      <TextInput
        label={t('common.name')}
        value={values.name}
        onChange={(e) => set('name', e.currentTarget.value)}
        error={errors.of('name')}
      />
      <TextInput
        label={t('hosts.address')}
        value={values.address}
        onChange={(e) => set('address', e.currentTarget.value)}
        error={errors.of('address')}
      />
      <Group grow>
        <NumberInput
          label={t('hosts.port')}
          description={t('hosts.portZero')}
          value={values.port}
          onChange={(value) => set('port', value)}
          error={errors.of('port')}
        />
        <NumberInput
          label={t('hosts.priority')}
          value={values.priority}
          onChange={(value) => set('priority', value)}
          error={errors.of('priority')}
        />
      </Group>
      <Switch
        label={t('hosts.enabled')}
        checked={values.enabled}
        onChange={(e) => set('enabled', e.currentTarget.checked)}
      />
    </FormModal>
  );
}
