import { Injectable } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';

/** The ceilings a reseller works under (null: none) and their pool's account. */
export interface Ceilings {
  maxClients: number | null;
  trafficPoolBytes: number | null;
  maxExpiryDays: number | null;
  maxQuotaBytes: number | null;
  interfaceIds: string[] | null;
  nodeIds: string[] | null;
}

export interface ResellerAccount extends Ceilings {
  poolUsedBytes: number;
  poolResetAt: Date | null;
}

export const NO_CEILINGS: ResellerAccount = {
  maxClients: null,
  trafficPoolBytes: null,
  maxExpiryDays: null,
  maxQuotaBytes: null,
  interfaceIds: null,
  nodeIds: null,
  poolUsedBytes: 0,
  poolResetAt: null,
};

interface Row {
  user_id: string;
  max_clients: number | null;
  traffic_pool_bytes: string | null;
  max_expiry_days: number | null;
  max_quota_bytes: string | null;
  interface_ids: string[] | null;
  node_ids: string[] | null;
  pool_used_bytes: string;
  pool_reset_at: string | Date | null;
}

const COLUMNS = `user_id, max_clients, traffic_pool_bytes, max_expiry_days, max_quota_bytes, interface_ids, node_ids,
  pool_used_bytes, pool_reset_at`;

/** A timestamptz as the driver gives it: a Date, or PostgreSQL's text (`2027-01-01 10:00:00.123+00`). */
function readTimestamp(value: string | Date | null): Date | null {
  if (value === null || value instanceof Date) return value;
  const text = value.replace(' ', 'T');
  return new Date(/[+-]\d\d$/.test(text) ? `${text}:00` : text);
}

const nullableNumber = (value: string | number | null) => (value === null ? null : Number(value));

function account(row: Row | undefined): ResellerAccount {
  if (!row) return { ...NO_CEILINGS };
  return {
    maxClients: row.max_clients,
    trafficPoolBytes: nullableNumber(row.traffic_pool_bytes),
    maxExpiryDays: row.max_expiry_days,
    maxQuotaBytes: nullableNumber(row.max_quota_bytes),
    interfaceIds: row.interface_ids ? [...row.interface_ids] : null,
    nodeIds: row.node_ids ? [...row.node_ids] : null,
    poolUsedBytes: Number(row.pool_used_bytes),
    poolResetAt: readTimestamp(row.pool_reset_at),
  };
}

/**
 * reseller_limits rows, and the counts of a reseller's clients the ceilings are checked against.
 * The clients table belongs to clients/, which sits above this folder: read here by table name.
 */
@Injectable()
export class ResellerLimitsRepository {
  async get(em: EntityManager, userId: string): Promise<ResellerAccount> {
    const [row] = await em.execute<Row[]>(`select ${COLUMNS} from reseller_limits where user_id = ?`, [userId]);
    return account(row);
  }

  async getMany(em: EntityManager, userIds: readonly string[]): Promise<Map<string, ResellerAccount>> {
    if (userIds.length === 0) return new Map();
    const rows = await em.execute<Row[]>(
      `select ${COLUMNS} from reseller_limits where user_id = any(array[?]::uuid[])`,
      [userIds],
    );
    return new Map(rows.map((row) => [row.user_id, account(row)]));
  }

  /**
   * The reseller's row, held until the transaction ends (made first when there is none): every
   * create by one reseller runs one after another, so two creates at the ceiling cannot both count
   * the same room.
   */
  async lock(em: EntityManager, userId: string): Promise<ResellerAccount> {
    await em.execute(
      `insert into reseller_limits (user_id, updated_at) values (?, now()) on conflict (user_id) do nothing`,
      [userId],
    );
    const [row] = await em.execute<Row[]>(`select ${COLUMNS} from reseller_limits where user_id = ? for update`, [
      userId,
    ]);
    return account(row);
  }

  /**
   * As `lock`, for a user who is a reseller now; null for anyone else (no row made): a bulk job's
   * chunk re-checks its starter's ceilings only while they are a reseller.
   */
  async lockIfReseller(em: EntityManager, userId: string): Promise<ResellerAccount | null> {
    const [user] = await em.execute<{ role: string }[]>(`select role from users where id = ?`, [userId]);
    return user?.role === 'reseller' ? this.lock(em, userId) : null;
  }

  /** Replaces the ceilings named in `ceilings` (absent ones stay); the pool's account stays. */
  async setCeilings(em: EntityManager, userId: string, ceilings: Partial<Ceilings>): Promise<void> {
    await this.lock(em, userId);
    const columns: Record<keyof Ceilings, string> = {
      maxClients: 'max_clients',
      trafficPoolBytes: 'traffic_pool_bytes',
      maxExpiryDays: 'max_expiry_days',
      maxQuotaBytes: 'max_quota_bytes',
      interfaceIds: 'interface_ids',
      nodeIds: 'node_ids',
    };
    const sets: string[] = [];
    const params: unknown[] = [];
    for (const [key, column] of Object.entries(columns) as [keyof Ceilings, string][]) {
      const value = ceilings[key];
      if (value === undefined) continue;
      if (Array.isArray(value)) {
        // em.execute inlines an array as a bare list: written as an array constructor (clients/sql.ts).
        sets.push(`${column} = array[?]::text[]`);
        params.push(value);
      } else {
        sets.push(`${column} = ?`);
        params.push(value);
      }
    }
    if (sets.length === 0) return;
    await em.execute(`update reseller_limits set ${sets.join(', ')}, updated_at = now() where user_id = ?`, [
      ...params,
      userId,
    ]);
  }

