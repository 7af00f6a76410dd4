import { Injectable } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ClientStatus } from '../client.entity.js';
import { selectionWhere, type ClientFilter } from '../client-list.repository.js';
import { readNumber, readTimestamp } from '../sql.js';

export interface BulkJobRow {
  id: string;
  action: string;
  params: Record<string, unknown>;
  userId: string | null;
  total: number;
  done: number;
  changed: number;
  nodeIds: string[];
  nodesBumpedAt: Date | null;
  startedAt: Date;
  finishedAt: Date | null;
  error: string | null;
}

/** The columns of a chunk's clients that the actions read. */
export interface ChunkClient {
  id: string;
  status: ClientStatus;
  quotaBytes: number;
  usedBytes: number;
  expiresAt: Date | null;
  startOnFirstUse: boolean;
  activatedAt: Date | null;
}

/** A client's new values, written by `writeClients` (absent: unchanged). */
export interface ClientWrite {
  id: string;
  status: ClientStatus;
  quotaBytes?: number;
  expiresAt?: Date | null;
}

/**
 * SQL of bulk jobs: their records, the clients each selected (fixed at enqueue time through the
 * clients' one filter, `selectionWhere`), and the set-based writes of a chunk. Raw SQL on purpose:
 * a job writes thousands of rows a statement (jsonb_to_recordset), which the typed builders spell
 * as one parameter per value.
 */
@Injectable()
export class BulkJobsRepository {
  /** Records the job and the clients the filter selects now; returns how many. */
  async create(
    em: EntityManager,
    job: { id: string; action: string; params: Record<string, unknown>; userId: string | null; startedAt: Date },
    filter: ClientFilter,
  ): Promise<number> {
    const { where, values } = selectionWhere(filter);
    const inserted = await em.execute<{ client_id: string }[]>(
      `insert into client_bulk_items (job_id, client_id) select ?::uuid, c.id from clients c where ${where} returning client_id`,
      [job.id, ...values],
    );
    await em.execute(
      `insert into client_bulk_jobs (id, action, params, user_id, total, done, changed, node_ids, started_at)
       values (?, ?, ?::jsonb, ?, ?, 0, 0, '{}', ?)`,
      [job.id, job.action, JSON.stringify(job.params), job.userId, inserted.length, job.startedAt.toISOString()],
    );
    return inserted.length;
  }

  /** A job that was never enqueued: its record and selection go, so nothing claims a job that will not run. */
  async discard(em: EntityManager, id: string): Promise<void> {
    await em.execute(`delete from client_bulk_items where job_id = ?`, [id]);
    await em.execute(`delete from client_bulk_jobs where id = ?`, [id]);
  }

  /**
   * What a reseller's ceilings are checked against, over the job's selection: the largest limited
   * quota (0: none), and the latest expiry an extension from it would move (started clients only).
   */
  async selectionExtremes(
    em: EntityManager,
    jobId: string,
  ): Promise<{ largestQuota: number; latestExpiry: Date | null }> {
    const [row] = await em.execute<{ quota: string | null; expiry: unknown }[]>(
      `select max(c.quota_bytes) filter (where c.quota_bytes > 0) as quota,
              max(c.expires_at) filter (where not (c.start_on_first_use and c.activated_at is null)) as expiry
         from client_bulk_items b join clients c on c.id = b.client_id where b.job_id = ?`,
      [jobId],
    );
    return { largestQuota: row.quota === null ? 0 : readNumber(row.quota), latestExpiry: readTimestamp(row.expiry) };
  }

  async find(em: EntityManager, id: string): Promise<BulkJobRow | undefined> {
    const [row] = await em.execute<Record<string, unknown>[]>(`select * from client_bulk_jobs where id = ?`, [id]);
    return row ? toRow(row) : undefined;
  }

  /** Jobs not finished, oldest first (the sweep looks for ones whose queue job is gone). */
  async unfinished(em: EntityManager): Promise<BulkJobRow[]> {
    const rows = await em.execute<Record<string, unknown>[]>(
      `select * from client_bulk_jobs where finished_at is null order by started_at`,
    );
    return rows.map(toRow);
  }

  /** The next clients not done, locked with their rows in id order (the order every writer locks in). */
  async nextChunk(em: EntityManager, jobId: string, size: number): Promise<string[]> {
    const rows = await em.execute<{ client_id: string }[]>(
      `select client_id from client_bulk_items where job_id = ? and done_at is null order by client_id limit ${chunkSize(size)} for update`,
      [jobId],
    );
    return rows.map((row) => row.client_id);
  }

