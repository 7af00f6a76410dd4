import { Button, Tabs } from '@mantine/core';
import { IconPlus, IconRadar } from '@tabler/icons-react';
import { notifications } from '@mantine/notifications';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, must } from '../api.js';
import { ConfirmButton, EmptyState, notifyFailure, PageHeader } from '../components/common.js';
import { NodeSelect } from '../components/node-select.js';
import { useCanManage } from '../session.js';
import { queryKeys, useOutbounds } from '../api/queries.js';
import { OutboundModal } from './outbounds/outbound-modal.js';
import { OutboundsTable } from './outbounds/outbounds-table.js';
import { ProbeModal } from './outbounds/probe-modal.js';
import { SubscriptionsSection } from './outbounds/subscriptions.js';
import { BalancersSection } from './outbounds/balancers.js';
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
  // Every enabled hop of the node at once (POST /api/outbounds/check); each row's last check updates.
  const checkAll = useMutation({
    mutationFn: () => must(api.POST('/api/outbounds/check', { params: { query: { nodeId: nodeId! } } })),
    onSuccess: (results) => {
      const ok = results.filter((entry) => entry.result.ok).length;
      notifications.show({
        message: t('hopTools.checkedAll', { ok, total: results.length }),
        color: ok === results.length ? 'teal' : 'orange',
      });
      refresh();
    },
    onError: notifyFailure,
  });
  // Display order (POST /api/outbounds/order lists every hop of the node; the built-ins stay first).
  const move = useMutation({
    mutationFn: ({ outbound, by }: { outbound: Outbound; by: -1 | 1 }) => {
      const ids = (outbounds.data ?? []).filter((hop) => !hop.builtin).map((hop) => hop.id);
      const from = ids.indexOf(outbound.id);
      const to = from + by;
      if (from < 0 || to < 0 || to >= ids.length) return Promise.resolve(outbounds.data ?? []);
      [ids[from], ids[to]] = [ids[to], ids[from]];
      return must(api.POST('/api/outbounds/order', { params: { query: { nodeId: nodeId! } }, body: { ids } }));
    },
    onSuccess: refresh,
    onError: notifyFailure,
  });
  // Traffic counters: one hop's, or every outbound's of the node (the buttons ask first).
  const resetTraffic = useMutation({
    mutationFn: async (outbound: Outbound | 'all'): Promise<unknown> =>
      outbound === 'all'
        ? must(api.POST('/api/outbounds/reset', { body: { nodeId: nodeId! } }))
        : must(api.POST('/api/outbounds/{id}/reset', { params: { path: { id: outbound.id } } })),
    onSuccess: () => {
      notifications.show({ message: t('hopTools.trafficReset'), color: 'teal' });
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
            variant="light"
            leftSection={<IconRadar size={16} />}
            onClick={() => checkAll.mutate()}
            loading={checkAll.isPending}
            disabled={!nodeId || !outbounds.data?.some((outbound) => !outbound.builtin && outbound.enabled)}
            data-testid="check-all-outbounds"
          >
            {t('hopTools.checkAll')}
          </Button>
        )}
        {canManage && (
          <ConfirmButton
            size="sm"
            message={t('hopTools.confirmResetAllTraffic')}
            onConfirm={() => resetTraffic.mutate('all')}
            loading={resetTraffic.isPending && resetTraffic.variables === 'all'}
            disabled={!nodeId || !outbounds.data?.some((outbound) => !outbound.builtin)}
            data-testid="reset-all-traffic"
          >
            {t('hopTools.resetAllTraffic')}
          </ConfirmButton>
        )}
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
      <Tabs defaultValue="hops" keepMounted={false}>
        <Tabs.List mb="sm">
          <Tabs.Tab value="hops" data-testid="hops-tab">
            {t('outboundSubs.hopsTab')}
          </Tabs.Tab>
          <Tabs.Tab value="subscriptions" data-testid="subscriptions-tab">
            {t('outboundSubs.tab')}
          </Tabs.Tab>
          <Tabs.Tab value="balancers" data-testid="balancers-tab">
            {t('balancers.tab')}
          </Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="hops">
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
              onMove={(outbound, by) => move.mutate({ outbound, by })}
              onResetTraffic={(outbound) => resetTraffic.mutate(outbound)}
            />
          )}
        </Tabs.Panel>
        <Tabs.Panel value="subscriptions">
          <SubscriptionsSection nodeId={nodeId} canManage={canManage} />
        </Tabs.Panel>
        <Tabs.Panel value="balancers">
          <BalancersSection nodeId={nodeId} canManage={canManage} />
        </Tabs.Panel>
      </Tabs>
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
