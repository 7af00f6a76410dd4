import { Injectable } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { PeerCounters } from '#libs/contracts/agent-link.js';
import type { ClientStatus } from './client.entity.js';
import { kysely } from './clients-db.js';
import { readNumber, readTimestamp } from './sql.js';
import { FIVE_MINUTES } from './usage-tiers.js';

/** The most bytes a total holds (2^53 - 1, exact as a JSON number); counting stops there. */
const MAX_BYTES = Number.MAX_SAFE_INTEGER;

/** A client whose counters a batch raised, with what the status rules need. */
export interface CountedClient {
  id: string;
  status: ClientStatus;
  quotaBytes: number;
  usedBytes: number;
  expiresAt: Date | null;
  startOnFirstUse: boolean;
  activatedAt: Date | null;
  durationSeconds: number;
  /** The latest handshake among the batch's peers of this client, or null. */
  handshake: Date | null;
  /** Peers of the batch that matched an account of this client. */
  matched: number;
  /** What a counter batch added and who the client is: the quota crossings' facts (quota-crossings.ts). */
  batch?: { addedBytes: number; name: string; ownerId: string; telegramId: string | null; lastResetAt: Date | null };
}

/** A client a counter batch counted bytes for, with its owner (whose reseller pool the bytes count against). */
export interface CountedOwnedClient extends CountedClient {
  ownerId: string;
  /** The owner is a reseller whose traffic pool is used up, these bytes counted (docs/operators.md, "The pool"). */
  poolSpent: boolean;
}

export interface StatusChange {
  id: string;
  status: ClientStatus;
  activatedAt: Date | null;
  expiresAt: Date | null;
}

/** What a counter batch writes besides the totals. */
export interface BatchRecord {
  /**
   * The 5-minute bucket the batch's bytes are added to, per client and for the node (usage
   * history); absent: no history written (WARREN_USAGE_HISTORY=off, the bench's baseline).
   */
  bucket?: Date;
  /**
   * The seconds between the agent's reading before this batch and this batch's: each peer's rate
   * is its bytes over them, holding until `rateUntil`. Absent: the rates are left as they are.
   */
  rate?: { seconds: number; until: Date };
}

/**
 * The accounts' rate columns for a batch. `seconds` is a finite positive number the service
 * computed, so it is written into the statement; the time travels as a parameter.
 */
function rateColumns(record: BatchRecord): { set: string; params: unknown[] } {
  if (!record.rate) return { set: '', params: [] };
  const seconds = record.rate.seconds;
  if (!(Number.isFinite(seconds) && seconds > 0)) throw new Error(`a rate needs a positive interval, got ${seconds}`);
  return {
    set: `,
                up_rate = round(hit.rx / ${seconds}::float8)::bigint, down_rate = round(hit.tx / ${seconds}::float8)::bigint,
                rate_until = ?::timestamptz`,
    params: [record.rate.until.toISOString()],
  };
}

/**
 * The usage history's writes for a batch: each client's bytes added to its current 5-minute
 * row, and the node's sum to the node's row, in the same statement as the totals: the history
 * counts a batch exactly when the totals do. One upsert per client and bucket, not a row per
 * report; only the byte columns change, and no index holds them, so the update is HOT.
 */
function historyWrites(nodeId: string, record: BatchRecord): { sql: string; params: unknown[] } {
  if (!record.bucket) return { sql: '', params: [] };
  const at = record.bucket.toISOString();
  return {
    sql: `, client_history as (
         insert into client_usage_history as h (client_id, tier, at, up_bytes, down_bytes)
         select id, ${FIVE_MINUTES.seconds}, ?::timestamptz, rx, tx from cli where rx > 0 or tx > 0
         on conflict (client_id, tier, at) do update
            set up_bytes = least(h.up_bytes + excluded.up_bytes, ${MAX_BYTES}),
                down_bytes = least(h.down_bytes + excluded.down_bytes, ${MAX_BYTES})
       ), node_history as (
         insert into node_usage_history as h (node_id, tier, at, up_bytes, down_bytes)
         select ?::uuid, ${FIVE_MINUTES.seconds}, ?::timestamptz, sum(rx), sum(tx) from cli having sum(rx) + sum(tx) > 0
         on conflict (node_id, tier, at) do update
            set up_bytes = least(h.up_bytes + excluded.up_bytes, ${MAX_BYTES}),
                down_bytes = least(h.down_bytes + excluded.down_bytes, ${MAX_BYTES})
       )`,
    params: [at, nodeId, at],
  };
}