  /** The chunk's clients that still exist, locked. */
  async lockClients(em: EntityManager, ids: readonly string[]): Promise<ChunkClient[]> {
    if (ids.length === 0) return [];
    const rows = await em.execute<Record<string, unknown>[]>(
      `select id, status, quota_bytes, used_bytes, expires_at, start_on_first_use, activated_at
         from clients where id = any(array[?]::uuid[]) order by id for update`,
      [ids],
    );
    return rows.map((row) => ({
      id: row.id as string,
      status: row.status as ClientStatus,
      quotaBytes: readNumber(row.quota_bytes),
      usedBytes: readNumber(row.used_bytes),
      expiresAt: readTimestamp(row.expires_at),
      startOnFirstUse: row.start_on_first_use === true,
      activatedAt: readTimestamp(row.activated_at),
    }));
  }

  /** Writes the clients' new status (and quota, expiry where given) in one statement. */
  async writeClients(em: EntityManager, writes: readonly ClientWrite[], now: Date): Promise<void> {
    if (writes.length === 0) return;
    const rows = writes.map((write) => ({
      id: write.id,
      status: write.status,
      quota_bytes: write.quotaBytes ?? null,
      set_quota: write.quotaBytes !== undefined,
      expires_at: write.expiresAt === undefined || write.expiresAt === null ? null : write.expiresAt.toISOString(),
      set_expiry: write.expiresAt !== undefined,
    }));
    await em.execute(
      `update clients c set status = v.status,
              quota_bytes = case when v.set_quota then v.quota_bytes else c.quota_bytes end,
              expires_at = case when v.set_expiry then v.expires_at else c.expires_at end,
              updated_at = ?::timestamptz
         from jsonb_to_recordset(?::jsonb) as v(id uuid, status text, quota_bytes int8, set_quota boolean, expires_at timestamptz, set_expiry boolean)
        where c.id = v.id`,
      [now.toISOString(), JSON.stringify(rows)],
    );
  }

  /** Zeroes the traffic of these clients, their devices and accounts; stamps lastResetAt. */
  async resetTraffic(em: EntityManager, ids: readonly string[], now: Date): Promise<void> {
    if (ids.length === 0) return;
    await em.execute(
      `update accounts set up_bytes = 0, down_bytes = 0
        where device_id in (select id from devices where client_id = any(array[?]::uuid[]))`,
      [ids],
    );
    await em.execute(`update devices set up_bytes = 0, down_bytes = 0 where client_id = any(array[?]::uuid[])`, [ids]);
    await em.execute(
      `update clients set used_bytes = 0, up_bytes = 0, down_bytes = 0, last_reset_at = ?::timestamptz where id = any(array[?]::uuid[])`,
      [now.toISOString(), ids],
    );
  }

  /** Devices, accounts and interface links go with them (on delete cascade). */
  async deleteClients(em: EntityManager, ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const rows = await em.execute<{ id: string }[]>(
      `delete from clients where id = any(array[?]::uuid[]) returning id`,
      [ids],
    );
    return rows.length;
  }

  /** [client, interface] pairs among these clients and interfaces that exist now. */
  async attachments(
    em: EntityManager,
    clientIds: readonly string[],
    interfaceIds: readonly string[],
  ): Promise<{ clientId: string; interfaceId: string }[]> {
    if (clientIds.length === 0 || interfaceIds.length === 0) return [];
    const rows = await em.execute<{ client_id: string; interface_id: string }[]>(
      `select client_id, interface_id from client_interfaces
        where client_id = any(array[?]::uuid[]) and interface_id = any(array[?]::uuid[])`,
      [clientIds, interfaceIds],
    );
    return rows.map((row) => ({ clientId: row.client_id, interfaceId: row.interface_id }));
  }

  /** Device ids of these clients. */
  async devicesOf(em: EntityManager, clientIds: readonly string[]): Promise<string[]> {
    if (clientIds.length === 0) return [];
    const rows = await em.execute<{ id: string }[]>(
      `select id from devices where client_id = any(array[?]::uuid[]) order by id`,
      [clientIds],
    );
    return rows.map((row) => row.id);
  }

  async attach(em: EntityManager, clientIds: readonly string[], interfaceId: string): Promise<void> {
    if (clientIds.length === 0) return;
    await em.execute(
      `insert into client_interfaces (client_id, interface_id) select unnest(array[?]::uuid[]), ?::uuid`,
      [clientIds, interfaceId],
    );
  }

  /** Drops these clients' accounts on and links to these interfaces; returns how many links went. */
  async detach(em: EntityManager, clientIds: readonly string[], interfaceIds: readonly string[]): Promise<number> {
    if (clientIds.length === 0 || interfaceIds.length === 0) return 0;
    await em.execute(
      `delete from accounts where interface_id = any(array[?]::uuid[])
          and device_id in (select id from devices where client_id = any(array[?]::uuid[]))`,
      [interfaceIds, clientIds],
    );
    const rows = await em.execute<{ client_id: string }[]>(
      `delete from client_interfaces where client_id = any(array[?]::uuid[]) and interface_id = any(array[?]::uuid[])
       returning client_id`,
      [clientIds, interfaceIds],
    );
    return new Set(rows.map((row) => row.client_id)).size;
  }

