import { Button, Group, Stack, Text } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { EmptyState } from './common.js';

/**
 * A list of a page's section (the Outbounds page's balancers and subscriptions): a help line, the
 * "new" button and any others for managers, the empty state or the table, and the dialog open.
 */
export function ListSection({
  testId,
  help,
  canManage,
  create,
  buttons,
  empty,
  emptyText,
  children,
  dialog,
}: {
  testId: string;
  help: ReactNode;
  canManage: boolean;
  create: { label: ReactNode; onClick: () => void; disabled?: boolean; testId: string };
  /** More buttons beside "new" (managers only). */
  buttons?: ReactNode;
  /** The list is loaded and has nothing to show. */
  empty: boolean;
  emptyText: ReactNode;
  /** The table. */
  children: ReactNode;
  /** The create/edit dialog while open. */
  dialog?: ReactNode;
}) {
  return (
    <Stack gap="sm" data-testid={testId}>
      <Text size="sm" c="dimmed">
        {help}
      </Text>
      {canManage && (
        <Group>
          <Button
            leftSection={<IconPlus size={16} />}
            onClick={create.onClick}
            disabled={create.disabled}
            data-testid={create.testId}
          >
            {create.label}
          </Button>
          {buttons}
        </Group>
      )}
      {empty ? <EmptyState>{emptyText}</EmptyState> : children}
      {dialog}
    </Stack>
  );
}
