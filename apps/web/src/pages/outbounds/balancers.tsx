import { Alert, Badge, Group, MultiSelect, Select, Stack, TextInput } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, must, type Schemas } from '../../api.js';
import { EditAndDelete, notifyFailure } from '../../components/common.js';
import { useFieldErrors } from '../../components/form-errors.js';
import { FormModal } from '../../components/form-modal.js';
import { ListSection } from '../../components/list-section.js';
import { ListTable } from '../../components/list-table.js';
import { queryKeys, useOutbounds } from '../../api/queries.js';

type Balancer = Schemas['BalancerDto'];
type BalancerHop = Schemas['BalancerHopDto'];
const STRATEGIES = ['failover', 'hash'] as const;
const FIELDS = ['tag', 'strategy', 'hops', 'note'];
const balancersKey = (nodeId: string | null) => ['balancers', nodeId] as const;

/**
 * A node's balancers (docs/outbounds.md, "Balancers"): several hops under one tag that rules
 * target, failover in order by health or spread by client; each row shows its hops' health,
 * where its traffic goes now, and the override that pins one hop.
 */
export function BalancersSection({ nodeId, canManage }: { nodeId: string | null; canManage: boolean }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<Balancer | 'new' | null>(null);
  const balancers = useQuery({
    queryKey: balancersKey(nodeId),
    queryFn: () => must(api.GET('/api/balancers', { params: { query: { nodeId: nodeId! } } })),
    enabled: nodeId !== null,
    // Health moves by itself (the periodic checks): the pick shown follows.
    refetchInterval: 10_000,
  });
  const changed = () => {
    void queryClient.invalidateQueries({ queryKey: ['balancers'] });
    void queryClient.invalidateQueries({ queryKey: queryKeys.outbounds() });
  };
  const override = useMutation({
    mutationFn: ({ id, outboundId }: { id: string; outboundId: string | null }) =>
      must(api.POST('/api/balancers/{id}/override', { params: { path: { id } }, body: { outboundId } })),
    onSuccess: changed,
    onError: notifyFailure,
  });
  const remove = useMutation({
    mutationFn: (id: string) => must(api.DELETE('/api/balancers/{id}', { params: { path: { id } } })),
    onSuccess: changed,
    onError: notifyFailure,
  });
  return (
    <ListSection
      testId="balancers"
      help={t('balancers.help')}
      canManage={canManage}
      create={{
        label: t('balancers.new'),
        onClick: () => setEditing('new'),
        disabled: !nodeId,
        testId: 'new-balancer',
      }}
      empty={balancers.data?.length === 0}
      emptyText={t('balancers.empty')}
      dialog={
        editing &&
        nodeId && (
          <BalancerModal
            nodeId={nodeId}
            balancer={editing === 'new' ? undefined : editing}
            onClose={() => setEditing(null)}
            onSaved={changed}
          />
        )
      }
    >
      <BalancerWarnings balancers={balancers.data ?? []} />
      <ListTable
        rows={balancers.data}
        rowKey={(balancer) => balancer.id}
        minWidth={720}
        cards
        testId="balancers-table"
        rowProps={(balancer) => ({ 'data-testid': 'balancer-row', 'data-tag': balancer.tag })}
        columns={[
          { header: t('balancers.tag'), naming: true, cell: (balancer) => balancer.tag },
          { header: t('balancers.strategy'), cell: (balancer) => t(`balancers.strategies.${balancer.strategy}`) },
          {
            header: t('balancers.hops'),
            cell: (balancer) => (
              <Group gap={4}>
                {balancer.hops.map((hop) => (
                  <HopBadge key={hop.id} hop={hop} />
                ))}
              </Group>
            ),
          },
          {
            header: t('balancers.current'),
            cell: (balancer) => <span data-testid="balancer-current">{balancer.current.join(', ')}</span>,
          },
          {
            header: t('balancers.override'),
            cell: (balancer) => (
              <Select
                size="xs"
                aria-label={t('balancers.override')}
                disabled={!canManage}
                data={[
                  { value: '', label: t('balancers.noOverride') },
                  ...balancer.hops.map((hop) => ({ value: hop.id, label: hop.tag })),
                ]}
                value={balancer.overrideId ?? ''}
                onChange={(value) => override.mutate({ id: balancer.id, outboundId: value ? value : null })}
                allowDeselect={false}
                data-testid="balancer-override"
              />
            ),
          },
        ]}
        actions={(balancer) =>
          canManage && (
            <EditAndDelete
              onEdit={() => setEditing(balancer)}
              confirmMessage={t('balancers.confirmDelete', { tag: balancer.tag })}
              onDelete={() => remove.mutate(balancer.id)}
            />
          )
        }
      />
    </ListSection>
  );
}

