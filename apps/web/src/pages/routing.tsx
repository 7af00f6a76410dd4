import { Button, Stack, Text, Title } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, must } from '../api.js';
import { EmptyState, PageHeader } from '../components/common.js';
import { NodeSelect } from '../components/node-select.js';
import { PageLoader } from '../components/page-loader.js';
import { useCanManage } from '../session.js';
import { queryKeys, useOutbounds } from '../api/queries.js';
import { BasicSettings } from './routing/basic-settings.js';
import { RuleList } from './routing/rule-list.js';
import { RuleModal } from './routing/rule-modal.js';
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

  return (
    <>
      <PageHeader title={t('nav.routing')}>
        <NodeSelect value={nodeId} onChange={setNodeId} />
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
