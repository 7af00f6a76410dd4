import { Button, Group, NumberInput, Select, Switch, TagsInput, Text, TextInput } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, must, type Schemas } from '../api.js';
import { EditAndDelete, formatBytes, hostPort, Ltr, notifyFailure, PageHeader } from '../components/common.js';
import { useFieldErrors } from '../components/form-errors.js';
import { FormModal } from '../components/form-modal.js';
import { ListTable } from '../components/list-table.js';
import { useCanManage } from '../session.js';
import { queryKeys, useInterfacesWithNodes, useNodes } from '../api/queries.js';
import { StateBadge } from '../components/badges.js';

type Interface = Schemas['InterfaceDto'];
const FIELDS = [
  'name',
  'nodeId',
  'mode',
  'listenPort',
  'subnet',
  'endpointHost',
  'mtu',
  'dns',
  'natInterface',
  'enabled',
];

export default function InterfacesPage() {
  const { t } = useTranslation();
  const canManage = useCanManage();
  const [editing, setEditing] = useState<Interface | 'new' | null>(null);
  const interfaces = useInterfacesWithNodes();
  return (
    <>
      <PageHeader title={t('nav.interfaces')}>
        {canManage && (
          <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing('new')} data-testid="new-interface">
            {t('interfaces.new')}
          </Button>
        )}
      </PageHeader>
      <InterfacesTable rows={interfaces.data} onEdit={canManage ? setEditing : undefined} />
      {editing && <InterfaceModal entry={editing === 'new' ? undefined : editing} onClose={() => setEditing(null)} />}
    </>
  );
}

/** The interfaces of every node, each with its node (two nodes may each have a "wg0"). */
function InterfacesTable({
  rows,
  onEdit,
}: {
  rows: (Interface & { nodeName: string })[] | undefined;
  onEdit?: (entry: Interface) => void;
}) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: ({ id, force }: { id: string; force: boolean }) =>
      must(
        api.DELETE('/api/interfaces/{id}', {
          params: { path: { id }, query: force ? { force: 'true' as const } : {} },
        }),
      ),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: queryKeys.interfaces }),
    onError: notifyFailure,
  });
  return (
    <ListTable
      rows={rows}
      empty={t('interfaces.empty')}
      cards
      rowKey={(entry) => entry.id}
      minWidth={820}
      testId="interfaces-table"
      rowProps={(entry) => ({ 'data-row': entry.name, 'data-node': entry.nodeName })}
      columns={[
        { header: t('common.name'), naming: true, cell: (entry) => entry.name },
        { header: t('interfaces.node'), cell: (entry) => entry.nodeName || entry.nodeId },
        { header: t('interfaces.mode'), cell: (entry) => entry.mode },
        {
          header: t('interfaces.endpoint'),
          cell: (entry) => <Ltr>{hostPort(entry.endpointHost, entry.listenPort)}</Ltr>,
        },
        { header: t('interfaces.subnet'), cell: (entry) => <Ltr>{entry.subnet}</Ltr> },
        {
          header: t('interfaces.addresses'),
          cell: (entry) => (
            // Two short lines, not one squeezed a word a line into a narrow column.
            <div style={{ whiteSpace: 'nowrap' }}>
              <Ltr>{`${entry.allocated} / ${entry.capacity}`}</Ltr> · <Ltr>{formatBytes(entry.usedBytes)}</Ltr>
              <Text size="xs" c="dimmed">
                {t('interfaces.clientsDevices', { clients: entry.clients, devices: entry.devices })}
              </Text>
            </div>
          ),
        },
        {
          header: t('interfaces.state'),
          cell: (entry) => (
            <StateBadge color={!entry.enabled ? 'gray' : entry.running ? 'green' : 'yellow'}>
              {!entry.enabled
                ? t('interfaces.disabled')
                : entry.running
                  ? t('interfaces.running')
                  : t('interfaces.pending')}
            </StateBadge>
          ),
        },
      ]}
      actions={
        onEdit &&
        ((entry) => (
          <EditAndDelete
            onEdit={() => onEdit(entry)}
            confirmMessage={
              entry.devices > 0
                ? t('interfaces.confirmDeleteUsed', {
                    name: entry.name,
                    node: entry.nodeName,
                    devices: entry.devices,
                    clients: entry.clients,
                  })
                : t('interfaces.confirmDelete', { name: entry.name, node: entry.nodeName })
            }
            typeToConfirm={entry.devices > 0 ? entry.name : undefined}
            onDelete={() => remove.mutate({ id: entry.id, force: entry.devices > 0 })}
          />
        ))
      }
    />
  );
}

/** The first port from 51820 up that no interface listens on (the interfaces of all nodes: one list, one port each). */
function freePort(interfaces: Pick<Interface, 'listenPort'>[]): number {
  const used = new Set(interfaces.map((entry) => entry.listenPort));
  let port = 51820;
  while (used.has(port) && port < 65535) port++;
  return port;
}

