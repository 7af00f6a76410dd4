import { Card, Group, SimpleGrid, Skeleton, Stack, Table, Text, UnstyledButton } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { IconArrowDown, IconArrowUp, IconSelector } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { EmptyState } from './common.js';

export interface Column<Row> {
  header: ReactNode;
  cell: (row: Row) => ReactNode;
  /** The column that names the row: set in bold (on a phone, the card's title). */
  naming?: boolean;
  /** Long unbroken values (file names, keys) wrap instead of widening the table. */
  breakWords?: boolean;
  /** A value that wants a whole line of a phone's card (an address with its port), not half of one. */
  wide?: true;
  /** Left out of a phone's cards (a detail the row's page shows anyway). */
  phone?: false;
  /** A column the list can be ordered by: its header is a button, the header cell says the order (aria-sort). */
  sort?: ColumnSort;
}

export interface ColumnSort {
  /** How the list is ordered by this column now. */
  direction: 'ascending' | 'descending' | 'none';
  onSort: () => void;
}

/** Below this width (a phone) a list with `cards` shows each row as a card, nothing to scroll sideways. */
export const PHONE_QUERY = '(max-width: 36em)';
const SKELETON_ROWS = 5;

export interface ListTableProps<Row> {
  /** Undefined while the list is loading: skeleton rows stand in. */
  rows: readonly Row[] | undefined;
  columns: Column<Row>[];
  rowKey: (row: Row) => string;
  minWidth: number;
  /** What an empty list says (what to do next); shown instead of an empty table. */
  empty?: ReactNode;
  actions?: (row: Row) => ReactNode;
  testId?: string;
  rowProps?: (row: Row) => Record<string, unknown>;
  /** On a phone, rows become cards (name first, each column's value under its header). */
  cards?: boolean;
}

/**
 * A list as every page shows one: striped, skeleton rows while it loads, the empty state when
 * there is nothing, scrolling sideways on a phone rather than squeezing its columns (or, with
 * `cards`, a card per row), and the row's actions (when given) in a last, unnamed column.
 */
export function ListTable<Row>(props: ListTableProps<Row>) {
  const phone = useMediaQuery(PHONE_QUERY, false, { getInitialValueInEffect: false });
  if (props.rows?.length === 0 && props.empty !== undefined) return <EmptyState>{props.empty}</EmptyState>;
  return props.cards && phone ? <ListCards {...props} /> : <ListRows {...props} />;
}

function ListRows<Row>({ rows, columns, rowKey, minWidth, actions, testId, rowProps }: ListTableProps<Row>) {
  return (
    <Table.ScrollContainer minWidth={minWidth}>
      <Table striped highlightOnHover={Boolean(rowProps)} data-testid={testId} aria-busy={!rows}>
        <Table.Thead>
          <Table.Tr>
            {columns.map((column, index) => (
              <Table.Th key={index} aria-sort={column.sort?.direction}>
                {column.sort ? <SortButton sort={column.sort}>{column.header}</SortButton> : column.header}
              </Table.Th>
            ))}
            {actions && <Table.Th />}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {!rows && <SkeletonRows cells={columns.length + (actions ? 1 : 0)} />}
          {rows?.map((row) => (
            <Table.Tr key={rowKey(row)} {...rowProps?.(row)}>
              {columns.map((column, index) => (
                <Table.Td
                  key={index}
                  fw={column.naming ? 500 : undefined}
                  style={column.breakWords ? { wordBreak: 'break-all' } : undefined}
                >
                  {column.cell(row)}
                </Table.Td>
              ))}
              {actions && (
                <Table.Td>
                  <Group gap={4} wrap="nowrap">
                    {actions(row)}
                  </Group>
                </Table.Td>
              )}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/** A header that orders the list by its column, with an arrow for the order it is in. */
function SortButton({ sort, children }: { sort: ColumnSort; children: ReactNode }) {
  const Icon =
    sort.direction === 'ascending' ? IconArrowUp : sort.direction === 'descending' ? IconArrowDown : IconSelector;
  return (
    <UnstyledButton onClick={sort.onSort} fw={700} fz="inherit" data-testid="sort-header">
      <Group gap={4} wrap="nowrap" component="span">
        {children}
        <Icon size={14} aria-hidden opacity={sort.direction === 'none' ? 0.4 : 1} />
      </Group>
    </UnstyledButton>
  );
}

function SkeletonRows({ cells }: { cells: number }) {
  return Array.from({ length: SKELETON_ROWS }, (_, row) => (
    <Table.Tr key={row} data-testid="skeleton-row">
      {Array.from({ length: cells }, (_, cell) => (
        <Table.Td key={cell}>
          <Skeleton height={12} radius="sm" />
        </Table.Td>
      ))}
    </Table.Tr>
  ));
}

/** A phone's list: one card per row, its name as the title, every other column as a labelled value. */
function ListCards<Row>({ rows, columns, rowKey, actions, testId, rowProps }: ListTableProps<Row>) {
  const naming = columns.find((column) => column.naming) ?? columns[0]!;
  const details = columns.filter((column) => column !== naming && column.phone !== false);
  return (
    <Stack gap="xs" data-testid={testId} aria-busy={!rows}>
      {!rows &&
        Array.from({ length: SKELETON_ROWS }, (_, index) => (
          <Card key={index} withBorder padding="sm" data-testid="skeleton-row">
            <Skeleton height={14} width="50%" mb="sm" />
            <Skeleton height={10} />
          </Card>
        ))}
      {rows?.map((row) => (
        <Card key={rowKey(row)} withBorder padding="sm" data-testid="list-card" {...rowProps?.(row)}>
          <Text fw={500} mb={6} component="div" style={{ overflowWrap: 'anywhere' }}>
            {naming.cell(row)}
          </Text>
          <SimpleGrid cols={2} spacing="xs" verticalSpacing={6}>
            {details.map((column, index) => (
              <div
                key={index}
                style={{ minWidth: 0, overflowWrap: 'anywhere', ...(column.wide ? { gridColumn: '1 / -1' } : {}) }}
              >
                <Text size="xs" c="dimmed">
                  {column.header}
                </Text>
                <Text size="sm" component="div">
                  {column.cell(row)}
                </Text>
              </div>
            ))}
          </SimpleGrid>
          {actions && (
            <Group gap={4} mt="xs" wrap="wrap" onClick={(event) => event.stopPropagation()}>
              {actions(row)}
            </Group>
          )}
        </Card>
      ))}
    </Stack>
  );
}
