import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { PreparedPool } from '../database/prepared-pool.js';
import { PREPARED_POOL } from '../runtime.js';
import { CLIENT_STATUSES, type ClientStatus } from './client.entity.js';
import { forgedCursor, type ClientCursor } from './client-cursor.js';
import { CLIENT_VIEW_COLUMN_NAMES, CLIENT_VIEW_COLUMNS, toClientListItem, type ClientListItem } from './client-view.js';
import { LIST_ROW_TYPES } from './list-row-types.js';
import type { ClientSort } from './dto/client.dto.js';
import { likeContains, readNumber } from './sql.js';

/**
 * What selects clients: the list's query parameters, and what bulk actions add (explicit ids, a
 * status held for a while). Every selection of clients, the list's, `GET /api/clients/ids`' and
 * a bulk job's, is this filter through `conditions` below: the one place an owner's scope joins.
 */
export interface ClientFilter {
  /** Only this operator's clients (a reseller's scope, auth/operator-scope.ts); absent: everyone's. */
  ownerId?: string;
  search?: string;
  status?: ClientStatus;
  group?: string;
  interfaceId?: string;
  /** Only these clients. */
  ids?: readonly string[];
  /** Clients in one of these statuses since before `before` (purge). */
  statusSince?: { statuses: readonly ClientStatus[]; before: Date };
}

/** PostgreSQL's codes for a value it cannot read as its type: bad date/time, out of range, bad text. */
const UNREADABLE_VALUE = new Set(['22007', '22008', '22003', '22009', '22P02']);

/** A page either by offset or after a cursor's row. */
export type PagePosition = { offset: number } | { after: ClientCursor };

export interface ListedPage {
  items: ClientListItem[];
  /** Where the next page starts, when more rows follow. */
  next: ClientCursor | null;
}

/**
 * Every order ends in the unique id, so pages never overlap or skip a row, and each is a keyset:
 * `key` is the sort value, `direction` its order, `nullsLast` whether rows without it come last.
 */
interface SortOrder {
  key: string;
  cast: string;
  direction: 'asc' | 'desc';
  nullsLast: boolean;
  /**
   * A stored column that never decreases as (key, id) grows, indexed with id, that leads the
   * order when the key itself has no index (one the counter batches would rewrite every time):
   * the index walk gives the rows in steps and PostgreSQL's incremental sort orders each step.
   * `of` is the step of a cursor's (key, id), the column's generated expression over them;
   * `singleKey`: whether a cursor's key has steps of its own, each holding only that key.
   */
  step?: { column: string; of: (key: string, id: string) => string; singleKey?: (key: string | null) => boolean };
}

/**
 * The step of used_bytes (Migration20261127140200_counter_batches, clients.used_step), over a
 * cursor's values: no traffic splits by the id's first two bytes, traffic counts 1/16 doublings.
 * (`greatest` only keeps the planner from folding ln(0) in the arm a key of 0 never takes.)
 */
function usedStepOf(key: string, id: string): string {
  return `(case when ${key} <= 0 then get_byte(uuid_send(${id}), 0) * 256 + get_byte(uuid_send(${id}), 1) - 65536
            else 1 + floor(ln(greatest(${key}, 1)::float8) * 23.083120654223414)::int end)`;
}

/**
 * The step of the remaining key (Migration20261127170100_remaining_step, clients.remaining_step),
 * over a cursor's values: ⌊key / 1 GiB⌋ in the high bits; a whole number of GiB split by the id's
 * top 12 bits; otherwise 1/64 doublings of the key (of −key over quota); no key (unlimited) after
 * every finite step, split by the id's first two bytes. (`greatest` as in usedStepOf.)
 */
