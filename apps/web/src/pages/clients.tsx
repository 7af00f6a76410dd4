import { Button, Group } from '@mantine/core';
import { IconFileImport, IconPlus, IconStack2 } from '@tabler/icons-react';
import { lazy, Suspense, useCallback, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate, useParams } from 'react-router';
import { useClientList, useInterfaces, type ClientListQuery } from '../api/queries.js';
import { PageHeader } from '../components/common.js';
import { Pager } from '../components/pager.js';
import { useCanManage, useIsReseller } from '../session.js';
import { useStableCallback } from '../stable-callback.js';
import type { Selection } from './clients-bulk.js';
import { ClientFilters } from './clients-filters.js';
import { ClientsList, type ListSelection } from './clients-list.js';
import { filtersOf, PAGE_SIZES, useClientListView, type ClientListView } from './clients-params.js';
import { ExportMenu } from './clients/export-menu.js';

// The client drawer shows the status badge too (it imports it from here).
export { StatusBadge } from '../components/badges.js';

const ClientDrawer = lazy(() => import('./client-drawer.js'));
const ClientCreateModal = lazy(() => import('./client-create.js'));
const BatchCreateModal = lazy(() => import('./clients/batch-create.js'));
const ImportWizard = lazy(() => import('./clients/import-wizard.js'));
// Not in the list's first load either: the bulk bar (its dialogs, number input, progress) shows
// once a row is selected, the reseller's card for resellers only.
const BulkBar = lazy(() => import('./clients-bulk.js').then((module) => ({ default: module.BulkBar })));
const ResellerRoomCard = lazy(() =>
  import('../components/reseller-room.js').then((module) => ({ default: module.ResellerRoomCard })),
);

/**
 * Clients a page at a time (GET /api/clients with perPage): never all of them. Any page opens by
 * its number; the page after one already shown is asked with that page's nextCursor instead (the
 * same cost at any depth). Page, size, search, filters and order are in the address.
 */
