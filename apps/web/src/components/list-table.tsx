import { Group, Table } from '@mantine/core';
import type { ReactNode } from 'react';

export interface Column<Row> {
  header: ReactNode;
  cell: (row: Row) => ReactNode;
  /** The column that names the row: set in bold. */
  naming?: boolean;
  /** Long unbroken values (file names, keys) wrap instead of widening the table. */
  breakWords?: boolean;
}

/**
 * A list as every page shows one: striped, scrolling sideways on a phone rather than squeezing
 * its columns, and the row's actions (when given) in a last, unnamed column.
 */
export function ListTable<Row>({
  rows,
  columns,
  rowKey,
  minWidth,
  actions,
  testId,
  rowProps,
}: {
  rows: readonly Row[];
  columns: Column<Row>[];
  rowKey: (row: Row) => string;
  minWidth: number;
  actions?: (row: Row) => ReactNode;
  testId?: string;
  rowProps?: (row: Row) => Record<string, unknown>;
}) {
  return (
    <Table.ScrollContainer minWidth={minWidth}>
      <Table striped highlightOnHover={Boolean(rowProps)} data-testid={testId}>
        <Table.Thead>
          <Table.Tr>
            {columns.map((column, index) => (
              <Table.Th key={index}>{column.header}</Table.Th>
            ))}
            {actions && <Table.Th />}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((row) => (
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
