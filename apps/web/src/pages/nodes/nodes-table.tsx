import { Button, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, must } from '../../api.js';
import { EditAndDelete, formatDate, Ltr, notifyFailure } from '../../components/common.js';
import { ListTable } from '../../components/list-table.js';
import { AgentBadge, StateBadge, SyncBadge } from '../../components/badges.js';
import { queryKeys, useNodes } from '../../api/queries.js';
import { AgentGaps, formatAge, isOfflineAgent } from '../../components/node-health.js';
import type { Enrolment, Node } from './types.js';
import { TunnelButtons } from './tunnel-buttons.js';
import { localDigits } from '../../format.js';

/** Every node, its agent and sync state asked again every 5 s; on a phone a card each. */
export function NodesTable({
  onEdit,
  onEnrolment,
  onProbe,
  onUpdate,
  panelVersion,
}: {
  /** Absent for people who may not change nodes: no buttons then. */
  onEdit?: (node: Node) => void;
  onEnrolment: (enrolment: Enrolment) => void;
  /** Probes the node (POST /api/nodes/{id}/probe); shown beside onEdit's buttons. */
  onProbe: (node: Node) => void;
  /** Updates the node's agent (POST /api/nodes/{id}/update): the owner only; absent otherwise. */
  onUpdate?: (node: Node) => void;
  /** The panel's version (GET /api/meta): the update is offered where the agent's differs. */
  panelVersion?: string;
}) {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const nodes = useNodes({ refetchInterval: 5000 });
  const reissue = useMutation({
    mutationFn: (node: Node) =>
      must(api.POST('/api/nodes/{id}/enrolment', { params: { path: { id: node.id } } })).then((answer) => ({
        name: node.name,
        enrolment: answer,
      })),
    onSuccess: onEnrolment,
    onError: notifyFailure,
  });
  const remove = useMutation({
    mutationFn: ({ id, force }: { id: string; force: boolean }) =>
      must(api.DELETE('/api/nodes/{id}', { params: { path: { id }, query: force ? { force: 'true' as const } : {} } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: queryKeys.nodes }),
    onError: notifyFailure,
  });
  // An unmanaged node has no agent to answer: no Probe button (the API answers 409 anyway).
  const probeButton = (node: Node) =>
    node.agent.state !== 'unmanaged' && (
      <Button size="xs" variant="default" onClick={() => onProbe(node)} data-testid="node-probe">
        {t('nodes.probe.button')}
      </Button>
    );
  // A remote node whose linked agent runs another version than the panel's (the local agent
  // updates with the panel itself).
  const updateButton = (node: Node) =>
    onUpdate &&
    panelVersion &&
    !node.isLocal &&
    node.agent.state === 'connected' &&
    node.agent.version &&
    node.agent.version !== panelVersion && (
      <Button size="xs" variant="light" color="orange" onClick={() => onUpdate(node)} data-testid="node-update">
        {t('nodes.update.button')}
      </Button>
    );
  return (
    <ListTable
      rows={nodes.data}
      cards
      rowKey={(node) => node.id}
      minWidth={640}
      testId="nodes-table"
      rowProps={(node) => ({ 'data-row': node.name })}
      columns={[
        {
          header: t('common.name'),
          naming: true,
          cell: (node) => (
            <>
              {node.name}{' '}
              {node.isLocal && (
                <StateBadge variant="outline" size="xs">
                  {t('nodes.local')}
                </StateBadge>
              )}
            </>
          ),
        },
        { header: t('nodes.address'), cell: (node) => <Ltr>{node.address}</Ltr> },
        {
          header: t('nodes.agent'),
          cell: (node) => (
            <>
              <AgentBadge state={node.agent.state} />
              {node.agent.lastSeenAt && (
                <Text size="xs" c="dimmed" title={formatDate(node.agent.lastSeenAt, i18n.language)}>
                  {node.agent.state === 'connected'
                    ? formatDate(node.agent.lastSeenAt, i18n.language)
                    : t('health.lastSeen', { age: formatAge(node.agent.lastSeenAt, i18n.language) })}
                </Text>
              )}
              <AgentGaps gaps={node.agent.gaps} />
            </>
          ),
        },
        {
          header: t('nodes.sync'),
          cell: (node) => (
            <>
              <SyncBadge
                inSync={node.inSync}
                unmanaged={node.agent.state === 'unmanaged'}
                offline={isOfflineAgent(node.agent.state)}
              />
              <Text size="xs" c="dimmed">
                {node.agent.state === 'unmanaged'
                  ? t('health.unmanagedRevisions', { desired: node.desiredRevision })
                  : t('nodes.revisions', { applied: node.appliedRevision, desired: node.desiredRevision })}
              </Text>
            </>
          ),
        },
        {
          header: t('nodes.interfaces'),
          cell: (node) => (
            <>
              {localDigits(node.interfaceCount)}{' '}
              {node.tunnelsStopped && (
                <StateBadge color="red" size="xs" data-testid="tunnels-stopped">
                  {t('nodes.tunnels.stopped')}
                </StateBadge>
              )}
            </>
          ),
        },
      ]}
      actions={
        onEdit &&
        ((node) =>
          // The local node: enrolled by the panel itself, and deletable only while unmanaged.
          node.isLocal && node.agent.state !== 'unmanaged' ? (
            <>
              {probeButton(node)}
              <TunnelButtons node={node} />
              <Button size="xs" variant="default" onClick={() => onEdit(node)}>
                {t('common.edit')}
              </Button>
            </>
          ) : (
            <>
              {probeButton(node)}
              {updateButton(node)}
              <TunnelButtons node={node} />
              {!node.isLocal && (
                <Button size="xs" variant="default" onClick={() => reissue.mutate(node)}>
                  {t('nodes.enrolment')}
                </Button>
              )}
              <EditAndDelete
                onEdit={() => onEdit(node)}
                confirmMessage={t('nodes.confirmDelete', { name: node.name })}
                onDelete={() => remove.mutate({ id: node.id, force: node.interfaceCount > 0 })}
              />
            </>
          ))
      }
    />
  );
}