export type BatchClaim =
  { claimed: true } | { claimed: false; repeat: true } | { claimed: false; repeat: false; recorded: number };

/** Traffic counters of accounts, devices and clients, and the per-node sequence that makes a batch count once. */
@Injectable()
export class UsageRepository {
  /**
   * Claims sequence number `seq` of the node's counter batches when it is new and at most
   * `window` above the last one recorded. Otherwise says why not: a repeat, or too far ahead
   * (with the last number recorded).
   */
  async claimBatch(em: EntityManager, nodeId: string, seq: number, window: number): Promise<BatchClaim> {
    const rows = await kysely(em)
      .updateTable('node_agents')
      .set({ counters_seq: seq })
      .where('node_id', '=', nodeId)
      .where('counters_seq', '<', seq)
      .where('counters_seq', '>=', seq - window)
      .returning('node_id')
      .execute();
    if (rows.length > 0) return { claimed: true };
    const row = await kysely(em)
      .selectFrom('node_agents')
      .select('counters_seq')
      .where('node_id', '=', nodeId)
      .executeTakeFirst();
    const recorded = row ? readNumber(row.counters_seq) : 0;
    return seq <= recorded ? { claimed: false, repeat: true } : { claimed: false, repeat: false, recorded };
  }

  /**
   * Adds a batch of peer counters to accounts, their devices and clients; returns the clients
   * touched. Raw SQL, measured: one statement for the whole batch (10,000 peers in a few
   * milliseconds), the batch sent as one JSON parameter that jsonb_to_recordset turns back into
   * rows, each level updated from the one below in data-modifying CTEs.
   */
  async addCounters(
    em: EntityManager,
    nodeId: string,
    peers: readonly PeerCounters[],
    record: BatchRecord = {},
  ): Promise<CountedOwnedClient[]> {
    const batch = JSON.stringify(
      peers.map((peer) => ({
        ifname: peer.interface,
        public_key: peer.publicKey,
        rx: peer.rxBytes,
        tx: peer.txBytes,
        handshake: peer.lastHandshake === null ? null : new Date(peer.lastHandshake).toISOString(),
        endpoint: peer.endpoint,
      })),
    );
    const rate = rateColumns(record);
    const history = historyWrites(nodeId, record);
    // Server rx is what the client sent (upload), server tx what it received (download). Totals
    // saturate at MAX_BYTES: they stay exact in JSON, and no node, however many bytes it reports
    // for a client it shares with other nodes, can push the client's totals past bigint and make
    // every later batch of those other nodes fail (sums of a batch are numeric: no overflow there).
    const rows = await em.execute<Record<string, unknown>[]>(
      `with batch as (
         select * from jsonb_to_recordset(?::jsonb)
           as b(ifname text, public_key text, rx bigint, tx bigint, handshake timestamptz, endpoint text)
       ), hit as (
         -- A handshake cannot lie in the future: a stamp past now (a wrong clock, or a node
         -- that lies) would pin its client online, since the newest stamp wins.
         select a.id, b.rx, b.tx, case when b.handshake > now() then now() else b.handshake end as handshake, b.endpoint
           from batch b
           join interfaces i on i.node_id = ? and i.name = b.ifname
           join accounts a on a.interface_id = i.id and a.public_key = b.public_key
       ), acc as (
         update accounts a
            set up_bytes = least(a.up_bytes + hit.rx, ${MAX_BYTES}),
                down_bytes = least(a.down_bytes + hit.tx, ${MAX_BYTES}),
                last_handshake = greatest(a.last_handshake, hit.handshake),
                last_endpoint = coalesce(hit.endpoint, a.last_endpoint)${rate.set}
           from hit where a.id = hit.id
         returning a.device_id, hit.rx, hit.tx, hit.handshake
       ), dev as (
         update devices d
            set up_bytes = least(d.up_bytes + s.rx, ${MAX_BYTES}), down_bytes = least(d.down_bytes + s.tx, ${MAX_BYTES}),
                last_handshake = greatest(d.last_handshake, s.handshake)
           from (select device_id, sum(rx) as rx, sum(tx) as tx, max(handshake) as handshake, count(*) as n
                   from acc group by device_id) s
          where d.id = s.device_id
         returning d.client_id, s.rx, s.tx, s.handshake, s.n
       ), cli as (
         update clients c
            set up_bytes = least(c.up_bytes + s.rx, ${MAX_BYTES}), down_bytes = least(c.down_bytes + s.tx, ${MAX_BYTES}),
                used_bytes = least(c.used_bytes + s.rx + s.tx, ${MAX_BYTES}),
                last_handshake = greatest(c.last_handshake, s.handshake)
           from (select client_id, sum(rx) as rx, sum(tx) as tx, max(handshake) as handshake, sum(n) as n
                   from dev group by client_id) s
          where c.id = s.client_id
         returning c.id, c.owner_id, s.rx + s.tx as bytes, c.status, c.quota_bytes, c.used_bytes, c.expires_at,
                   c.start_on_first_use, c.activated_at, c.duration_seconds, s.handshake, s.n as matched, s.rx, s.tx,
                   c.name, c.telegram_id, c.last_reset_at
       ), pool as (
         -- A reseller's traffic pool counts what their clients use, in the same statement: a batch
         -- counts there exactly once, as it does for the clients (docs/operators.md, "Ceilings").
         -- Apart from the clients' own totals, so a client's traffic reset gives nothing back.
         insert into reseller_limits (user_id, pool_used_bytes, updated_at)
         select p.owner_id, least(p.bytes, ${MAX_BYTES}), now()
           from (select owner_id, sum(bytes) as bytes from cli group by owner_id) p
           join users u on u.id = p.owner_id and u.role = 'reseller'
         on conflict (user_id) do update
           set pool_used_bytes = least(reseller_limits.pool_used_bytes + excluded.pool_used_bytes, ${MAX_BYTES})
         returning user_id, traffic_pool_bytes is not null and pool_used_bytes >= traffic_pool_bytes as spent
       )${history.sql}
       select cli.id, cli.owner_id, cli.status, cli.quota_bytes, cli.used_bytes, cli.expires_at, cli.start_on_first_use,
              cli.activated_at, cli.duration_seconds, cli.handshake, cli.matched, coalesce(pool.spent, false) as pool_spent,
              cli.bytes, cli.name, cli.telegram_id::text as telegram_id, cli.last_reset_at
         from cli left join pool on pool.user_id = cli.owner_id`,
      [batch, nodeId, ...rate.params, ...history.params],
    );
    return rows.map((row) => ({
      id: row.id as string,
      ownerId: row.owner_id as string,
      poolSpent: row.pool_spent === true,
      status: row.status as ClientStatus,
      quotaBytes: readNumber(row.quota_bytes),
      usedBytes: readNumber(row.used_bytes),
      expiresAt: readTimestamp(row.expires_at),
      startOnFirstUse: row.start_on_first_use as boolean,
      activatedAt: readTimestamp(row.activated_at),
      durationSeconds: readNumber(row.duration_seconds),
      handshake: readTimestamp(row.handshake),
      matched: readNumber(row.matched),
      batch: {
        addedBytes: readNumber(row.bytes),
        name: row.name as string,
        ownerId: row.owner_id as string,
        telegramId: (row.telegram_id as string | null) ?? null,
        lastResetAt: readTimestamp(row.last_reset_at),
      },
    }));
  }

