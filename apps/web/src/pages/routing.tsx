import {
  closestCenter,
  DndContext,
  KeyboardSensor,
  PointerSensor,
  useSensor,
  useSensors,
  type DragEndEvent,
} from '@dnd-kit/core';
import {
  arrayMove,
  SortableContext,
  sortableKeyboardCoordinates,
  useSortable,
  verticalListSortingStrategy,
} from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import {
  ActionIcon,
  Badge,
  Button,
  Card,
  Group,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  TagsInput,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconGripVertical, IconPlus } from '@tabler/icons-react';
import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, messageOf, must, type Schemas } from '../api.js';
import { ConfirmButton, EmptyState, ForwardArrow, PageHeader } from '../components/common.js';
import { FormError, useFieldErrors } from '../components/form-errors.js';
import { FormModal } from '../components/form-modal.js';
import { NodeSelect } from '../components/node-select.js';
import { PageLoader } from '../components/page-loader.js';
import { ClientPicker, InterfacePicker } from '../components/rule-pickers.js';
import { useCanManage } from '../session.js';
import { clientQuery, queryKeys, useInterfaces, useOutbounds } from '../api/queries.js';

type Routing = Schemas['RoutingDto'];
type Rule = Schemas['RoutingRuleDto'];
const LISTS = ['domains', 'destIps', 'ports', 'sourceIps', 'sourcePorts', 'groups', 'clients', 'interfaces'] as const;
/** The lists typed as text; clients and interfaces are ids, picked by name. */
const TEXT_LISTS = ['domains', 'destIps', 'ports', 'sourceIps', 'sourcePorts', 'groups'] as const;

/**
 * A node's routing: the basic settings, and the rules in matching order, reordered by dragging
 * (POST /api/routing/rules/order with every rule's id). The new order shows at once; if the API
 * refuses it, the order the server has comes back.
 */
