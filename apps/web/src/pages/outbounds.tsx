import { Button } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, must } from '../api.js';
import { EmptyState, notifyFailure, PageHeader } from '../components/common.js';
import { NodeSelect } from '../components/node-select.js';
import { useCanManage } from '../session.js';
import { queryKeys, useOutbounds } from '../api/queries.js';
import { OutboundModal } from './outbounds/outbound-modal.js';
import { OutboundsTable } from './outbounds/outbounds-table.js';
import { ProbeModal } from './outbounds/probe-modal.js';
import type { Outbound, Probe } from './outbounds/types.js';

export { OutboundState } from './outbounds/outbound-state.js';

/** A node's outbounds (hops): list, create, change, delete, and a check that shows the probe's stages. */
export default function OutboundsPage() {
  const { t } = useTranslation();
  const canManage = useCanManage();
  const queryClient = useQueryClient();
  const [nodeId, setNodeId] = useState<string | null>(null);
  const [editing, setEditing] = useState<Outbound | 'new' | null>(null);
  const [probe, setProbe] = useState<{ outbound: Outbound; result: Probe } | null>(null);
  const outbounds = useOutbounds(nodeId);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: queryKeys.outbounds() });
  const check = useMutation({
    mutationFn: async (outbound: Outbound) => ({
      outbound,
      result: await must(api.POST('/api/outbounds/{id}/check', { params: { path: { id: outbound.id } } })),
    }),
    onSuccess: (answer) => {
      setProbe(answer);
      refresh();
    },
    onError: notifyFailure,
  });
  const remove = useMutation({
    mutationFn: (id: string) => must(api.DELETE('/api/outbounds/{id}', { params: { path: { id } } })),
    onSuccess: refresh,
    onError: notifyFailure,
  });
  return (
    <>
      <PageHeader title={t('nav.outbounds')}>
        <NodeSelect value={nodeId} onChange={setNodeId} />
        {canManage && (
          <Button
            leftSection={<IconPlus size={16} />}
            onClick={() => setEditing('new')}
            disabled={!nodeId}
            data-testid="new-outbound"
          >
            {t('outbounds.new')}
          </Button>
        )}
      </PageHeader>
      {outbounds.data?.every((outbound) => outbound.builtin) && outbounds.data.length <= 2 && !canManage ? (
        <EmptyState>{t('outbounds.empty')}</EmptyState>
      ) : (
        <OutboundsTable
          outbounds={outbounds.data}
          canManage={canManage}
          checking={check.isPending ? check.variables?.id : undefined}
          onCheck={(outbound) => check.mutate(outbound)}
          onEdit={setEditing}
          onDelete={(outbound) => remove.mutate(outbound.id)}
        />
      )}
      {editing && nodeId && (
        <OutboundModal
          nodeId={nodeId}
          outbound={editing === 'new' ? undefined : editing}
          onClose={() => setEditing(null)}
          onSaved={refresh}
        />
      )}
      {probe && <ProbeModal {...probe} onClose={() => setProbe(null)} />}
    </>
  );
}
