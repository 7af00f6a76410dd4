import { Badge, Button, Group, Pagination, Select, Stack, Text, TextInput, UnstyledButton } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconPlus, IconSearch } from '@tabler/icons-react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { api, must, type Schemas } from '../api.js';
import { EmptyState, formatBytes, formatDate, Ltr, PageHeader } from '../components/common.js';
import { ListTable } from '../components/list-table.js';
import { useCanManage } from '../session.js';

const ClientDrawer = lazy(() => import('./client-drawer.js'));
const ClientCreateModal = lazy(() => import('./client-create.js'));

const STATUSES = ['active', 'disabled', 'expired', 'exhausted'] as const;
const SORTS = ['newest', 'oldest', 'name', 'traffic', 'remaining', 'expiry'] as const;
const PER_PAGE = 25;

export function StatusBadge({ status }: { status: Schemas['ClientDto']['status'] }) {
  const { t } = useTranslation();
  const color = { active: 'green', disabled: 'gray', expired: 'orange', exhausted: 'red' }[status];
  return (
    <Badge color={color} variant="light">
      {t(`clients.status.${status}`)}
    </Badge>
  );
}

/**
 * Clients a page at a time (GET /api/clients with perPage and the cursor of the page before):
 * never all of them, at any depth for the same cost. Search, status and group filter on the server.
 */
export default function ClientsPage() {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const { id } = useParams();
  const canManage = useCanManage();
  const [search, setSearch] = useState('');
  const [debouncedSearch] = useDebouncedValue(search.trim(), 150);
  const [status, setStatus] = useState<string | null>(null);
  const [group, setGroup] = useState('');
  const [debouncedGroup] = useDebouncedValue(group.trim(), 150);
  const [sort, setSort] = useState<(typeof SORTS)[number]>('newest');
  const [creating, setCreating] = useState(false);
  // The cursor of each page reached so far: page n+1 is asked with the nextCursor page n gave.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const page = cursors.length;
  useEffect(() => setCursors([undefined]), [debouncedSearch, status, debouncedGroup, sort]);

  const query = {
    perPage: PER_PAGE,
    ...(sort !== 'newest' ? { sort } : {}),
    ...(debouncedSearch ? { search: debouncedSearch } : {}),
    ...(status ? { status: status as (typeof STATUSES)[number] } : {}),
    ...(debouncedGroup ? { group: debouncedGroup } : {}),
    ...(cursors[page - 1] ? { cursor: cursors[page - 1] } : {}),
  };
  const clients = useQuery({
    queryKey: ['clients', query],
    queryFn: () => must(api.GET('/api/clients', { params: { query } })),
    placeholderData: keepPreviousData,
  });
  const data = clients.data;
  const pages = data ? Math.max(1, Math.ceil(data.total / PER_PAGE)) : 1;
  const goTo = (target: number) => {
    if (target === page + 1 && data?.nextCursor) setCursors([...cursors, data.nextCursor]);
    else if (target < page) setCursors(cursors.slice(0, target));
  };

  return (
    <>
      <PageHeader title={t('nav.clients')}>
        {canManage && (
          <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)} data-testid="new-client">
            {t('clients.new')}
          </Button>
        )}
      </PageHeader>
      <Group mb="md" gap="sm" wrap="wrap">
        <TextInput
          placeholder={t('clients.searchPlaceholder')}
          leftSection={<IconSearch size={16} />}
          value={search}
          onChange={(e) => setSearch(e.currentTarget.value)}
          aria-label={t('common.search')}
          maxLength={128}
          style={{ flex: '1 1 220px' }}
          data-testid="client-search"
        />
        <Select
          placeholder={t('clients.anyStatus')}
          data={STATUSES.map((value) => ({ value, label: t(`clients.status.${value}`) }))}
          value={status}
          onChange={setStatus}
          clearable
          aria-label={t('clients.statusLabel')}
          w={160}
        />
        <Select
          data={SORTS.map((value) => ({ value, label: t(`clients.sort.${value}`) }))}
          value={sort}
          onChange={(value) => value && setSort(value as (typeof SORTS)[number])}
          allowDeselect={false}
          aria-label={t('clients.sortLabel')}
          w={170}
        />
        <TextInput
          placeholder={t('clients.group')}
          value={group}
          onChange={(e) => setGroup(e.currentTarget.value)}
          aria-label={t('clients.group')}
          maxLength={64}
          w={160}
        />
      </Group>
      {data && data.items.length === 0 ? (
        <EmptyState>
          {debouncedSearch || status || debouncedGroup ? t('clients.noMatch') : t('clients.empty')}
        </EmptyState>
      ) : (
        <ListTable
          rows={data?.items ?? []}
          rowKey={(client) => client.id}
          minWidth={640}
          testId="clients-table"
          rowProps={(client) => ({
            onClick: () => void navigate(`/clients/${client.id}`),
            style: { cursor: 'pointer' },
          })}
          columns={[
            {
              header: t('common.name'),
              cell: (client) => (
                <>
                  <UnstyledButton onClick={() => void navigate(`/clients/${client.id}`)} fw={500}>
                    {client.name}
                  </UnstyledButton>
                  {client.groups.length > 0 && (
                    <Text size="xs" c="dimmed">
                      {client.groups.join(', ')}
                    </Text>
                  )}
                </>
              ),
            },
            { header: t('clients.statusLabel'), cell: (client) => <StatusBadge status={client.status} /> },
            {
              header: t('clients.usage'),
              cell: (client) => (
                <Ltr>{`${formatBytes(client.usedBytes)} / ${client.quotaBytes ? formatBytes(client.quotaBytes) : '∞'}`}</Ltr>
              ),
            },
            {
              header: t('clients.devices'),
              cell: (client) => <Ltr>{`${client.deviceCount} / ${client.deviceLimit}`}</Ltr>,
            },
            {
              header: t('clients.expires'),
              cell: (client) => (client.expiresAt ? formatDate(client.expiresAt, i18n.language) : '—'),
            },
          ]}
        />
      )}
      {data && data.total > 0 && (
        <Stack align="center" mt="md" gap={4}>
          {/* A cursor reaches the next page only: pages beyond it open one step at a time. */}
          <Pagination
            total={pages}
            value={page}
            onChange={goTo}
            getItemProps={(n) => ({ disabled: n > page + 1 || (n === page + 1 && !data.nextCursor) })}
          />
          <Text size="xs" c="dimmed">
            {t('clients.total', { count: data.total })}
          </Text>
        </Stack>
      )}
      <Suspense>
        {creating && (
          <ClientCreateModal
            onClose={() => setCreating(false)}
            onCreated={(client) => void navigate(`/clients/${client.id}`)}
          />
        )}
        {id && <ClientDrawer id={id} onClose={() => void navigate('/clients')} />}
      </Suspense>
    </>
  );
}
