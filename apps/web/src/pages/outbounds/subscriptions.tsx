import { ActionIcon, Badge, Button, Group, List, Select, Stack, Switch, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconArrowDown, IconArrowUp, IconEye, IconRefresh } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { api, must, type Schemas } from '../../api.js';
import { EditAndDelete, formatAgo, Ltr, notifyFailure } from '../../components/common.js';
import { useFieldErrors } from '../../components/form-errors.js';
import { FormModal } from '../../components/form-modal.js';
import { ListSection } from '../../components/list-section.js';
import { ListTable } from '../../components/list-table.js';
import { queryKeys } from '../../api/queries.js';

type Subscription = Schemas['OutboundSubDto'];
type Preview = Schemas['OutboundSubPreviewDto'];

/** Scheduled refresh choices (seconds); 0: only when asked for. */
const INTERVALS = [0, 300, 1800, 3600, 6 * 3600, 12 * 3600, 24 * 3600] as const;
const FIELDS = ['name', 'url', 'intervalSeconds', 'enabled'];
const SUBS_KEY = ['outbound-subs'] as const;

/**
 * A node's outbound subscriptions (docs/outbounds.md, "Subscriptions"): URLs whose lists of
 * share links become hops; add (with a preview of what the list gives), refresh, order, delete,
 * and each one's last fetch and error.
 */