  /** Marks the chunk done and adds its counts and nodes to the job, in the chunk's transaction. */
  async chunkDone(
    em: EntityManager,
    jobId: string,
    ids: readonly string[],
    outcome: { changed: number; nodes: readonly string[]; ceilingSkipped?: number },
    now: Date,
  ): Promise<{ done: number; total: number }> {
    const { changed, nodes: nodeIds, ceilingSkipped = 0 } = outcome;
    await em.execute(
      `update client_bulk_items set done_at = ?::timestamptz where job_id = ? and client_id = any(array[?]::uuid[])`,
      [now.toISOString(), jobId, ids],
    );
    const [row] = await em.execute<{ done: number; total: number }[]>(
      `update client_bulk_jobs set done = done + ?, changed = changed + ?,
              node_ids = array(select distinct unnest(node_ids || array[?]::text[]) order by 1),
              params = case when ?::int > 0 then jsonb_set(params, '{ceilingSkipped}',
                         to_jsonb(coalesce((params->>'ceilingSkipped')::int, 0) + ?::int)) else params end
        where id = ? returning done, total`,
      [ids.length, changed, nodeIds, ceilingSkipped, ceilingSkipped, jobId],
    );
    return { done: readNumber(row.done), total: readNumber(row.total) };
  }

  /**
   * Ends the job once: records the outcome and drops its item list. Returns the nodes to bump, or
   * none when an earlier end already did (a retried end, a sweep racing the worker).
   */
  async finish(em: EntityManager, jobId: string, error: string | null, now: Date): Promise<string[] | null> {
    const [row] = await em.execute<{ node_ids: string[] }[]>(
      `update client_bulk_jobs set finished_at = ?::timestamptz, nodes_bumped_at = ?::timestamptz, error = ?
        where id = ? and finished_at is null returning node_ids`,
      [now.toISOString(), now.toISOString(), error === null ? null : error.slice(0, 1024), jobId],
    );
    if (!row) return null;
    await em.execute(`delete from client_bulk_items where job_id = ?`, [jobId]);
    return row.node_ids;
  }

  /** Interfaces that exist among these, with their nodes. */
  async interfaceNodes(em: EntityManager, interfaceIds: readonly string[]): Promise<Map<string, string>> {
    if (interfaceIds.length === 0) return new Map();
    const rows = await em.execute<{ id: string; node_id: string }[]>(
      `select id, node_id from interfaces where id = any(array[?]::uuid[])`,
      [interfaceIds],
    );
    return new Map(rows.map((row) => [row.id, row.node_id]));
  }

  /**
   * How many selected clients an interface change would leave outside 1..`max` interfaces:
   * attaching past the cap, or detaching every interface a client has.
   */
  async interfaceCountViolations(
    em: EntityManager,
    jobId: string,
    interfaceIds: readonly string[],
    mode: 'attach' | 'detach',
    max: number,
  ): Promise<number> {
    const after =
      mode === 'attach'
        ? `(select count(*) from (select interface_id from client_interfaces ci where ci.client_id = b.client_id
              union select unnest(array[?]::uuid[])) s)`
        : `(select count(*) from client_interfaces ci where ci.client_id = b.client_id
              and ci.interface_id <> all(array[?]::uuid[]))`;
    const [row] = await em.execute<{ n: string }[]>(
      `select count(*) as n from client_bulk_items b where b.job_id = ? and ${mode === 'attach' ? `${after} > ?` : `${after} < ?`}`,
      [jobId, interfaceIds, mode === 'attach' ? max : 1],
    );
    return readNumber(row.n);
  }
}

function chunkSize(size: number): number {
  if (!Number.isSafeInteger(size) || size < 1) throw new Error(`chunk size must be a positive integer, got ${size}`);
  return size;
}

function toRow(row: Record<string, unknown>): BulkJobRow {
  return {
    id: row.id as string,
    action: row.action as string,
    params: (typeof row.params === 'string' ? JSON.parse(row.params) : row.params) as Record<string, unknown>,
    userId: (row.user_id as string | null) ?? null,
    total: readNumber(row.total),
    done: readNumber(row.done),
    changed: readNumber(row.changed),
    nodeIds: (row.node_ids as string[]) ?? [],
    nodesBumpedAt: readTimestamp(row.nodes_bumped_at),
    startedAt: readTimestamp(row.started_at)!,
    finishedAt: readTimestamp(row.finished_at),
    error: (row.error as string | null) ?? null,
  };
}