/**
 * The balancers' warnings (their `warnings`, shaped as the security warnings): each in the panel's
 * language by its code, the API's English sentence when the code is new to this panel.
 */
function BalancerWarnings({ balancers }: { balancers: Balancer[] }) {
  const { t, i18n } = useTranslation();
  const shown = balancers.flatMap((balancer) => balancer.warnings.map((warning) => ({ balancer, warning })));
  if (shown.length === 0) return null;
  return (
    <Stack gap="xs">
      {shown.map(({ balancer, warning }) => {
        const key = `balancers.warning.${warning.code}`;
        const pinned = balancer.hops.find((hop) => hop.id === balancer.overrideId)?.tag ?? '';
        return (
          <Alert
            key={`${balancer.id}-${warning.code}`}
            color="orange"
            data-testid="balancer-warning"
            data-code={warning.code}
            data-tag={balancer.tag}
          >
            {i18n.exists(key) ? t(key, { tag: balancer.tag, hop: pinned }) : `${warning.message} ${warning.action}`}
          </Alert>
        );
      })}
    </Stack>
  );
}

function HopBadge({ hop }: { hop: BalancerHop }) {
  const { t } = useTranslation();
  const color = !hop.enabled ? 'gray' : hop.health === 'down' ? 'red' : hop.health === 'up' ? 'teal' : 'blue';
  const state = !hop.enabled ? 'disabled' : (hop.health ?? 'unchecked');
  return (
    <Badge variant="light" color={color} data-testid="balancer-hop" data-health={state}>
      {hop.tag} · {t(`balancers.health.${state}`)}
    </Badge>
  );
}

function BalancerModal({
  nodeId,
  balancer,
  onClose,
  onSaved,
}: {
  nodeId: string;
  balancer?: Balancer;
  onClose: () => void;
  onSaved: () => void;
}) {
  const { t } = useTranslation();
  const outbounds = useOutbounds(nodeId);
  const [values, setValues] = useState({
    tag: balancer?.tag ?? '',
    strategy: balancer?.strategy ?? 'failover',
    hops: balancer?.hops.map((hop) => hop.id) ?? ([] as string[]),
    note: balancer?.note ?? '',
  });
  const set = (key: keyof typeof values, value: unknown) => setValues((before) => ({ ...before, [key]: value }));
  const save = useMutation({
    mutationFn: () => {
      const body = {
        tag: values.tag.trim(),
        strategy: values.strategy,
        hops: values.hops,
        note: values.note.trim() || null,
      };
      return balancer
        ? must(api.PATCH('/api/balancers/{id}', { params: { path: { id: balancer.id } }, body }))
        : must(api.POST('/api/balancers', { body: { nodeId, ...body } }));
    },
    onSuccess: () => {
      onSaved();
      onClose();
    },
  });
  const errors = useFieldErrors(save.error, values);
  const hops = (outbounds.data ?? []).filter((outbound) => !outbound.builtin);
  return (
    <FormModal
      title={balancer ? balancer.tag : t('balancers.new')}
      onClose={onClose}
      save={save}
      fields={FIELDS}
      editing={Boolean(balancer)}
      size="lg"
      submitTestId="balancer-submit"
    >
      <TextInput
        label={t('balancers.tag')}
        description={t('balancers.tagHelp')}
        dir="ltr"
        value={values.tag}
        onChange={(e) => set('tag', e.currentTarget.value)}
        error={errors.of('tag')}
        data-testid="balancer-tag"
      />
      <Select
        label={t('balancers.strategy')}
        data={STRATEGIES.map((strategy) => ({ value: strategy, label: t(`balancers.strategies.${strategy}`) }))}
        value={values.strategy}
        onChange={(value) => value && set('strategy', value)}
        allowDeselect={false}
        error={errors.of('strategy')}
        data-testid="balancer-strategy"
      />
      <MultiSelect
        label={t('balancers.hops')}
        description={t('balancers.hopsHelp')}
        data={hops.map((hop) => ({ value: hop.id, label: hop.tag }))}
        value={values.hops}
        onChange={(value) => set('hops', value)}
        error={errors.of('hops')}
        data-testid="balancer-hops"
      />
      <TextInput
        label={t('balancers.note')}
        value={values.note}
        onChange={(e) => set('note', e.currentTarget.value)}
        error={errors.of('note')}
      />
    </FormModal>
  );
}