export default function RoutingPage() {
  const { t } = useTranslation();
  const canManage = useCanManage();
  const queryClient = useQueryClient();
  const [nodeId, setNodeId] = useState<string | null>(null);
  const [editing, setEditing] = useState<Rule | 'new' | null>(null);
  const key = queryKeys.routing(nodeId);
  const routing = useQuery({
    queryKey: key,
    queryFn: () => must(api.GET('/api/routing', { params: { query: { nodeId: nodeId! } } })),
    enabled: Boolean(nodeId),
  });
  const outbounds = useOutbounds(nodeId);
  const tags = (outbounds.data ?? []).map((outbound) => outbound.tag);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: queryKeys.routing() });
  const failed = (error: unknown) => notifications.show({ message: messageOf(error), color: 'red' });

  const order = useMutation({
    mutationFn: (ids: string[]) =>
      must(api.POST('/api/routing/rules/order', { params: { query: { nodeId: nodeId! } }, body: { ids } })),
    onMutate: (ids) => {
      const before = queryClient.getQueryData<Routing>(key);
      if (before)
        queryClient.setQueryData<Routing>(key, {
          ...before,
          rules: ids.map((id) => before.rules.find((rule) => rule.id === id)!),
        });
      return { before };
    },
    onError: (error, _ids, context) => {
      if (context?.before) queryClient.setQueryData(key, context.before);
      failed(error);
    },
    onSuccess: (saved) => queryClient.setQueryData(key, saved),
  });
  const toggle = useMutation({
    mutationFn: (rule: Rule) =>
      must(
        api.PATCH('/api/routing/rules/{id}', { params: { path: { id: rule.id } }, body: { enabled: !rule.enabled } }),
      ),
    onSuccess: refresh,
    onError: failed,
  });
  const remove = useMutation({
    mutationFn: (id: string) => must(api.DELETE('/api/routing/rules/{id}', { params: { path: { id } } })),
    onSuccess: refresh,
    onError: failed,
  });

  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 4 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  );
  const onDragEnd = ({ active, over }: DragEndEvent) => {
    const rules = routing.data?.rules;
    if (!rules || !over || active.id === over.id) return;
    const from = rules.findIndex((rule) => rule.id === active.id);
    const to = rules.findIndex((rule) => rule.id === over.id);
    order.mutate(arrayMove(rules, from, to).map((rule) => rule.id));
  };

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
          <Title order={4}>{t('routing.rules')}</Title>
          <Text size="sm" c="dimmed">
            {t('routing.rulesHelp')}
          </Text>
          {routing.data.rules.length === 0 ? (
            <EmptyState>{t('routing.empty')}</EmptyState>
          ) : (
            <DndContext sensors={sensors} collisionDetection={closestCenter} onDragEnd={onDragEnd}>
              <SortableContext items={routing.data.rules.map((rule) => rule.id)} strategy={verticalListSortingStrategy}>
                <Stack gap="xs" data-testid="rules">
                  {routing.data.rules.map((rule, index) => (
                    <SortableRule
                      key={rule.id}
                      rule={rule}
                      index={index}
                      canManage={canManage}
                      onEdit={() => setEditing(rule)}
                      onToggle={() => toggle.mutate(rule)}
                      onDelete={() => remove.mutate(rule.id)}
                    />
                  ))}
                </Stack>
              </SortableContext>
            </DndContext>
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

function SortableRule({
  rule,
  index,
  canManage,
  onEdit,
  onToggle,
  onDelete,
}: {
  rule: Rule;
  index: number;
  canManage: boolean;
  onEdit: () => void;
  onToggle: () => void;
  onDelete: () => void;
}) {
  const { t } = useTranslation();
  const { attributes, listeners, setNodeRef, setActivatorNodeRef, transform, transition, isDragging } = useSortable({
    id: rule.id,
    disabled: !canManage,
  });
  const names = useRuleNames(rule);
  const criteria = LISTS.filter((list) => rule[list].length > 0).map(
    (list) =>
      `${t(`routing.lists.${list}`)}: ${rule[list]
        .slice(0, 3)
        .map((id) => names.get(id) ?? id)
        .join(', ')}${rule[list].length > 3 ? ` +${rule[list].length - 3}` : ''}`,
  );
  if (rule.network) criteria.push(`${t('routing.network')}: ${rule.network}`);
  return (
    <Card
      ref={setNodeRef}
      withBorder
      padding="xs"
      style={{
        transform: CSS.Transform.toString(transform),
        transition,
        opacity: isDragging ? 0.6 : 1,
        zIndex: isDragging ? 1 : undefined,
      }}
      data-testid="rule"
      data-name={rule.name}
    >
      <Group wrap="nowrap" gap="sm">
        {canManage && (
          <ActionIcon
            ref={setActivatorNodeRef}
            variant="subtle"
            color="gray"
            style={{ cursor: 'grab', touchAction: 'none' }}
            aria-label={t('routing.drag', { name: rule.name })}
            data-testid="drag-handle"
            {...attributes}
            {...listeners}
          >
            <IconGripVertical size={18} />
          </ActionIcon>
        )}
        <Text size="sm" c="dimmed" w={24}>
          {index + 1}
        </Text>
        {/* Name and criteria first; the hits and buttons beside them, or below them on a phone. */}
        <Group gap="sm" justify="space-between" style={{ flex: 1, minWidth: 0 }}>
          <div style={{ flex: '1 1 220px', minWidth: 0 }}>
            <Group gap="xs">
              <Text fw={500}>{rule.name}</Text>
              <Text size="sm" aria-hidden>
                <ForwardArrow />
              </Text>
              <Badge variant="light" style={{ flexShrink: 0 }}>
                {rule.outboundTag}
              </Badge>
              {!rule.enabled && (
                <Badge color="gray" variant="outline">
                  {t('hosts.disabled')}
                </Badge>
              )}
            </Group>
            <Text size="xs" c="dimmed" truncate>
              {criteria.join(' · ')}
            </Text>
          </div>
          <Group gap="sm" wrap="nowrap">
            <Text size="xs" c="dimmed">
              {t('routing.hits', { count: rule.hits })}
            </Text>
            {canManage && (
              <Group gap={4} wrap="nowrap">
                <Switch size="xs" checked={rule.enabled} onChange={onToggle} aria-label={t('interfaces.enabled')} />
                <Button size="xs" variant="default" onClick={onEdit}>
                  {t('common.edit')}
                </Button>
                <ConfirmButton message={t('routing.confirmDelete', { name: rule.name })} onConfirm={onDelete}>
                  {t('common.delete')}
                </ConfirmButton>
              </Group>
            )}
          </Group>
        </Group>
      </Group>
    </Card>
  );
}

/** The names of the interfaces and (the first three) clients a rule's card shows, in place of their ids. */
function useRuleNames(rule: Rule): Map<string, string> {
  const interfaces = useInterfaces({ enabled: rule.interfaces.length > 0 });
  const clients = useQueries({ queries: rule.clients.slice(0, 3).map(clientQuery) });
  const names = new Map<string, string>();
  for (const entry of interfaces.data ?? []) names.set(entry.id, entry.name);
  for (const client of clients) if (client.data) names.set(client.data.id, client.data.name);
  return names;
}

const BASIC_LISTS = ['blockDomains', 'blockIps', 'blockPorts', 'directDomains', 'directIps'] as const;

function BasicSettings({
  nodeId,
  routing,
  tags,
  canManage,
}: {
  nodeId: string;
  routing: Routing;
  tags: string[];
  canManage: boolean;
}) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [values, setValues] = useState(routing.basic);
  useEffect(() => setValues(routing.basic), [routing.basic]);
  const save = useMutation({
    mutationFn: () => must(api.PUT('/api/routing', { params: { query: { nodeId } }, body: values })),
    onSuccess: (saved) => {
      queryClient.setQueryData(['routing', nodeId], saved);
      notifications.show({ message: t('common.saved'), color: 'teal' });
    },
  });
  const errors = useFieldErrors(save.error, values);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <Card withBorder component="form" onSubmit={submit}>
      <Stack gap="sm">
        {/* One row on a wide screen; stacked on a phone, where three side by side squeeze the labels. */}
        <SimpleGrid cols={{ base: 1, sm: 3 }} style={{ alignItems: 'end' }}>
          <Select
            label={t('routing.defaultOutbound')}
            data={tags}
            value={values.defaultOutbound}
            onChange={(tag) => tag && setValues({ ...values, defaultOutbound: tag })}
            error={errors.of('defaultOutbound')}
            disabled={!canManage}
          />
          <Switch
            label={t('routing.blockBitTorrent')}
            checked={values.blockBitTorrent}
            onChange={(e) => setValues({ ...values, blockBitTorrent: e.currentTarget.checked })}
            disabled={!canManage}
          />
          <Switch
            label={t('routing.failClosed')}
            description={t('routing.failClosedHelp')}
            checked={values.failClosed}
            onChange={(e) => setValues({ ...values, failClosed: e.currentTarget.checked })}
            disabled={!canManage}
          />
        </SimpleGrid>
        <SimpleGrid cols={{ base: 1, md: 2 }}>
          {BASIC_LISTS.map((list) => (
            <TagsInput
              key={list}
              label={t(`routing.basic.${list}`)}
              value={values[list]}
              onChange={(value) => setValues({ ...values, [list]: value })}
              error={errors.of(list)}
              disabled={!canManage}
            />
          ))}
        </SimpleGrid>
        <FormError error={save.error} fields={['defaultOutbound', 'blockBitTorrent', 'failClosed', ...BASIC_LISTS]} />
        {canManage && (
          <Group justify="flex-end">
            <Button type="submit" loading={save.isPending}>
              {t('common.save')}
            </Button>
          </Group>
        )}
      </Stack>
    </Card>
  );
}

