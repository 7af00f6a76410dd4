import { Button, Stack, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconPlus, IconRefresh } from '@tabler/icons-react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, messageOf, must } from '../api.js';
import { EmptyState, PageHeader } from '../components/common.js';
import { NodeSelect } from '../components/node-select.js';
import { PageLoader } from '../components/page-loader.js';
import { useCanManage } from '../session.js';
import { localDigits } from '../format.js';
import { queryKeys, useOutbounds } from '../api/queries.js';
import { BasicSettings } from './routing/basic-settings.js';
import { RuleList } from './routing/rule-list.js';
import { RuleModal } from './routing/rule-modal.js';
import { RouteTest, type RouteTestResult } from './routing/route-test.js';
import type { Rule } from './routing/types.js';
import { useRuleMutations } from './routing/use-rule-mutations.js';

/**
 * A node's routing: the basic settings, and the rules in matching order, reordered by dragging
 * (POST /api/routing/rules/order with every rule's id). The new order shows at once; if the API
 * refuses it, the order the server has comes back.
 */
export default function RoutingPage() {
  const { t } = useTranslation();
  const canManage = useCanManage();
  const [nodeId, setNodeId] = useState<string | null>(null);
  const [editing, setEditing] = useState<Rule | 'new' | null>(null);
  const routing = useQuery({
    queryKey: queryKeys.routing(nodeId),
    queryFn: () => must(api.GET('/api/routing', { params: { query: { nodeId: nodeId! } } })),
    enabled: Boolean(nodeId),
  });
  const outbounds = useOutbounds(nodeId);
  const tags = (outbounds.data ?? []).map((outbound) => outbound.tag);
  const { order, toggle, remove, refresh } = useRuleMutations(nodeId);
  const [tested, setTested] = useState<RouteTestResult | null>(null);
  // Re-apply now: the node's revision moves on and its agent applies the routing again.
  const applyNow = useMutation({
    mutationFn: () => must(api.POST('/api/routing/apply', { body: { nodeId: nodeId! } })),
    onSuccess: (applied) =>
      notifications.show({
        message: t('routing.applied', { revision: localDigits(applied.nodes[0]?.revision ?? 0) }),
        color: 'teal',
      }),
    onError: (error) => notifications.show({ message: messageOf(error), color: 'red' }),
  });

  return (
    <>
      <PageHeader title={t('nav.routing')}>
        <NodeSelect value={nodeId} onChange={setNodeId} />
        {canManage && (
          <Button
            variant="default"
            leftSection={<IconRefresh size={16} />}
            onClick={() => applyNow.mutate()}
            loading={applyNow.isPending}
            disabled={!nodeId}
            data-testid="apply-now"
          >
            {t('routing.applyNow')}
          </Button>
        )}
        {canManage && (
          <Button
            leftSection={<IconPlus size={16} />}
            onClick={() => setEditing('new')}
            disabled={!routing.data}
            data-testid="new-rule"
          >
            {t('routing.newRule')}
          </Button>
        )}
      </PageHeader>
      {!routing.data || !nodeId ? (
        <PageLoader />
      ) : (
        <Stack>
          <BasicSettings key={nodeId} nodeId={nodeId} routing={routing.data} tags={tags} canManage={canManage} />
          <RouteTest key={`test-${nodeId}`} nodeId={nodeId} rules={routing.data.rules} onResult={setTested} />
          <Title order={3} size="h4">
            {t('routing.rules')}
          </Title>
          <Text size="sm" c="dimmed">
            {t('routing.rulesHelp')}
          </Text>
          {routing.data.rules.length === 0 ? (
            <EmptyState>{t('routing.empty')}</EmptyState>
          ) : (
            <RuleList
              rules={routing.data.rules}
              highlighted={tested?.nodeId === nodeId ? tested.rule?.id : null}
              canManage={canManage}
              onReorder={(ids) => order.mutate(ids)}
              onEdit={setEditing}
              onToggle={(rule) => toggle.mutate(rule)}
              onDelete={(rule) => remove.mutate(rule.id)}
            />
          )}
        </Stack>
      )}
      {editing && nodeId && (
        <RuleModal
          nodeId={nodeId}
          rule={editing === 'new' ? undefined : editing}
          tags={tags}
          onClose={() => setEditing(null)}
          onSaved={refresh}
        />
      )}
    </>
  );
}
