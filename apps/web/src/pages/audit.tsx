import { Alert, Badge, Box, Button, Group, Select, Stack, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useInfiniteQuery } from '@tanstack/react-query';
import { createContext, Fragment, useContext, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { AUDIT_OUTCOMES, AUDIT_SECRET_MARK, type AuditOutcome } from '../../../../libs/contracts/audit.js';
import { api, must, type Schemas } from '../api.js';
import { ForwardArrow, formatDate, Ltr, PageHeader } from '../components/common.js';
import { ListTable, type Column } from '../components/list-table.js';
import { DateTimeField } from '../components/jalali-picker.js';
import { formatNumber } from '../format.js';
import { useUser } from '../session.js';
import { interfaceLabel, useInterfacesWithNodes, useNodes } from '../api/queries.js';

import { AUDIT_ACTIONS, AUDIT_TARGETS } from './audit-names.js';

type Entry = Schemas['AuditEntryDto'];
type Change = Schemas['AuditChangeDto'];

const PAGE_SIZE = 50;
const OUTCOME_COLORS: Record<AuditOutcome, string> = {
  pending: 'gray',
  success: 'teal',
  accepted: 'blue',
  'awaiting-code': 'grape',
  refused: 'orange',
  failed: 'red',
  unknown: 'yellow',
};

interface Filters {
  actor: string;
  action: string | null;
  targetType: string | null;
  targetId: string;
  outcome: AuditOutcome | null;
  /** A datetime-local input's value (the browser's time zone), or "". */
  from: string;
  to: string;
}

const NO_FILTERS: Filters = {
  actor: '',
  action: null,
  targetType: null,
  targetId: '',
  outcome: null,
  from: '',
  to: '',
};

/** An i18n key's word for a name the API gives, or the name itself (a route added after these words were written). */
function useWord() {
  const { t } = useTranslation();
  return (group: string, name: string): string =>
    t(`audit.${group}.${name.replaceAll('.', '_')}`, { defaultValue: name });
}

/**
 * A changed field as people name it ("Device limit", "سقف دستگاه‌ها"), not the API's `deviceLimit`;
 * a field added after these words were written: its name's words in English, the name itself
 * (isolated) in Persian.
 */
function FieldName({ field }: { field: string }) {
  const { t, i18n } = useTranslation();
  const words = field.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  const fallback = i18n.language === 'en' ? words.charAt(0).toUpperCase() + words.slice(1) : field;
  return <bdi>{t(`audit.fields.${field}`, { defaultValue: fallback })}</bdi>;
}

/** Fields whose values are the API's enum names: shown as the panel names them elsewhere. */
const VALUE_WORDS: Record<string, string> = {
  resetCycle: 'clients.cycle',
  mode: 'interfaces.modes',
  kind: 'outbounds.kinds',
  role: 'roles',
};

/** An ISO 8601 moment as the API stores it ("2027-01-05T15:44:12.314Z"). */
const MOMENT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** Names of the ids a change may hold (an interface "alborz · edge-1", a node), by id. */
const IdNames = createContext<Map<string, string>>(new Map());
/** Fields whose values are ids of things with names. */
const ID_FIELDS = new Set(['interfaceIds', 'interfaceId', 'nodeId', 'nodeIds', 'interfaces', 'nodes']);
/**
 * Fields whose numbers are amounts (bytes, a rate, a duration): grouped in thousands. Every other
 * number (a port, an id such as a Telegram user's, an MTU, AmneziaWG's parameters, a routing table)
 * is a label read digit by digit: "40001", never "40,001".
 */
const AMOUNT_FIELD = /bytes|bits|seconds|quota|rate/i;

/** A number of a change in the page's digits, grouped when its field is an amount. */
function auditNumber(value: number, field: string, language: string): string {
  return formatNumber(value, { useGrouping: AMOUNT_FIELD.test(field) }, language);
}

/** The panel's interfaces and nodes by id, for the changes that name them by id. */
function useIdNames(): Map<string, string> {
  const interfaces = useInterfacesWithNodes().data ?? [];
  const nodes = useNodes().data ?? [];
  return new Map([
    ...nodes.map((node) => [node.id, node.name] as const),
    ...interfaces.map((entry) => [entry.id, interfaceLabel(entry)] as const),
  ]);
}

/** An id as its thing's name when the panel still has it (a deleted one stays its id). */
function NamedIds({ ids }: { ids: string[] }) {
  const names = useContext(IdNames);
  const { i18n } = useTranslation();
  return <bdi>{ids.map((id) => names.get(id) ?? id).join(i18n.language === 'fa' ? '، ' : ', ')}</bdi>;
}

/**
 * A list of plain values ("DNS: 1.1.1.1, 8.8.8.8"), comma-separated in the page's language, each
 * its own isolate; an id the page knows reads as its thing's name, as in `NamedIds`.
 */
function List({ items, field }: { items: (string | number)[]; field: string }) {
  const names = useContext(IdNames);
  const { i18n } = useTranslation();
  return (
    <span data-testid="audit-list">
      {items.map((item, at) => (
        <Fragment key={at}>
          {at > 0 && (i18n.language === 'fa' ? '، ' : ', ')}
          <bdi>{typeof item === 'number' ? auditNumber(item, field, i18n.language) : (names.get(item) ?? item)}</bdi>
        </Fragment>
      ))}
    </span>
  );
}

/**
 * One value of a change, as people read it: numbers in the page's digits, text isolated, lists
 * comma-separated, an object's fields each with its value; only a list of objects as JSON.
 */
function Value({ value, field }: { value: unknown; field: string }) {
  const { t, i18n } = useTranslation();
  if (value === null || value === undefined || value === '')
    return (
      <Text span c="dimmed">
        {t('audit.empty')}
      </Text>
    );
  if (value === AUDIT_SECRET_MARK)
    return (
      <Badge size="xs" color="gray">
        {t('audit.secretChanged')}
      </Badge>
    );
  if (typeof value === 'boolean') return <>{t(value ? 'audit.yes' : 'audit.no')}</>;
  if (
    ID_FIELDS.has(field) &&
    (typeof value === 'string' || (Array.isArray(value) && value.every((id) => typeof id === 'string')))
  )
    return <NamedIds ids={typeof value === 'string' ? [value] : (value as string[])} />;
  if (typeof value === 'number') return <>{auditNumber(value, field, i18n.language)}</>;
  if (typeof value === 'string' && MOMENT.test(value)) return <>{formatDate(value, i18n.language)}</>;
  if (typeof value === 'string' && VALUE_WORDS[field])
    return <>{t(`${VALUE_WORDS[field]}.${value}`, { defaultValue: value })}</>;
  if (typeof value === 'string') return <bdi>{value}</bdi>;
  if (Array.isArray(value) && value.length === 0)
    return (
      <Text span c="dimmed">
        {t('audit.empty')}
      </Text>
    );
  if (Array.isArray(value) && value.every((item) => typeof item === 'string' || typeof item === 'number'))
    return <List items={value as (string | number)[]} field={field} />;
  // A set of values (a reseller's ceilings): each as a field with its value, never a JSON blob.
  if (typeof value === 'object' && !Array.isArray(value))
    return (
      <Stack gap={0} component="span" data-testid="audit-object">
        {Object.entries(value as Record<string, unknown>).map(([key, inner]) => (
          <span key={key}>
            <FieldName field={key} />: <Value value={inner} field={key} />
          </span>
        ))}
      </Stack>
    );
  return (
    <Text span ff="monospace" size="xs">
      <Ltr>{JSON.stringify(value).replaceAll(`"${AUDIT_SECRET_MARK}"`, `"${t('audit.secretChanged')}"`)}</Ltr>
    </Text>
  );
}

function Changes({ changes }: { changes: Change[] }) {
  const { t } = useTranslation();
  if (changes.length === 0) return <Text c="dimmed">—</Text>;
  return (
    <Stack gap={2} data-testid="audit-changes">
      {changes.map((change) => (
        <Text key={change.field} size="sm" component="div" data-field={change.field}>
          <Text span fw={500}>
            <FieldName field={change.field} />
          </Text>
          {': '}
          {change.secret ? (
            <Badge size="xs" color="gray" data-testid="secret-changed">
              {t('audit.secretChanged')}
            </Badge>
          ) : (
            <>
              {'old' in change && (
                <>
                  <Value value={change.old} field={change.field} /> <ForwardArrow />{' '}
                </>
              )}
              {'new' in change ? (
                <Value value={change.new} field={change.field} />
              ) : (
                <Text span c="dimmed">
                  {t('audit.removed')}
                </Text>
              )}
            </>
          )}
        </Text>
      ))}
    </Stack>
  );
}

function FilterBar({ filters, update }: { filters: Filters; update: (changes: Partial<Filters>) => void }) {
  const { t } = useTranslation();
  const word = useWord();
  return (
    <Group mb="md" gap="sm" wrap="wrap" align="flex-end" data-testid="audit-filters">
      <TextInput
        label={t('audit.actor')}
        placeholder={t('audit.actorPlaceholder')}
        value={filters.actor}
        onChange={(event) => update({ actor: event.currentTarget.value })}
        maxLength={256}
        style={{ flex: '1 1 160px' }}
        data-testid="audit-actor"
      />
      <Select
        label={t('audit.action')}
        placeholder={t('audit.any')}
        data={AUDIT_ACTIONS.map((value) => ({ value, label: word('actions', value) }))}
        value={filters.action}
        onChange={(value) => update({ action: value })}
        searchable
        clearable
        style={{ flex: '1 1 180px' }}
        data-testid="audit-action"
      />
      <Select
        label={t('audit.target')}
        placeholder={t('audit.any')}
        data={AUDIT_TARGETS.map((value) => ({ value, label: word('targets', value) }))}
        value={filters.targetType}
        onChange={(value) => update({ targetType: value })}
        clearable
        style={{ flex: '1 1 140px' }}
        data-testid="audit-target"
      />
      <TextInput
        label={t('audit.targetId')}
        value={filters.targetId}
        onChange={(event) => update({ targetId: event.currentTarget.value })}
        maxLength={128}
        style={{ flex: '1 1 160px' }}
        data-testid="audit-target-id"
      />
      <Select
        label={t('audit.outcome')}
        placeholder={t('audit.any')}
        data={AUDIT_OUTCOMES.map((value) => ({ value, label: word('outcomes', value) }))}
        value={filters.outcome}
        onChange={(value) => update({ outcome: value as AuditOutcome | null })}
        clearable
        style={{ flex: '1 1 130px' }}
        data-testid="audit-outcome"
      />
      <DateTimeField
        label={t('audit.from')}
        value={filters.from}
        onChange={(from) => update({ from })}
        empty={t('audit.anyTime')}
        style={{ flex: '1 1 190px' }}
        testId="audit-from"
      />
      <DateTimeField
        label={t('audit.to')}
        value={filters.to}
        onChange={(to) => update({ to })}
        empty={t('audit.anyTime')}
        style={{ flex: '1 1 190px' }}
        testId="audit-to"
      />
      <Button variant="subtle" onClick={() => update(NO_FILTERS)} data-testid="audit-clear">
        {t('audit.clear')}
      </Button>
    </Group>
  );
}

const isoOf = (local: string): string | undefined => {
  const time = local ? new Date(local).getTime() : NaN;
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
};

/** The audit log (GET /api/logs): the owner's; filters, newest first, older entries a page at a time by cursor. */
export default function AuditPage() {
  const { t, i18n } = useTranslation();
  const user = useUser();
  const word = useWord();
  const idNames = useIdNames();
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [typed] = useDebouncedValue({ actor: filters.actor.trim(), targetId: filters.targetId.trim() }, 250);
  const query = {
    ...(typed.actor ? { actor: typed.actor } : {}),
    ...(typed.targetId ? { targetId: typed.targetId } : {}),
    ...(filters.action ? { action: filters.action } : {}),
    ...(filters.targetType ? { targetType: filters.targetType } : {}),
    ...(filters.outcome ? { outcome: filters.outcome } : {}),
    ...(isoOf(filters.from) ? { from: isoOf(filters.from) } : {}),
    ...(isoOf(filters.to) ? { to: isoOf(filters.to) } : {}),
    perPage: PAGE_SIZE,
  };
  const log = useInfiniteQuery({
    queryKey: ['audit', query],
    queryFn: ({ pageParam }) =>
      must(api.GET('/api/logs', { params: { query: { ...query, ...(pageParam ? { cursor: pageParam } : {}) } } })),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor,
    enabled: user.role === 'owner',
  });
  if (user.role !== 'owner') return <Alert color="gray">{t('audit.ownerOnly')}</Alert>;

  const columns: Column<Entry>[] = [
    {
      header: t('audit.when'),
      cell: (entry) => formatDate(entry.at, i18n.language),
    },
    {
      header: t('audit.action'),
      naming: true,
      cell: (entry) => (
        <Group gap={6} wrap="wrap">
          <span data-testid="audit-action-cell">{word('actions', entry.action)}</span>
          <Badge size="sm" color={OUTCOME_COLORS[entry.outcome]} data-testid="audit-outcome-badge">
            {word('outcomes', entry.outcome)}
          </Badge>
        </Group>
      ),
    },
    {
      header: t('audit.actor'),
      cell: (entry) => (
        <Stack gap={0}>
          <Text size="sm" component="div">
            <bdi>{entry.actor.name ?? '—'}</bdi>
            {entry.actor.role && (
              <Text span size="xs" c="dimmed">
                {' '}
                ({t(`roles.${entry.actor.role}`, { defaultValue: entry.actor.role })})
              </Text>
            )}
          </Text>
          <Text size="xs" c="dimmed" component="div">
            {entry.actor.credentialName
              ? t('audit.viaToken', { name: entry.actor.credentialName })
              : word('via', entry.actor.via)}
          </Text>
        </Stack>
      ),
    },
    {
      header: t('audit.target'),
      cell: (entry) =>
        entry.target.type ? (
          <Stack gap={0}>
            <Text size="sm">{word('targets', entry.target.type)}</Text>
            {(entry.target.name ?? entry.target.id) && (
              <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
                <bdi>{entry.target.name ?? entry.target.id}</bdi>
              </Text>
            )}
          </Stack>
        ) : (
          '—'
        ),
    },
    {
      header: t('audit.changes'),
      wide: true,
      cell: (entry) => (
        <Stack gap={2}>
          <Changes changes={entry.changes} />
          {entry.error && <AuditError error={entry.error} code={entry.errorCode} />}
        </Stack>
      ),
    },
    {
      header: t('audit.address'),
      phone: false,
      cell: (entry) => (entry.address ? <Ltr>{entry.address}</Ltr> : '—'),
    },
  ];
  const rows = log.data?.pages.flatMap((page) => page.items);
  const more: ReactNode = log.hasNextPage ? (
    <Button
      variant="default"
      onClick={() => void log.fetchNextPage()}
      loading={log.isFetchingNextPage}
      data-testid="audit-more"
    >
      {t('audit.more')}
    </Button>
  ) : rows && rows.length > 0 ? (
    <Text size="xs" c="dimmed" data-testid="audit-end">
      {t('audit.end')}
    </Text>
  ) : null;
  return (
    <>
      <PageHeader title={t('audit.title')} />
      <FilterBar filters={filters} update={(changes) => setFilters((current) => ({ ...current, ...changes }))} />
      {log.error ? (
        <Alert color="red">{log.error.message}</Alert>
      ) : (
        <IdNames.Provider value={idNames}>
          {/* A long unbroken value (a user agent, a token's name, a list of addresses) wraps where
              it must, so the table fits its area and the last columns stay in view. */}
          <Box style={{ overflowWrap: 'anywhere' }} data-testid="audit-wrap">
            <ListTable
              rows={rows}
              columns={columns}
              rowKey={(entry) => entry.id}
              minWidth={900}
              empty={t('audit.none')}
              testId="audit-list"
              rowProps={(entry) => ({ 'data-entry': entry.id, 'data-action': entry.action })}
              cards
            />
          </Box>
        </IdNames.Provider>
      )}
      <Group justify="center" mt="md">
        {more}
      </Group>
    </>
  );
}

/**
 * A refusal's words: its code in the panel's language where the panel knows the code (the
 * English sentence the caller was told stays as the tooltip, for the field and values it names),
 * else that sentence. Entries older than the code, and codes that mean only their sentence
 * (`invalid`, `format`), show the sentence.
 */
function AuditError({ error, code }: { error: string; code: string | null }) {
  const { t, i18n } = useTranslation();
  const key = code ? `audit.errorCodes.${code}` : '';
  const known = code !== null && i18n.exists(key);
  return (
    <Text size="xs" c="orange" data-testid="audit-error" data-code={code ?? ''} title={known ? error : undefined}>
      <bdi>{known ? t(key) : error}</bdi>
    </Text>
  );
}
