import { ActionIcon, Badge, Button, Card, Group, Switch, Text } from '@mantine/core';
import { useSortable } from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import { IconGripVertical } from '@tabler/icons-react';
import { useQueries } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { ConfirmButton, ForwardArrow } from '../../components/common.js';
import { clientQuery, useInterfaces } from '../../api/queries.js';
import { LISTS, type Rule } from './types.js';
import { localDigits } from '../../format.js';

export function SortableRule({
  rule,
  index,
  highlighted = false,
  canManage,
  onEdit,
  onToggle,
  onDelete,
}: {
  rule: Rule;
  index: number;
  highlighted?: boolean;
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
  const criteria = useRuleCriteria(rule);
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
        ...(highlighted ? { borderColor: 'var(--mantine-primary-color-filled)', borderWidth: 2 } : {}),
      }}
      data-testid="rule"
      data-name={rule.name}
      data-highlighted={highlighted || undefined}
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
          {localDigits(index + 1)}
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

/** What a rule matches, one "list: first three values" entry per list it uses, names in place of ids. */
function useRuleCriteria(rule: Rule): string[] {
  const { t } = useTranslation();
  const names = useRuleNames(rule);
  const criteria = LISTS.filter((list) => rule[list].length > 0).map(
    (list) =>
      `${t(`routing.lists.${list}`)}: ${rule[list]
        .slice(0, 3)
        .map((id) => names.get(id) ?? id)
        .join(', ')}${rule[list].length > 3 ? ` +${localDigits(rule[list].length - 3)}` : ''}`,
  );
  if (rule.network) criteria.push(`${t('routing.network')}: ${rule.network.toUpperCase()}`);
  return criteria;
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