export function SubscriptionsSection({ nodeId, canManage }: { nodeId: string | null; canManage: boolean }) {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<Subscription | 'new' | null>(null);
  // Every subscription (the order spans them all); this node's are shown.
  const all = useQuery({ queryKey: SUBS_KEY, queryFn: () => must(api.GET('/api/outbound-subs')) });
  const shown = (all.data ?? []).filter((sub) => sub.nodeId === nodeId);
  const changed = () => {
    void queryClient.invalidateQueries({ queryKey: SUBS_KEY });
    void queryClient.invalidateQueries({ queryKey: queryKeys.outbounds() });
  };
  const told = (outcome: Schemas['OutboundSubRefreshDto']) =>
    notifications.show({
      message: outcome.subscription.lastError
        ? t('outboundSubs.refreshFailed', { name: outcome.subscription.name, error: outcome.subscription.lastError })
        : t('outboundSubs.refreshed', { ...outcome, name: outcome.subscription.name }),
      color: outcome.subscription.lastError ? 'red' : 'teal',
    });
  const refresh = useMutation({
    mutationFn: (id: string) => must(api.POST('/api/outbound-subs/{id}/refresh', { params: { path: { id } } })),
    onSuccess: (outcome) => {
      told(outcome);
      changed();
    },
    onError: notifyFailure,
  });
  const refreshAll = useMutation({
    mutationFn: () => must(api.POST('/api/outbound-subs/refresh')),
    onSuccess: (outcomes) => {
      const failed = outcomes.filter((outcome) => outcome.subscription.lastError).length;
      notifications.show({
        message: t('outboundSubs.refreshedAll', { ok: outcomes.length - failed, total: outcomes.length }),
        color: failed === 0 ? 'teal' : 'orange',
      });
      changed();
    },
    onError: notifyFailure,
  });
  const move = useMutation({
    mutationFn: ({ sub, by }: { sub: Subscription; by: -1 | 1 }) => {
      const ids = (all.data ?? []).map((entry) => entry.id);
      const neighbours = shown.map((entry) => entry.id);
      const other = neighbours[neighbours.indexOf(sub.id) + by];
      if (other === undefined) return Promise.resolve(all.data ?? []);
      const [from, to] = [ids.indexOf(sub.id), ids.indexOf(other)];
      [ids[from], ids[to]] = [ids[to], ids[from]];
      return must(api.POST('/api/outbound-subs/order', { body: { ids } }));
    },
    onSuccess: changed,
    onError: notifyFailure,
  });
  const remove = useMutation({
    mutationFn: (id: string) => must(api.DELETE('/api/outbound-subs/{id}', { params: { path: { id } } })),
    onSuccess: changed,
    onError: notifyFailure,
  });
  return (
    <ListSection
      testId="outbound-subs"
      help={t('outboundSubs.help')}
      canManage={canManage}
      create={{
        label: t('outboundSubs.new'),
        onClick: () => setEditing('new'),
        disabled: !nodeId,
        testId: 'new-outbound-sub',
      }}
      buttons={
        <Button
          variant="light"
          leftSection={<IconRefresh size={16} />}
          onClick={() => refreshAll.mutate()}
          loading={refreshAll.isPending}
          disabled={!all.data?.some((sub) => sub.enabled)}
          data-testid="refresh-all-outbound-subs"
        >
          {t('outboundSubs.refreshAll')}
        </Button>
      }
      empty={Boolean(all.data) && shown.length === 0}
      emptyText={t('outboundSubs.empty')}
      dialog={
        editing &&
        nodeId && (
          <SubscriptionModal
            nodeId={nodeId}
            subscription={editing === 'new' ? undefined : editing}
            onClose={() => setEditing(null)}
            onSaved={(saved, isNew) => {
              changed();
              // A new subscription is fetched at once, so its hops show without waiting for the schedule.
              if (isNew) refresh.mutate(saved.id);
            }}
          />
        )
      }
    >
      <ListTable
        rows={all.data ? shown : undefined}
        rowKey={(sub) => sub.id}
        minWidth={720}
        cards
        testId="outbound-subs-table"
        rowProps={(sub) => ({ 'data-testid': 'outbound-sub-row', 'data-name': sub.name })}
        columns={[
          {
            header: t('outboundSubs.name'),
            naming: true,
            cell: (sub) => (
              <>
                {sub.name}
                {!sub.enabled && (
                  <Badge ms="xs" size="xs" variant="outline" color="gray">
                    {t('outbounds.state.disabled')}
                  </Badge>
                )}
              </>
            ),
          },
          {
            header: t('outboundSubs.url'),
            cell: (sub) => (
              <Text size="sm" style={{ wordBreak: 'break-all' }}>
                <Ltr>{sub.url}</Ltr>
              </Text>
            ),
          },
          { header: t('outboundSubs.interval'), cell: (sub) => intervalLabel(t, sub.intervalSeconds) },
          {
            header: t('outboundSubs.hops'),
            cell: (sub) => (
              <span data-testid="outbound-sub-count">
                {sub.kept > 0 ? t('outboundSubs.hopsKept', { count: sub.count, kept: sub.kept }) : sub.count}
              </span>
            ),
          },
          {
            header: t('outboundSubs.lastFetch'),
            cell: (sub) => (
              <>
                {sub.lastFetchedAt ? formatAgo(sub.lastFetchedAt, i18n.language) : t('outboundSubs.never')}
                {sub.lastError && (
                  <Text size="xs" c="red" data-testid="outbound-sub-error">
                    {sub.lastError}
                  </Text>
                )}
                {sub.skipped.length > 0 && (
                  <Text size="xs" c="orange" title={sub.skipped.join('\n')}>
                    {t('outboundSubs.skipped', { count: sub.skipped.length })}
                  </Text>
                )}
              </>
            ),
          },
        ]}
        actions={(sub) =>
          canManage && (
            <>
              <Button
                size="xs"
                variant="light"
                leftSection={<IconRefresh size={14} />}
                loading={refresh.isPending && refresh.variables === sub.id}
                onClick={() => refresh.mutate(sub.id)}
                data-testid="refresh-outbound-sub"
              >
                {t('outboundSubs.refresh')}
              </Button>
              <ActionIcon
                variant="subtle"
                aria-label={t('hopTools.moveUp')}
                disabled={shown[0]?.id === sub.id}
                onClick={() => move.mutate({ sub, by: -1 })}
                data-testid="move-sub-up"
              >
                <IconArrowUp size={16} />
              </ActionIcon>
              <ActionIcon
                variant="subtle"
                aria-label={t('hopTools.moveDown')}
                disabled={shown.at(-1)?.id === sub.id}
                onClick={() => move.mutate({ sub, by: 1 })}
                data-testid="move-sub-down"
              >
                <IconArrowDown size={16} />
              </ActionIcon>
              <EditAndDelete
                onEdit={() => setEditing(sub)}
                confirmMessage={t('outboundSubs.confirmDelete', { name: sub.name })}
                onDelete={() => remove.mutate(sub.id)}
              />
            </>
          )
        }
      />
    </ListSection>
  );
}

