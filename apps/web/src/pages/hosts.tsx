import { ActionIcon, Badge, Button, Checkbox, Group, Select, Switch, TagsInput, TextInput } from '@mantine/core';
import { NumberInput } from '../components/number-input.js';
import { IconArrowDown, IconArrowUp, IconPlus } from '@tabler/icons-react';
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
import {
  queryKeys,
  useHostGroups,
  useHosts,
  useHostTags,
  useInterfaceOptions,
  useInterfacesWithNodes,
} from '../api/queries.js';
import { HostBulkBar } from './hosts/host-bulk.js';
import { HostCheckButton } from './hosts/host-check.js';
import { HostGroupsSection, moved } from './hosts/host-groups.js';

type Host = Schemas['HostDto'];

/**
 * Hosts: the alternative addresses clients dial for an interface, highest priority first; their
 * groups (tied to client groups: which clients carry them), tags, bulk actions, order and check.
 */
export default function HostsPage() {
  const { t } = useTranslation();
  const canManage = useCanManage();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<Host | 'new' | null>(null);
  const [selected, setSelected] = useState<string[]>([]);
  const hosts = useHosts();
  const groups = useHostGroups();
  const groupNames = new Map((groups.data ?? []).map((group) => [group.id, group.name]));
  const reorder = useMutation({
    mutationFn: (ids: string[]) => must(api.POST('/api/hosts/reorder', { body: { ids } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: queryKeys.hosts }),
    onError: notifyFailure,
  });
  /** The hosts a host can trade places with: same interface and priority, in list order. */
  const peersOf = (host: Host) =>
    (hosts.data ?? [])
      .filter((other) => other.interfaceId === host.interfaceId && other.priority === host.priority)
      .map((other) => other.id);
  const allIds = (hosts.data ?? []).map((host) => host.id);
  const toggle = (id: string, on: boolean) =>
    setSelected((before) => (on ? [...before, id] : before.filter((other) => other !== id)));
  const interfaces = { ...useInterfaceOptions(), data: useInterfacesWithNodes().data };
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
      <HostGroupsSection canManage={canManage} />
      {canManage && selected.length > 0 && (
        <HostBulkBar selected={selected} groups={groups.data ?? []} onDone={() => setSelected([])} />
      )}
      <ListTable
        rows={hosts.data}
        empty={interfaces.data?.length ? t('hosts.empty') : t('hosts.needInterface')}
        cards
        rowKey={(host) => host.id}
        minWidth={600}
        testId="hosts-table"
        columns={[
          ...(canManage
            ? [
                {
                  header: (
                    <Checkbox
                      aria-label={t('hosts.selectAll')}
                      checked={allIds.length > 0 && selected.length === allIds.length}
                      indeterminate={selected.length > 0 && selected.length < allIds.length}
                      onChange={(e) => setSelected(e.currentTarget.checked ? allIds : [])}
                    />
                  ),
                  cell: (host: Host) => (
                    <Checkbox
                      aria-label={t('hosts.select', { name: host.name })}
                      checked={selected.includes(host.id)}
                      onChange={(e) => toggle(host.id, e.currentTarget.checked)}
                    />
                  ),
                },
              ]
            : []),
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
          { header: t('hosts.group'), cell: (host) => (host.groupId ? groupNames.get(host.groupId) : '') },
          {
            header: t('hosts.tags'),
            cell: (host) => (
              <Group gap={4}>
                {host.tags.map((tag) => (
                  <Badge key={tag} variant="outline" size="sm">
                    {tag}
                  </Badge>
                ))}
              </Group>
            ),
          },
        ]}
        actions={(host) =>
          canManage && (
            <>
              <ActionIcon
                variant="default"
                aria-label={t('hosts.moveUp', { name: host.name })}
                disabled={peersOf(host)[0] === host.id}
                onClick={() => reorder.mutate(moved(peersOf(host), host.id, -1))}
              >
                <IconArrowUp size={14} />
              </ActionIcon>
              <ActionIcon
                variant="default"
                aria-label={t('hosts.moveDown', { name: host.name })}
                disabled={peersOf(host).at(-1) === host.id}
                onClick={() => reorder.mutate(moved(peersOf(host), host.id, 1))}
              >
                <IconArrowDown size={14} />
              </ActionIcon>
              <HostCheckButton host={host} />
              <EditAndDelete
                onEdit={() => setEditing(host)}
                confirmMessage={t('hosts.confirmDelete', { name: host.name })}
                onDelete={() => remove.mutate(host.id)}
              />
            </>
          )
        }
      />
      {editing && (
        <HostModal
          host={editing === 'new' ? undefined : editing}
          interfaces={interfaces.options}
          groups={(groups.data ?? []).map((group) => ({ value: group.id, label: group.name }))}
          onClose={() => setEditing(null)}
        />
      )}
    </>
  );
}

function HostModal({
  host,
  interfaces,
  groups,
  onClose,
}: {
  host?: Host;
  interfaces: { value: string; label: string }[];
  groups: { value: string; label: string }[];
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const tags = useHostTags();
  const queryClient = useQueryClient();
  const [values, setValues] = useState({
    interfaceId: host?.interfaceId ?? interfaces[0]?.value ?? '',
    name: host?.name ?? '',
    address: host?.address ?? '',
    port: host?.port ?? 0,
    priority: host?.priority ?? 0,
    enabled: host?.enabled ?? true,
    groupId: host?.groupId ?? null,
    tags: host?.tags ?? [],
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
        groupId: values.groupId,
        tags: values.tags,
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
      fields={['interfaceId', 'name', 'address', 'port', 'priority', 'enabled', 'groupId', 'tags']}
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
      <Group grow align="flex-end">
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
      <Select
        label={t('hosts.group')}
        placeholder={t('hosts.noGroup')}
        data={groups}
        value={values.groupId}
        onChange={(value) => set('groupId', value)}
        clearable
        error={errors.of('groupId')}
      />
      <TagsInput
        label={t('hosts.tags')}
        data={(tags.data ?? []).map((entry) => entry.tag)}
        value={values.tags}
        onChange={(value) => set('tags', value)}
        error={errors.of('tags')}
      />
      <Switch
        label={t('hosts.enabled')}
        checked={values.enabled}
        onChange={(e) => set('enabled', e.currentTarget.checked)}
      />
    </FormModal>
  );
}
