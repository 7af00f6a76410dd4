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
  verticalListSortingStrategy,
} from '@dnd-kit/sortable';
import { Stack } from '@mantine/core';
import { SortableRule } from './rule-card.js';
import type { Rule } from './types.js';

/** The rules in matching order, reordered by dragging a card's handle (or with the keyboard). */
export function RuleList({
  rules,
  highlighted,
  canManage,
  onReorder,
  onEdit,
  onToggle,
  onDelete,
}: {
  rules: Rule[];
  /** The rule a route test answered with. */
  highlighted?: string | null;
  canManage: boolean;
  onReorder: (ids: string[]) => void;
  onEdit: (rule: Rule) => void;
  onToggle: (rule: Rule) => void;
  onDelete: (rule: Rule) => void;
}) {
  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 4 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  );
  const onDragEnd = ({ active, over }: DragEndEvent) => {
    if (!over || active.id === over.id) return;
    const from = rules.findIndex((rule) => rule.id === active.id);
    const to = rules.findIndex((rule) => rule.id === over.id);
    onReorder(arrayMove(rules, from, to).map((rule) => rule.id));
  };
  return (
    <DndContext sensors={sensors} collisionDetection={closestCenter} onDragEnd={onDragEnd}>
      <SortableContext items={rules.map((rule) => rule.id)} strategy={verticalListSortingStrategy}>
        <Stack gap="xs" data-testid="rules">
          {rules.map((rule, index) => (
            <SortableRule
              key={rule.id}
              rule={rule}
              index={index}
              highlighted={rule.id === highlighted}
              canManage={canManage}
              onEdit={() => onEdit(rule)}
              onToggle={() => onToggle(rule)}
              onDelete={() => onDelete(rule)}
            />
          ))}
        </Stack>
      </SortableContext>
    </DndContext>
  );
}