/** The first 10.N.0.0/24 from 10.8 up that no interface's subnet overlaps (any prefix, compared on the second octet). */
function freeSubnet(interfaces: Pick<Interface, 'subnet'>[]): string {
  const overlaps = (n: number) =>
    interfaces.some((entry) => {
      const [address, bits] = entry.subnet.split('/');
      const [a, b] = (address ?? '').split('.').map(Number);
      if (a !== 10) return false;
      const prefix = Number(bits);
      // A /8 covers every 10.N; a /9../15 covers a range of N; /16 and longer only its own N.
      const span = prefix >= 16 ? 1 : 2 ** (16 - prefix);
      const start = Math.floor((b ?? 0) / span) * span;
      return n >= start && n < start + span;
    });
  let n = 8;
  while (overlaps(n) && n < 255) n++;
  return `10.${n}.0.0/24`;
}

function InterfaceModal({ entry, onClose }: { entry?: Interface; onClose: () => void }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const nodes = useNodes({ enabled: !entry });
  // The list this dialog was opened from: a new interface is offered a port and subnet none uses.
  const taken = queryClient.getQueryData<Interface[]>(queryKeys.interfaces) ?? [];
  const [values, setValues] = useState({
    name: entry?.name ?? '',
    nodeId: entry?.nodeId ?? '',
    mode: entry?.mode ?? 'standard',
    listenPort: entry?.listenPort ?? freePort(taken),
    subnet: entry?.subnet ?? freeSubnet(taken),
    endpointHost: entry?.endpointHost ?? window.location.hostname,
    mtu: entry?.mtu ?? 1420,
    dns: entry?.dns ?? ['1.1.1.1'],
    enabled: entry?.enabled ?? true,
  });
  const set = (key: keyof typeof values, value: unknown) => setValues((before) => ({ ...before, [key]: value }));
  const save = useMutation({
    mutationFn: () => {
      const body = {
        name: values.name.trim(),
        listenPort: Number(values.listenPort),
        subnet: values.subnet.trim(),
        endpointHost: values.endpointHost.trim(),
        mtu: Number(values.mtu),
        dns: values.dns,
        enabled: values.enabled,
      };
      return entry
        ? must(api.PATCH('/api/interfaces/{id}', { params: { path: { id: entry.id } }, body }))
        : must(
            api.POST('/api/interfaces', {
              body: {
                ...body,
                mode: values.mode as 'standard' | 'amnezia',
                ...(values.nodeId ? { nodeId: values.nodeId } : {}),
              },
            }),
          );
    },
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.interfaces });
      onClose();
    },
  });
  const errors = useFieldErrors(save.error, values);
  return (
    <FormModal
      title={entry ? entry.name : t('interfaces.new')}
      onClose={onClose}
      save={save}
      fields={FIELDS}
      editing={Boolean(entry)}
      size="lg"
      submitTestId="interface-submit"
      footer={
        entry && (
          <Text size="xs" c="dimmed">
            {t('interfaces.subnetNote')}
          </Text>
        )
      }
    >
      <Group grow>
        <TextInput
          label={t('common.name')}
          name="name"
          value={values.name}
          onChange={(e) => set('name', e.currentTarget.value)}
          error={errors.of('name')}
        />
        {!entry && (
          <Select
            label={t('interfaces.mode')}
            data={[
              { value: 'standard', label: 'WireGuard' },
              { value: 'amnezia', label: 'AmneziaWG' },
            ]}
            value={values.mode}
            onChange={(value) => set('mode', value)}
            error={errors.of('mode')}
          />
        )}
      </Group>
      {!entry && (
        <Select
          label={t('interfaces.node')}
          placeholder={t('interfaces.localNode')}
          data={(nodes.data ?? []).map((node) => ({ value: node.id, label: node.name }))}
          value={values.nodeId || null}
          onChange={(value) => set('nodeId', value ?? '')}
          clearable
          error={errors.of('nodeId')}
        />
      )}
      <Group grow>
        <TextInput
          label={t('interfaces.endpointHost')}
          name="endpointHost"
          value={values.endpointHost}
          onChange={(e) => set('endpointHost', e.currentTarget.value)}
          error={errors.of('endpointHost')}
        />
        <NumberInput
          label={t('interfaces.listenPort')}
          name="listenPort"
          value={values.listenPort}
          onChange={(value) => set('listenPort', value)}
          error={errors.of('listenPort')}
        />
      </Group>
      <Group grow>
        <TextInput
          label={t('interfaces.subnet')}
          name="subnet"
          value={values.subnet}
          onChange={(e) => set('subnet', e.currentTarget.value)}
          error={errors.of('subnet')}
        />
        <NumberInput
          label="MTU"
          name="mtu"
          value={values.mtu}
          onChange={(value) => set('mtu', value)}
          error={errors.of('mtu')}
        />
      </Group>
      <TagsInput label="DNS" value={values.dns} onChange={(value) => set('dns', value)} error={errors.of('dns')} />
      <Switch
        label={t('interfaces.enabled')}
        checked={values.enabled}
        onChange={(e) => set('enabled', e.currentTarget.checked)}
      />
    </FormModal>
  );
}