  /**
   * Zeroes the usage of every account on one interface and takes exactly those bytes off their
   * devices' and clients' totals (the interface's `reset-usage`): the same levels, in the same
   * order (accounts, devices, clients), as addCounters, so the two cannot deadlock. Null when the
   * interface does not exist; else the clients touched, with their totals after, and the bytes.
   */
  async resetInterface(
    em: EntityManager,
    interfaceId: string,
  ): Promise<{ clients: CountedClient[]; accounts: number; bytes: number } | null> {
    const found = await em.execute<{ id: string }[]>(`select id from interfaces where id = ?`, [interfaceId]);
    if (found.length === 0) return null;
    const rows = await em.execute<Record<string, unknown>[]>(
      `with old as (
         select id, device_id, up_bytes as up, down_bytes as down from accounts
          where interface_id = ? order by id for update
       ), acc as (
         update accounts a set up_bytes = 0, down_bytes = 0 from old where a.id = old.id
         returning old.device_id, old.up, old.down
       ), dev as (
         update devices d
            set up_bytes = greatest(d.up_bytes - s.up, 0), down_bytes = greatest(d.down_bytes - s.down, 0)
           from (select device_id, sum(up) as up, sum(down) as down, count(*) as n from acc group by device_id) s
          where d.id = s.device_id
         returning d.client_id, s.up, s.down, s.n
       )
       update clients c
          set up_bytes = greatest(c.up_bytes - s.up, 0), down_bytes = greatest(c.down_bytes - s.down, 0),
              used_bytes = greatest(c.used_bytes - s.up - s.down, 0)
         from (select client_id, sum(up) as up, sum(down) as down, sum(n) as n from dev group by client_id) s
        where c.id = s.client_id
       returning c.id, c.status, c.quota_bytes, c.used_bytes, c.expires_at, c.start_on_first_use,
                 c.activated_at, c.duration_seconds, s.n as matched, (s.up + s.down)::text as bytes`,
      [interfaceId],
    );
    return {
      clients: rows.map((row) => ({
        id: row.id as string,
        status: row.status as ClientStatus,
        quotaBytes: readNumber(row.quota_bytes),
        usedBytes: readNumber(row.used_bytes),
        expiresAt: readTimestamp(row.expires_at),
        startOnFirstUse: row.start_on_first_use as boolean,
        activatedAt: readTimestamp(row.activated_at),
        durationSeconds: readNumber(row.duration_seconds),
        handshake: null,
        matched: readNumber(row.matched),
      })),
      accounts: rows.reduce((sum, row) => sum + readNumber(row.matched), 0),
      bytes: rows.reduce((sum, row) => sum + Number(row.bytes), 0),
    };
  }

  /**
   * Writes the status changes the batch caused, all in one statement. Raw SQL for the same reason
   * as addCounters: a batch can change thousands of clients at once.
   */
  async applyStatusChanges(em: EntityManager, changes: readonly StatusChange[], now: Date): Promise<void> {
    if (changes.length === 0) return;
    const rows = changes.map((change) => ({
      id: change.id,
      status: change.status,
      activated_at: change.activatedAt?.toISOString() ?? null,
      expires_at: change.expiresAt?.toISOString() ?? null,
    }));
    await em.execute(
      `update clients c set status = s.status, activated_at = s.activated_at, expires_at = s.expires_at, updated_at = ?
         from jsonb_to_recordset(?::jsonb) as s(id uuid, status text, activated_at timestamptz, expires_at timestamptz)
        where c.id = s.id`,
      [now, JSON.stringify(rows)],
    );
  }
}
