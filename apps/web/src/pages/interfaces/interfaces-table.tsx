import { Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, must, type Schemas } from '../../api.js';
import { notifications } from '@mantine/notifications';
import {
  ConfirmButton,
  EditAndDelete,
  formatBytes,
  HostPort,
  Ltr,
  Sizes,
  notifyFailure,
} from '../../components/common.js';
import { ListTable } from '../../components/list-table.js';
import { queryKeys } from '../../api/queries.js';
import { StateBadge } from '../../components/badges.js';
import { NodeOfflineBadge, NodeUnmanagedBadge } from '../../components/node-health.js';
import { localDigits } from '../../format.js';

type Interface = Schemas['InterfaceDto'];

/** The interfaces of every node, each with its node (two nodes may each have a "wg0"). */
export function InterfacesTable({
  rows,
  onEdit,
}: {
  rows:
    | (Interface & { nodeName: string; nodeOffline?: boolean; nodeUnmanaged?: boolean; nodeStopped?: boolean })[]
    | undefined;
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
  const restart = useMutation({
    mutationFn: (entry: Interface) =>
      must(api.POST('/api/interfaces/{id}/restart', { params: { path: { id: entry.id } } })).then(() => entry),
    onSuccess: (entry) => {
      notifications.show({ message: t('interfaces.restarted', { name: entry.name }), color: 'teal' });
      void queryClient.invalidateQueries({ queryKey: queryKeys.interfaces });
    },
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
        { header: t('interfaces.mode'), cell: (entry) => t(`interfaces.modes.${entry.mode}`) },
        {
          header: t('interfaces.endpoint'),
          wide: true,
          cell: (entry) => <HostPort host={entry.endpointHost} port={entry.listenPort} />,
        },
        { header: t('interfaces.subnet'), cell: (entry) => <Ltr>{entry.subnet}</Ltr> },
        {
          header: t('interfaces.addresses'),
          cell: (entry) => (
            // Two short lines, not one squeezed a word a line into a narrow column.
            <div style={{ whiteSpace: 'nowrap' }}>
              <Ltr>{localDigits(`${entry.allocated} / ${entry.capacity}`)}</Ltr> ·{' '}
              <Sizes>{formatBytes(entry.usedBytes)}</Sizes>
              <Text size="xs" c="dimmed">
                {t('interfaces.clientsDevices', { clients: entry.clients, devices: entry.devices })}
              </Text>
            </div>
          ),
        },
        {
          header: t('interfaces.state'),
          // A node whose agent is not linked: "node offline"; one with no agent meant to run:
          // "not applied: node unmanaged". Neither is "applying" for ever.
          cell: (entry) =>
            entry.enabled && entry.nodeUnmanaged ? (
              <NodeUnmanagedBadge />
            ) : entry.enabled && entry.nodeOffline ? (
              <NodeOfflineBadge />
            ) : entry.enabled && entry.nodeStopped ? (
              <StateBadge color="red">{t('nodes.tunnels.stopped')}</StateBadge>
            ) : (
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
          <>
            {entry.enabled && !entry.nodeStopped && (
              <ConfirmButton
                color="orange"
                message={t('interfaces.confirmRestart', { name: entry.name, node: entry.nodeName })}
                onConfirm={() => restart.mutate(entry)}
                data-testid="interface-restart"
              >
                {t('interfaces.restart')}
              </ConfirmButton>
            )}
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
          </>
        ))
      }
    />
  );
}
