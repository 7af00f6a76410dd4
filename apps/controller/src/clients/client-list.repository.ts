import { Injectable } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ClientStatus } from './client.entity.js';
import type { ClientCursor } from './client-cursor.js';
import { CLIENT_VIEW_COLUMNS, toClientView, type ClientRow, type ClientView } from './client-view.js';
import type { ClientSort } from './dto/client.dto.js';
import { likeContains, readNumber } from './sql.js';

export interface ClientFilter {
  search?: string;
  status?: ClientStatus;
  group?: string;
  interfaceId?: string;
}

/** A page either by offset or after a cursor's row. */
export type PagePosition = { offset: number } | { after: ClientCursor };

export interface ListedPage {
  items: ClientView[];
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
}
const ORDERS: Record<ClientSort, SortOrder> = {
  newest: { key: 'c.created_at', cast: 'timestamptz', direction: 'desc', nullsLast: false },
  oldest: { key: 'c.created_at', cast: 'timestamptz', direction: 'asc', nullsLast: false },
  name: { key: 'c.name', cast: 'text', direction: 'asc', nullsLast: false },
  traffic: { key: 'c.used_bytes', cast: 'int8', direction: 'desc', nullsLast: false },
  remaining: { key: '(case when c.quota_bytes = 0 then null else c.quota_bytes - c.used_bytes end)', cast: 'int8', direction: 'asc', nullsLast: true },
  expiry: { key: 'c.expires_at', cast: 'timestamptz', direction: 'asc', nullsLast: true },
};

function orderBy(order: SortOrder): string {
  return `${order.key} ${order.direction}${order.nullsLast ? ' nulls last' : ''}, c.id ${order.direction}`;
}

/** The rows strictly after the cursor's row in `order`. */
function after(order: SortOrder, cursor: ClientCursor, params: unknown[]): string {
  const cmp = order.direction === 'asc' ? '>' : '<';
  if (!order.nullsLast) {
    params.push(cursor.key, cursor.id);
    return `(${order.key}, c.id) ${cmp} (?::${order.cast}, ?::uuid)`;
  }
  if (cursor.key === null) {
    params.push(cursor.id);
    return `(${order.key} is null and c.id ${cmp} ?::uuid)`;
  }
  params.push(cursor.key, cursor.key, cursor.id);
  return `(${order.key} ${cmp} ?::${order.cast} or ${order.key} is null or (${order.key} = ?::${order.cast} and c.id ${cmp} ?::uuid))`;
}

/**
 * The client list. Raw SQL, measured (docs/clients.md, docs/benchmarks.md): the page's ids come
 * first from one index walk with the filters and order (search uses the trigram index, group the
 * GIN index, status and the orders their btree indexes; a cursor turns the offset into an index
 * seek), then the view columns, whose correlated subqueries run only for the rows shown.
 */
@Injectable()
export class ClientListRepository {
  async page(em: EntityManager, filter: ClientFilter, sort: ClientSort, position: PagePosition, perPage: number): Promise<ListedPage> {
    const order = ORDERS[sort];
    const params: unknown[] = [];
    const where = this.conditions(filter, params);
    if ('after' in position) where.push(after(order, position.after, params));
    const sql = `select ${CLIENT_VIEW_COLUMNS}, ${order.key}::text as sort_key
       from (select c.id from clients c ${where.length ? `where ${where.join(' and ')}` : ''}
              order by ${orderBy(order)} limit ? offset ?) page
       join clients c on c.id = page.id
      order by ${orderBy(order)}`;
    // One row more than the page tells whether another page follows.
    params.push(perPage + 1, 'offset' in position ? position.offset : 0);
    const rows = await em.execute<ClientRow[]>(sql, params);
    const shown = rows.slice(0, perPage);
    const last = shown[shown.length - 1];
    return {
      items: shown.map(toClientView),
      next: rows.length > perPage ? { sort, key: (last.sort_key as string | null) ?? null, id: last.id as string } : null,
    };
  }

  async count(em: EntityManager, filter: ClientFilter): Promise<number> {
    const params: unknown[] = [];
    const where = this.conditions(filter, params);
    const [row] = await em.execute<{ total: string }[]>(
      `select count(*) as total from clients c ${where.length ? `where ${where.join(' and ')}` : ''}`,
      params,
    );
    return readNumber(row.total);
  }

  private conditions(filter: ClientFilter, params: unknown[]): string[] {
    const where: string[] = [];
    if (filter.search) {
      // The expression matches the trigram index clients_search_trgm exactly.
      let condition = `lower(c.name || ' ' || c.note) like lower(?)`;
      params.push(likeContains(filter.search));
      if (/^\d{1,16}$/.test(filter.search) && Number(filter.search) <= Number.MAX_SAFE_INTEGER) {
        condition = `(${condition} or c.telegram_id = ?)`;
        params.push(Number(filter.search));
      }
      where.push(condition);
    }
    if (filter.status) {
      where.push('c.status = ?');
      params.push(filter.status);
    }
    if (filter.group) {
      where.push('c.groups @> array[?]::text[]');
      params.push([filter.group]);
    }
    if (filter.interfaceId) {
      where.push('exists (select 1 from client_interfaces ci where ci.client_id = c.id and ci.interface_id = ?)');
      params.push(filter.interfaceId);
    }
    return where;
  }
}