  /** Starts the pool's account afresh: what the reseller's clients used so far no longer counts. */
  async resetPool(em: EntityManager, userId: string): Promise<void> {
    await this.lock(em, userId);
    await em.execute(
      `update reseller_limits set pool_used_bytes = 0, pool_reset_at = now(), updated_at = now() where user_id = ?`,
      [userId],
    );
  }

  /**
   * Applies the pool to the resellers' clients (docs/operators.md, "The pool"), as an exhausted
   * quota applies to one client: a reseller whose pool is used up has every active client marked
   * `exhausted` (their nodes then drop the peers); with `readmit`, one whose pool has room again
   * has the exhausted clients whose own quota and expiry allow it marked `active` again (a client
   * over its own quota stays exhausted). Only resellers: a former reseller's row is inert. Returns
   * the clients changed and the nodes they are attached to, whose revisions the caller bumps.
   */
  async applyPool(
    em: EntityManager,
    userIds: readonly string[],
    readmit: boolean,
    now: Date,
  ): Promise<{ clients: number; nodeIds: string[] }> {
    if (userIds.length === 0) return { clients: 0, nodeIds: [] };
    const rows = await em.execute<{ id: string; node_ids: string[] | null }[]>(
      `with pool as (
         select r.user_id, r.traffic_pool_bytes is not null and r.pool_used_bytes >= r.traffic_pool_bytes as spent
           from reseller_limits r join users u on u.id = r.user_id and u.role = 'reseller'
          where r.user_id = any(array[?]::uuid[])
       ), target as (
         -- Locked in id order, the order the counters' statement feeds its clients in
         -- (clients/usage.repository.ts), so the two meet in one order more often than not; a
         -- deadlock left (a counter transaction applies a spent pool after its own statement) is
         -- retried by both callers.
         select c.id, pool.spent
           from clients c join pool on c.owner_id = pool.user_id
          where (pool.spent and c.status = 'active')
             or (?::boolean and not pool.spent and c.status = 'exhausted'
                 and (c.quota_bytes = 0 or c.used_bytes < c.quota_bytes)
                 and (c.expires_at is null or c.expires_at > ?::timestamptz))
          order by c.id
            for update of c
       ), changed as (
         update clients c set status = case when target.spent then 'exhausted' else 'active' end, updated_at = ?::timestamptz
           from target
          where c.id = target.id
         returning c.id
       )
       select changed.id, (select array_agg(distinct i.node_id::text) from client_interfaces ci
                             join interfaces i on i.id = ci.interface_id where ci.client_id = changed.id) as node_ids
         from changed`,
      [userIds, readmit, now.toISOString(), now.toISOString()],
    );
    return { clients: rows.length, nodeIds: [...new Set(rows.flatMap((row) => row.node_ids ?? []))] };
  }

  /** How many clients the user owns (under the caller's lock, so a concurrent create is counted). */
  async clientCount(em: EntityManager, userId: string): Promise<number> {
    const [row] = await em.execute<{ count: string }[]>(`select count(*) as count from clients where owner_id = ?`, [
      userId,
    ]);
    return Number(row.count);
  }

  async clientCounts(em: EntityManager, userIds: readonly string[]): Promise<Map<string, number>> {
    if (userIds.length === 0) return new Map();
    const rows = await em.execute<{ owner_id: string; count: string }[]>(
      `select owner_id, count(*) as count from clients where owner_id = any(array[?]::uuid[]) group by owner_id`,
      [userIds],
    );
    return new Map(rows.map((row) => [row.owner_id, Number(row.count)]));
  }

  /** A reseller's clients by status and their traffic: one index range (owner_id leads an index). */
  async clientSummary(em: EntityManager, ownerId: string): Promise<OwnClients> {
    const rows = await em.execute<{ status: string; count: string; used: string; up: string; down: string }[]>(
      `select status, count(*) as count, coalesce(sum(used_bytes), 0)::text as used,
              coalesce(sum(up_bytes), 0)::text as up, coalesce(sum(down_bytes), 0)::text as down
         from clients where owner_id = ? group by status`,
      [ownerId],
    );
    const summary: OwnClients = {
      byStatus: {},
      usage: { usedBytes: 0, upBytes: 0, downBytes: 0 },
    };
    for (const row of rows) {
      summary.byStatus[row.status] = Number(row.count);
      summary.usage.usedBytes += Number(row.used);
      summary.usage.upBytes += Number(row.up);
      summary.usage.downBytes += Number(row.down);
    }
    return summary;
  }

  /**
   * The interfaces a reseller may attach clients to (their ceilings' interfaces and nodes; every
   * interface without either), by name: what their create form offers. Read by table name
   * (interfaces/ is not below this folder's users).
   */
  async allowedInterfaces(
    em: EntityManager,
    account: Pick<Ceilings, 'interfaceIds' | 'nodeIds'>,
  ): Promise<{ id: string; name: string; nodeId: string }[]> {
    const rows = await em.execute<{ id: string; name: string; node_id: string }[]>(
      `select id, name, node_id from interfaces
        where (?::boolean or id::text = any(array[?]::text[])) and (?::boolean or node_id::text = any(array[?]::text[]))
        order by name, id`,
      [account.interfaceIds === null, account.interfaceIds ?? [], account.nodeIds === null, account.nodeIds ?? []],
    );
    return rows.map((row) => ({ id: row.id, name: row.name, nodeId: row.node_id }));
  }
}

/** A reseller's clients counted by status, and their traffic. */
export interface OwnClients {
  byStatus: Record<string, number>;
  usage: { usedBytes: number; upBytes: number; downBytes: number };
}