export default function ClientsPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { search: address } = useLocation();
  const { id } = useParams();
  const canManage = useCanManage();
  const reseller = useIsReseller();
  const [creating, setCreating] = useState(false);
  const [dialog, setDialog] = useState<'batch' | 'import' | null>(null);
  const [view, update] = useClientListView();
  const filters = filtersOf(view);
  const signature = JSON.stringify(filters);
  // nextCursor of each page answered, by filters and page: the page after it is asked by cursor.
  const [cursors, setCursors] = useState(() => new Map<string, string>());
  const cursor = view.page > 1 ? cursors.get(`${signature}#${view.page}`) : undefined;
  const query: ClientListQuery = { ...filters, ...(cursor ? { cursor } : view.page > 1 ? { page: view.page } : {}) };
  const clients = useClientList(query);
  // Only an empty list asks: it says "create an interface first" only when there is none.
  const interfaces = useInterfaces({ enabled: clients.data?.total === 0 });
  const data = clients.isPlaceholderData ? undefined : clients.data;
  useEffect(() => {
    const key = `${signature}#${view.page + 1}`;
    if (data?.nextCursor && cursors.get(key) !== data.nextCursor)
      setCursors((before) => new Map(before).set(key, data.nextCursor!));
  }, [data, signature, view.page, cursors]);
  // A page past the end (the list shrank, or an old link) shows the last one.
  const last = clients.data ? Math.max(1, Math.ceil(clients.data.total / view.perPage)) : undefined;
  useEffect(() => {
    if (last && view.page > last && !clients.isPlaceholderData) update({ page: last }, true);
  }, [last, view.page, clients.isPlaceholderData, update]);
  const filtered = Boolean(view.search || view.status || view.group);
  // Selected rows (ids), or everything the filter matches; a new filter starts afresh.
  const [selected, setSelected] = useState<ReadonlySet<string>>(() => new Set());
  const [allMatching, setAllMatching] = useState(false);
  // The same set when nothing was selected: a new search then costs no extra render of the rows.
  const clear = useCallback(() => {
    setSelected((before) => (before.size > 0 ? new Set() : before));
    setAllMatching(false);
  }, []);
  const filterKey = JSON.stringify([view.search, view.status, view.group]);
  useEffect(clear, [filterKey, clear]);
  const pageIds = (data?.items ?? []).map((client) => client.id);
  const selection: Selection = allMatching
    ? { filter: { search: view.search || undefined, status: view.status || undefined, group: view.group || undefined } }
    : { ids: [...selected] };

  // Of stable identity, so the memoized list re-renders for new rows or a new selection only.
  const onSort = useStableCallback((sort: ClientListView['sort']) => update({ sort }));
  const onOpen = useStableCallback((client: { id: string }) => void navigate(`/clients/${client.id}${address}`));
  const toggle = useStableCallback((id: string) => {
    setAllMatching(false);
    setSelected((before) => {
      const next = new Set(before);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  });
  const togglePage = useStableCallback((on: boolean) => {
    setAllMatching(false);
    setSelected((before) => {
      const next = new Set(before);
      for (const id of pageIds)
        if (on) next.add(id);
        else next.delete(id);
      return next;
    });
  });
  const listSelection = useMemo<ListSelection | undefined>(
    () => (canManage ? { selected, toggle, togglePage } : undefined),
    [canManage, selected, toggle, togglePage],
  );

  return (
    <>
      <PageHeader title={t('nav.clients')}>
        {canManage && (
          <Group gap="xs">
            <ExportMenu />
            {/* A reseller's import matches their own clients, within their ceilings (docs/import.md). */}
            <Button
              variant="default"
              leftSection={<IconFileImport size={16} />}
              onClick={() => setDialog('import')}
              data-testid="clients-import"
            >
              {t('clientTransfer.import')}
            </Button>
            <Button
              variant="default"
              leftSection={<IconStack2 size={16} />}
              onClick={() => setDialog('batch')}
              data-testid="clients-batch"
            >
              {t('clientTransfer.batch')}
            </Button>
            <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)} data-testid="new-client">
              {t('clients.new')}
            </Button>
          </Group>
        )}
      </PageHeader>
      <Suspense>{reseller && <ResellerRoomCard />}</Suspense>
      <ClientFilters view={view} update={update} />
      <Suspense>
        {/* Bulk actions reach a reseller's own clients only, within their ceilings (docs/operators.md). */}
        {canManage && (selected.size > 0 || allMatching) && (
          <BulkBar
            count={selected.size}
            pageSelected={pageIds.length > 0 && pageIds.every((id) => selected.has(id))}
            total={clients.data?.total ?? 0}
            allMatching={allMatching}
            selection={selection}
            onSelectAll={() => setAllMatching(true)}
            onClear={clear}
          />
        )}
      </Suspense>
      <ClientsList
        clients={clients.data?.items}
        empty={
          filtered
            ? t('clients.noMatch')
            : interfaces.data && interfaces.data.length === 0
              ? t('clients.empty')
              : t('clients.emptyReady')
        }
        sort={view.sort}
        onSort={onSort}
        onOpen={onOpen}
        selection={listSelection}
      />
      {clients.data && clients.data.total > 0 && (
        <Pager
          page={view.page}
          perPage={view.perPage}
          total={clients.data.total}
          sizes={PAGE_SIZES}
          summary={t('clients.total', { count: clients.data.total })}
          onPage={(page) => update({ page })}
          onPerPage={(perPage) => update({ perPage })}
        />
      )}
      <Suspense>
        {creating && (
          <ClientCreateModal
            onClose={() => setCreating(false)}
            onCreated={(client) => void navigate(`/clients/${client.id}${address}`)}
          />
        )}
        {dialog === 'batch' && <BatchCreateModal onClose={() => setDialog(null)} />}
        {dialog === 'import' && <ImportWizard onClose={() => setDialog(null)} />}
        {id && <ClientDrawer id={id} onClose={() => void navigate(`/clients${address}`)} />}
      </Suspense>
    </>
  );
}
