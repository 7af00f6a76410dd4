import { Checkbox, Stack, Text, UnstyledButton } from '@mantine/core';
import { memo } from 'react';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import type { Schemas } from '../api.js';
import { StatusBadge } from '../components/badges.js';
import { formatBytes, formatDate, Ltr, Sizes } from '../components/common.js';
import { localDigits } from '../format.js';
import { ListTable, type ColumnSort } from '../components/list-table.js';
import { OnlineState } from './clients/online-state.js';
import { CurrentRate } from '../components/current-rate.js';
import type { Sort } from './clients-params.js';

type Client = Schemas['ClientDto'];

/** The columns a header click orders by: the API's order for it and the direction that order runs. */
const COLUMN_SORTS = {
  name: ['name', 'ascending'],
  usage: ['traffic', 'descending'],
  expires: ['expiry', 'ascending'],
} as const satisfies Record<string, [Sort, ColumnSort['direction']]>;

/** Rows with a checkbox each, and one in the header for the page (for bulk actions). */
export interface ListSelection {
  selected: ReadonlySet<string>;
  toggle: (id: string) => void;
  togglePage: (on: boolean) => void;
}

interface ClientsListProps {
  clients: readonly Client[] | undefined;
  empty: string;
  sort: Sort;
  onSort: (sort: Sort) => void;
  onOpen: (client: Client) => void;
  selection?: ListSelection;
}

/**
 * One page of clients: a table, or on a phone a card each (name, status, usage first). A click on
 * a sortable header orders by it; a second click goes back to the default order (newest first).
 * Memoized: the page re-renders on every step of a search (the address, the query's state, the
 * pager) while the rows stay the same until the answer; ~10 Mantine components a row made those
 * re-renders most of a search's scripting time.
 */
export const ClientsList = memo(function ClientsList({
  clients,
  empty,
  sort,
  onSort,
  onOpen,
  selection,
}: ClientsListProps) {
  const { t, i18n } = useTranslation();
  const by = (column: keyof typeof COLUMN_SORTS): ColumnSort => {
    const [order, direction] = COLUMN_SORTS[column];
    return {
      direction: sort === order ? direction : 'none',
      onSort: () => onSort(sort === order ? 'newest' : order),
    };
  };
  return (
    <ListTable
      rows={clients}
      empty={empty}
      cards
      rowKey={(client) => client.id}
      minWidth={760}
      testId="clients-table"
      rowProps={(client) => ({ onClick: () => onOpen(client), style: { cursor: 'pointer' }, 'data-row': client.name })}
      columns={[
        ...(selection ? [selectColumn(selection, clients, t)] : []),
        {
          header: t('common.name'),
          naming: true,
          sort: by('name'),
          cell: (client) => (
            <>
              <UnstyledButton onClick={() => onOpen(client)} fw={500} style={{ overflowWrap: 'anywhere' }}>
                {client.name}
              </UnstyledButton>
              {client.groups.length > 0 && (
                <Text size="xs" c="dimmed" fw={400}>
                  {client.groups.join(', ')}
                </Text>
              )}
            </>
          ),
        },
        { header: t('clients.statusLabel'), cell: (client) => <StatusBadge status={client.status} /> },
        {
          header: t('clients.lastHandshake'),
          cell: (client) => (
            <Stack gap={2} align="flex-start">
              <OnlineState onlineNow={client.onlineNow} lastHandshake={client.lastHandshake} />
              <CurrentRate downRate={client.downRate} upRate={client.upRate} />
            </Stack>
          ),
        },
        {
          header: t('clients.usage'),
          sort: by('usage'),
          cell: (client) => (
            <Sizes>{`${formatBytes(client.usedBytes)} / ${client.quotaBytes ? formatBytes(client.quotaBytes) : '∞'}`}</Sizes>
          ),
        },
        {
          header: t('clients.devices'),
          cell: (client) => <Ltr>{localDigits(`${client.deviceCount} / ${client.deviceLimit || '∞'}`)}</Ltr>,
        },
        {
          header: t('clients.expires'),
          sort: by('expires'),
          cell: (client) => (client.expiresAt ? formatDate(client.expiresAt, i18n.language) : '—'),
        },
      ]}
    />
  );
}, sameList);

/**
 * Whether the list would look the same: the empty-list text matters only with no rows (a new
 * search changes it from "no clients yet" to "none match" while the old rows are still shown).
 */
function sameList(before: ClientsListProps, after: ClientsListProps): boolean {
  return (
    before.clients === after.clients &&
    before.sort === after.sort &&
    before.onSort === after.onSort &&
    before.onOpen === after.onOpen &&
    before.selection === after.selection &&
    (before.empty === after.empty || (after.clients?.length ?? 0) > 0)
  );
}

/** The checkbox column: a row's own, and the header's for the whole page (indeterminate when some are). */
function selectColumn(selection: ListSelection, clients: readonly Client[] | undefined, t: TFunction) {
  const onPage = clients ?? [];
  const chosen = onPage.filter((client) => selection.selected.has(client.id)).length;
  return {
    header: (
      <Checkbox
        aria-label={t('bulk.selectPage')}
        checked={onPage.length > 0 && chosen === onPage.length}
        indeterminate={chosen > 0 && chosen < onPage.length}
        onChange={(event) => selection.togglePage(event.currentTarget.checked)}
        data-testid="select-page"
      />
    ),
    phone: false as const,
    cell: (client: Client) => (
      // A click on the box selects; it must not open the client as a click on the row does.
      <span onClick={(event) => event.stopPropagation()}>
        <Checkbox
          aria-label={t('bulk.selectRow', { name: client.name })}
          checked={selection.selected.has(client.id)}
          onChange={() => selection.toggle(client.id)}
          data-testid="select-row"
        />
      </span>
    ),
  };
}