function remainingStepOf(key: string, id: string): string {
  return `(case when ${key} is null then 4503599627370496 + get_byte(uuid_send(${id}), 0) * 256 + get_byte(uuid_send(${id}), 1)
            else (${key} >> 30) * 65536 + case
              when ${key} & 1073741823 = 0 then get_byte(uuid_send(${id}), 0) * 16 + get_byte(uuid_send(${id}), 1) / 16
              when ${key} > 0 then 4096 + floor(ln(greatest(${key}, 1)::float8) * 92.33248261689366)::int
              else 8128 - floor(ln(greatest(-${key}, 1)::float8) * 92.33248261689366)::int end end)`;
}

/** A whole number of GiB, or no key at all: remainingStepOf gives such a key steps of its own. */
function isWholeGibOrNone(key: string | null): boolean {
  return key === null || BigInt(key) % 1073741824n === 0n;
}
const ORDERS: Record<ClientSort, SortOrder> = {
  newest: { key: 'c.created_at', cast: 'timestamptz', direction: 'desc', nullsLast: false },
  oldest: { key: 'c.created_at', cast: 'timestamptz', direction: 'asc', nullsLast: false },
  name: { key: 'c.name', cast: 'text', direction: 'asc', nullsLast: false },
  traffic: {
    key: 'c.used_bytes',
    cast: 'int8',
    direction: 'desc',
    nullsLast: false,
    step: { column: 'c.used_step', of: usedStepOf, singleKey: (key) => Number(key) <= 0 },
  },
  remaining: {
    key: '(case when c.quota_bytes = 0 then null else c.quota_bytes - c.used_bytes end)',
    cast: 'int8',
    direction: 'asc',
    nullsLast: true,
    step: { column: 'c.remaining_step', of: remainingStepOf, singleKey: isWholeGibOrNone },
  },
  expiry: { key: 'c.expires_at', cast: 'timestamptz', direction: 'asc', nullsLast: true },
};

function orderBy(order: SortOrder): string {
  const step = order.step ? `${order.step.column} ${order.direction}, ` : '';
  return `${step}${order.key} ${order.direction}${order.nullsLast ? ' nulls last' : ''}, c.id ${order.direction}`;
}

/**
 * Statement parameters: `add` returns the placeholder of the value it appends: `$n` for
 * node-postgres, `?` for MikroORM's `em.execute` (which inlines them in order).
 */
class Params {
  readonly values: unknown[] = [];
  constructor(readonly style: 'dollar' | 'question' = 'dollar') {}
  add(value: unknown): string {
    this.values.push(value);
    return this.style === 'dollar' ? `$${this.values.length}` : '?';
  }
}

/**
 * The filter as a `where` clause over `clients c` (`true` when it selects every client), with
 * `?` parameters for `em.execute`, so a statement in a transaction can select by it (bulk jobs).
 * MikroORM inlines an array parameter as a bare list, hence the `array[?]` forms below.
 */
export function selectionWhere(filter: ClientFilter): { where: string; values: unknown[] } {
  const params = new Params('question');
  const where = conditions(filter, params);
  return { where: where.length ? where.join(' and ') : 'true', values: params.values };
}

/** The rows strictly after the cursor's row in `order`. */
function after(order: SortOrder, cursor: ClientCursor, params: Params): string {
  const cmp = order.direction === 'asc' ? '>' : '<';
  if (order.step) {
    const key = `${params.add(cursor.key)}::${order.cast}`;
    const id = `${params.add(cursor.id)}::uuid`;
    // Where a step holds one key (traffic: no traffic; remaining: whole GiB, unlimited), the
    // order is (step, id) alone: one index range, as a row comparison on the index's columns.
    if (order.step.singleKey?.(cursor.key))
      return `(${order.step.column}, c.id) ${cmp} (${order.step.of(key, id)}, ${id})`;
    // The step bound makes the page an index range; the row comparison keeps it exact. Rows
    // without a key come after every key (their steps too), where the comparison cannot tell.
    const keyless = order.nullsLast ? ` or ${order.key} is null` : '';
    return `${order.step.column} ${cmp}= ${order.step.of(key, id)} and ((${order.key}, c.id) ${cmp} (${key}, ${id})${keyless})`;
  }
  if (!order.nullsLast)
    return `(${order.key}, c.id) ${cmp} (${params.add(cursor.key)}::${order.cast}, ${params.add(cursor.id)}::uuid)`;
  if (cursor.key === null) return `(${order.key} is null and c.id ${cmp} ${params.add(cursor.id)}::uuid)`;
  const key = `${params.add(cursor.key)}::${order.cast}`;
  return `(${order.key} ${cmp} ${key} or ${order.key} is null or (${order.key} = ${key} and c.id ${cmp} ${params.add(cursor.id)}::uuid))`;
}