function RuleModal({
  nodeId,
  rule,
  tags,
  onClose,
  onSaved,
}: {
  nodeId: string;
  rule?: Rule;
  tags: string[];
  onClose: () => void;
  onSaved: () => void;
}) {
  const { t } = useTranslation();
  const [values, setValues] = useState({
    name: rule?.name ?? '',
    outboundTag: rule?.outboundTag ?? 'direct',
    network: rule?.network ?? null,
    enabled: rule?.enabled ?? true,
    ...Object.fromEntries(LISTS.map((list) => [list, rule?.[list] ?? []])),
  } as { name: string; outboundTag: string; network: Rule['network']; enabled: boolean } & Record<
    (typeof LISTS)[number],
    string[]
  >);
  const save = useMutation({
    mutationFn: () => {
      const body = { ...values, name: values.name.trim() };
      return rule
        ? must(api.PATCH('/api/routing/rules/{id}', { params: { path: { id: rule.id } }, body }))
        : must(api.POST('/api/routing/rules', { params: { query: { nodeId } }, body }));
    },
    onSuccess: () => {
      onSaved();
      onClose();
    },
  });
  const errors = useFieldErrors(save.error, values);
  return (
    <FormModal
      title={rule ? rule.name : t('routing.newRule')}
      onClose={onClose}
      save={save}
      fields={['name', 'outboundTag', 'network', 'enabled', ...LISTS]}
      editing={Boolean(rule)}
      size="lg"
      submitTestId="rule-submit"
    >
      <SimpleGrid cols={{ base: 1, sm: 3 }}>
        <TextInput
          label={t('common.name')}
          value={values.name}
          onChange={(e) => setValues({ ...values, name: e.currentTarget.value })}
          error={errors.of('name')}
        />
        <Select
          label={t('routing.outbound')}
          data={tags}
          value={values.outboundTag}
          onChange={(tag) => tag && setValues({ ...values, outboundTag: tag })}
          error={errors.of('outboundTag')}
        />
        <Select
          label={t('routing.network')}
          data={[
            { value: '', label: t('routing.anyNetwork') },
            ...['tcp', 'udp', 'icmp'].map((value) => ({ value, label: value })),
          ]}
          value={values.network ?? ''}
          onChange={(value) => setValues({ ...values, network: (value || null) as Rule['network'] })}
          error={errors.of('network')}
        />
      </SimpleGrid>
      <Text size="xs" c="dimmed">
        {t('routing.allMustMatch')}
      </Text>
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        {TEXT_LISTS.map((list) => (
          <TagsInput
            key={list}
            label={t(`routing.lists.${list}`)}
            value={values[list]}
            onChange={(value) => setValues({ ...values, [list]: value })}
            error={errors.of(list)}
          />
        ))}
        <ClientPicker
          label={t('routing.lists.clients')}
          value={values.clients}
          onChange={(value) => setValues({ ...values, clients: value })}
          error={errors.of('clients')}
        />
        <InterfacePicker
          nodeId={nodeId}
          label={t('routing.lists.interfaces')}
          value={values.interfaces}
          onChange={(value) => setValues({ ...values, interfaces: value })}
          error={errors.of('interfaces')}
        />
      </SimpleGrid>
      <Switch
        label={t('interfaces.enabled')}
        checked={values.enabled}
        onChange={(e) => setValues({ ...values, enabled: e.currentTarget.checked })}
      />
    </FormModal>
  );
}