function intervalLabel(t: TFunction, seconds: number): string {
  if (seconds === 0) return t('outboundSubs.manual');
  if (seconds % 3600 === 0) return t('outboundSubs.everyHours', { count: seconds / 3600 });
  return t('outboundSubs.everyMinutes', { count: Math.round(seconds / 60) });
}

function SubscriptionModal({
  nodeId,
  subscription,
  onClose,
  onSaved,
}: {
  nodeId: string;
  subscription?: Subscription;
  onClose: () => void;
  onSaved: (saved: Subscription, isNew: boolean) => void;
}) {
  const { t } = useTranslation();
  const [values, setValues] = useState({
    name: subscription?.name ?? '',
    url: subscription?.url ?? '',
    intervalSeconds: String(subscription?.intervalSeconds ?? 3600),
    enabled: subscription?.enabled ?? true,
  });
  const set = (key: keyof typeof values, value: unknown) => setValues((before) => ({ ...before, [key]: value }));
  const [preview, setPreview] = useState<Preview | null>(null);
  const save = useMutation({
    mutationFn: () => {
      const body = {
        name: values.name.trim(),
        url: values.url.trim(),
        intervalSeconds: Number(values.intervalSeconds),
        enabled: values.enabled,
      };
      return subscription
        ? must(api.PATCH('/api/outbound-subs/{id}', { params: { path: { id: subscription.id } }, body }))
        : must(api.POST('/api/outbound-subs', { body: { nodeId, ...body } }));
    },
    onSuccess: (saved) => {
      onSaved(saved, !subscription);
      onClose();
    },
  });
  const look = useMutation({
    mutationFn: () => must(api.POST('/api/outbound-subs/preview', { body: { url: values.url.trim() } })),
    onSuccess: setPreview,
  });
  const errors = useFieldErrors(save.error ?? look.error, values);
  return (
    <FormModal
      title={subscription ? subscription.name : t('outboundSubs.new')}
      onClose={onClose}
      save={save}
      fields={FIELDS}
      editing={Boolean(subscription)}
      size="lg"
      submitTestId="outbound-sub-submit"
    >
      <TextInput
        label={t('outboundSubs.name')}
        value={values.name}
        onChange={(e) => set('name', e.currentTarget.value)}
        error={errors.of('name')}
        data-testid="outbound-sub-name"
      />
      <Group align="flex-end" wrap="nowrap">
        <TextInput
          style={{ flex: 1 }}
          label={t('outboundSubs.url')}
          description={t('outboundSubs.urlHelp')}
          placeholder="https://provider.example.com/sub/hops.txt"
          dir="ltr"
          value={values.url}
          onChange={(e) => set('url', e.currentTarget.value)}
          error={errors.of('url')}
          data-testid="outbound-sub-url"
        />
        <Button
          variant="default"
          leftSection={<IconEye size={16} />}
          loading={look.isPending}
          disabled={values.url.trim() === ''}
          onClick={() => look.mutate()}
          data-testid="preview-outbound-sub"
        >
          {t('outboundSubs.preview')}
        </Button>
      </Group>
      {preview && (
        <Stack gap={4} data-testid="outbound-sub-preview">
          <Text size="sm" fw={500}>
            {t('outboundSubs.previewHops', { count: preview.hops.length })}
          </Text>
          <List size="sm">
            {preview.hops.map((hop) => (
              <List.Item key={hop.line} data-testid="preview-hop">
                {hop.tag} · {t(`outbounds.kinds.${hop.kind}`)} · <Ltr>{hop.address}</Ltr>
              </List.Item>
            ))}
          </List>
          {preview.skipped.map((line) => (
            <Text key={line} size="xs" c="orange">
              {line}
            </Text>
          ))}
        </Stack>
      )}
      <Select
        label={t('outboundSubs.interval')}
        data={INTERVALS.map((seconds) => ({ value: String(seconds), label: intervalLabel(t, seconds) }))}
        value={values.intervalSeconds}
        onChange={(value) => value && set('intervalSeconds', value)}
        error={errors.of('intervalSeconds')}
      />
      <Switch
        label={t('interfaces.enabled')}
        checked={values.enabled}
        onChange={(e) => set('enabled', e.currentTarget.checked)}
      />
    </FormModal>
  );
}