/**
 * A statement name per query text: a list has a few dozen shapes (filters present, sort, offset
 * or cursor), each parsed and planned once per connection instead of on every request.
 */
function statementName(text: string): string {
  return `clients_list_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
}

/**
 * The client list. Raw SQL on the prepared pool, measured (docs/clients.md, docs/benchmarks.md).
 * As named prepared statements PostgreSQL skips parsing, and planning too once it settles on the
 * statement's generic plan: so the page size is written into the text (perPage + 1, one of 200
 * integers) and a zero offset is left out, since a `limit $n` or `offset $n` makes PostgreSQL
 * plan for a tenth of the table (a hash join over a sequential scan) and keep re-planning every
 * execution instead (EXPLAIN on 100,000 clients: 0.9 ms of backend CPU per first page before,
 * ~0.35 ms after). A page that skips no rows (the first, or one after a cursor) is one index walk
 * with the filters and order (search uses the trigram index, group the GIN index, status and the
 * orders their btree indexes; a cursor is an index seek); the view's correlated subqueries run
 * only for the rows the limit keeps (after the sort when there is one). A page by offset picks
 * its ids first and joins the view columns to those rows only, so skipped rows cost no subqueries.
 */
@Injectable()
export class ClientListRepository {
  constructor(@Inject(PREPARED_POOL) private readonly prepared: PreparedPool) {}

  async page(filter: ClientFilter, sort: ClientSort, position: PagePosition, perPage: number): Promise<ListedPage> {
    const order = ORDERS[sort];
    const params = new Params();
    const where = conditions(filter, params);
    if ('after' in position) where.push(after(order, position.after, params));
    // One row more than the page tells whether another page follows.
    const limit = rowLimit(perPage + 1);
    const selected = where.length ? `where ${where.join(' and ')}` : '';
    // A rare group's rows come from the groups' GIN index, behind an `offset 0` fence so the order's
    // index cannot lead: walking it would read every client before finding none of a group nobody has.
    const filtered =
      filter.group !== undefined && (await this.isRareGroup(filter.group, limit))
        ? `from (select * from clients c ${selected} offset 0) c`
        : `from clients c ${selected}`;
    const skip = 'offset' in position ? position.offset : 0;
    const text =
      skip === 0
        ? `select ${CLIENT_VIEW_COLUMNS}, ${order.key}::text as sort_key ${filtered} order by ${orderBy(order)} limit ${limit}`
        : `select ${CLIENT_VIEW_COLUMNS}, ${order.key}::text as sort_key
       from (select c.id ${filtered} order by ${orderBy(order)} limit ${limit} offset ${params.add(skip)}) page
       join clients c on c.id = page.id
      order by ${orderBy(order)}`;
    // Array rows: node-postgres then makes no object per row (~17 µs less per 51-row page).
    const { rows, columns } = await this.prepared
      .queryArrays(statementName(text), text, params.values, LIST_ROW_TYPES)
      .catch((error: unknown) => {
        // A cursor's key has the right shape but names no value of its type (February 30, beyond
        // int8): only PostgreSQL can tell, and then it was not a key this list handed out.
        if ('after' in position && UNREADABLE_VALUE.has((error as { code?: string }).code ?? '')) throw forgedCursor();
        throw error;
      });
    checkColumns(columns);
    const shown = rows.slice(0, perPage);
    const last = shown[shown.length - 1];
    return {
      items: shown.map(toClientListItem),
      next:
        rows.length > perPage ? { sort, key: (last[SORT_KEY] as string | null) ?? null, id: last[ID] as string } : null,
    };
  }

  /**
   * The filter's total. When status is all it selects by (an operator's whole list, or one
   * status) the total is the inventory counters' (Migration20261125110000_inventory_counters:
   * kept by the database's own triggers, exact in the statement's snapshot): 0.1 ms instead of
   * counting every row (EXPLAIN ANALYZE at 1,000,000 clients: docs/benchmarks.md, "Clients:
   * 1,000,000"). A group or an interface alone is its list counter's (listCount). Any other
   * filter counts its rows.
   */
  async count(filter: ClientFilter): Promise<number> {
    const counter = listCounter(filter);
    if (counter) return this.listCount(counter);
    const statuses = countedStatuses(filter);
    if (statuses) {
      const [row] = await this.prepared.query<{ total: string }>(
        'clients_list_counted_total',
        `select coalesce(sum(v), 0)::text as total from (
           select value as v from inventory_counts where bucket = 0 and counter = any($1::text[])
           union all select delta from inventory_deltas where bucket = 0 and counter = any($1::text[])) x`,
        [statuses.map((status) => `clients.${status}`)],
      );
      return readNumber(row.total);
    }
    const params = new Params();
    const where = conditions(filter, params);
    const text = `select count(*) as total from clients c ${where.length ? `where ${where.join(' and ')}` : ''}`;
    const [row] = await this.prepared.query<{ total: string }>(statementName(text), text, params.values);
    return readNumber(row.total);
  }

  /**
   * A list counter (Migration20261127140000_client_scale, bucket -1): `group:<name>` or
   * `interface:<id>`, kept by the database's triggers like the inventory counters, exact in the
   * statement's snapshot. 1-6 ms where counting a group's or an interface's rows read them all
   * (0.6-3.8 s at 1,000,000 clients: docs/benchmarks.md, "the leftovers at 1,000,000").
   */
  private async listCount(counter: string): Promise<number> {
    const [row] = await this.prepared.query<{ total: string }>(
      'clients_list_kept_total',
      `select coalesce(sum(v), 0)::text as total from (
         select value as v from inventory_counts where bucket = -1 and counter = $1
         union all select delta from inventory_deltas where bucket = -1 and counter = $1) x`,
      [counter],
    );
    return readNumber(row.total);
  }

  /**
   * Whether a page of this group is cheaper from the groups' GIN index (reading its m members,
   * then sorting them) than walking the order's index until `limit` members turn up (about
   * limit × clients / m rows): when m² < limit × clients. At 1,000,000 clients and 51 rows, a
   * group of fewer than ~7,000 clients.
   */
  private async isRareGroup(group: string, limit: number): Promise<boolean> {
    const [row] = await this.prepared.query<{ members: string; clients: string }>(
      'clients_list_group_size',
      `select (select coalesce(sum(v), 0) from (
                 select value as v from inventory_counts where bucket = -1 and counter = $1
                 union all select delta from inventory_deltas where bucket = -1 and counter = $1) g)::text as members,
              (select coalesce(sum(v), 0) from (
                 select value as v from inventory_counts where bucket = 0 and counter like 'clients.%'
                 union all select delta from inventory_deltas where bucket = 0 and counter like 'clients.%') c)::text as clients`,
      [`group:${group}`],
    );
    const members = readNumber(row.members);
    return members * members < limit * readNumber(row.clients);
  }

  /** The ids of every client the filter selects, in id order. */
  async ids(filter: ClientFilter): Promise<string[]> {
    const params = new Params();
    const where = conditions(filter, params);
    const text = `select c.id from clients c ${where.length ? `where ${where.join(' and ')}` : ''} order by c.id`;
    const { rows } = await this.prepared.queryArrays(statementName(text), text, params.values);
    return rows.map((row) => row[0] as string);
  }
}

const LIST_COLUMNS = [...CLIENT_VIEW_COLUMN_NAMES, 'sort_key'];
const SORT_KEY = LIST_COLUMNS.length - 1;
const ID = LIST_COLUMNS.indexOf('id');

/** toClientListItem reads the columns by position: they must come in CLIENT_VIEW_COLUMN_NAMES order. */
function checkColumns(columns: string[]): void {
  if (columns.length !== LIST_COLUMNS.length || columns.some((name, index) => name !== LIST_COLUMNS[index])) {
    throw new Error(`client list: columns ${columns.join(', ')} are not ${LIST_COLUMNS.join(', ')}`);
  }
}

/** A row count written into the statement text: only ever a whole number in range. */
function rowLimit(count: number): number {
  if (!Number.isSafeInteger(count) || count < 1) throw new Error(`row limit must be a positive integer, got ${count}`);
  return count;
}

/** The list counter that holds the filter's total: a group's or an interface's, when it selects by that alone. */
function listCounter(filter: ClientFilter): string | undefined {
  const { group, interfaceId, ...others } = filter;
  if (Object.values(others).some((value) => value !== undefined)) return undefined;
  if (group !== undefined && interfaceId === undefined) return `group:${group}`;
  if (interfaceId !== undefined && group === undefined) return `interface:${interfaceId.toLowerCase()}`;
  return undefined;
}

/** The statuses whose counters add up to the filter's total, when it selects by status alone. */
function countedStatuses(filter: ClientFilter): readonly ClientStatus[] | undefined {
  const { status, ...others } = filter;
  if (Object.values(others).some((value) => value !== undefined)) return undefined;
  return status ? [status] : CLIENT_STATUSES;
}

function conditions(filter: ClientFilter, params: Params): string[] {
  const where: string[] = [];
  // First, so the (owner_id, created_at, id) index leads a reseller's newest-first page.
  if (filter.ownerId !== undefined) where.push(`c.owner_id = ${params.add(filter.ownerId)}::uuid`);
  if (filter.search) {
    // The expression matches the trigram index clients_search_trgm exactly.
    let condition = `lower(c.name || ' ' || c.note) like lower(${params.add(likeContains(filter.search))})`;
    if (/^\d{1,16}$/.test(filter.search) && Number(filter.search) <= Number.MAX_SAFE_INTEGER) {
      condition = `(${condition} or c.telegram_id = ${params.add(Number(filter.search))})`;
    }
    where.push(condition);
  }
  if (filter.status) where.push(`c.status = ${params.add(filter.status)}`);
  if (filter.group) where.push(`c.groups @> array[${params.add(filter.group)}::text]`);
  if (filter.ids) {
    const list = params.add(filter.ids);
    where.push(params.style === 'dollar' ? `c.id = any(${list}::uuid[])` : `c.id = any(array[${list}]::uuid[])`);
  }
  if (filter.statusSince) {
    const { statuses, before } = filter.statusSince;
    const list = params.add(statuses);
    where.push(
      `${params.style === 'dollar' ? `c.status = any(${list}::text[])` : `c.status = any(array[${list}]::text[])`}` +
        // A client whose status never changed since the trigger existed holds it since its last change.
        ` and coalesce(c.status_changed_at, c.updated_at) < ${params.add(before.toISOString())}::timestamptz`,
    );
  }
  if (filter.interfaceId) {
    where.push(
      `exists (select 1 from client_interfaces ci where ci.client_id = c.id and ci.interface_id = ${params.add(filter.interfaceId)}::uuid)`,
    );
  }
  return where;
}
