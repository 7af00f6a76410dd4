import { Injectable } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { PeerCounters } from '#libs/contracts/agent-link.js';
import type { ClientStatus } from './client.entity.js';
import { executeNamed } from '../database/named-statement.js';
import { addressOf, endpointMoves } from './sharing/sharing.repository.js';
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

/** One node's counter batch, as the batches' statement takes it. */
export interface SentBatch {
  nodeId: string;
  /** Its sequence number: counted only when new and at most the window above the node's last. */
  seq: number;
  peers: readonly PeerCounters[];
  /**
   * The seconds between the agent's reading before this batch and this batch's: each peer's rate
   * is its bytes over them, holding until `until`. Absent: the rates are left as they are.
   */
  rate?: { seconds: number; until: Date };
}

/**
 * The counter batches' statement (UsageRepository.countBatches), for one batch or several nodes'
 * batches at once (clients/counter-commits.ts), run as a named prepared statement: parsed once per
 * connection, and planned once PostgreSQL settles on its generic plan. Its parameters: $1 the
 * batches (JSON rows: `i` its place in the list, the node, its sequence number, the seconds of its
 * rate's interval (null: rates left as they are) and until when that rate holds), $2 their peers
 * (JSON rows, `i` naming the batch), $3 the window a new sequence number may lie ahead, $4 the
 * usage history's bucket (null: no history), $5 now.
 *
 * Every part sees the tables as they were before the statement: each node's claim is made once,
 * and only a claimed batch's peers match (`hit` joins `claim`); the endpoint moves compare with
 * the accounts' last endpoints before this batch's counters move them. A node has at most one
 * batch in the list (the caller's rule): an account then matches at most once. Devices and
 * clients sum what all the batches brought them, so a client with devices on several of the
 * nodes is written once. Server rx is what the client sent (upload), server tx what it received
 * (download). Totals saturate at MAX_BYTES: they stay exact in JSON, and no node, however many
 * bytes it reports for a client it shares with other nodes, can push the client's totals past
 * bigint and make every later batch of those other nodes fail (sums of a batch are numeric: no
 * overflow there). Rows are fed to each update in the order of their ids: where PostgreSQL
 * updates through a nested loop over them (tables past a few pages), two transactions of batches
 * that share clients (a client with devices on several nodes) lock them in the same order rather
 * than deadlock; on small tables it hashes them and walks the table in its own order, the same
 * for both. What deadlocks is retried (usage.service.ts), at the cost of a round for both. The first row says which batches were claimed, how many peers of each matched
 * and which devices moved; each row carries a client touched that the status, quota and pool
 * rules may act on, if any (most clients a batch touches need nothing more: they are not read).
 */
const COUNT_BATCHES = `with sent as (
         select * from jsonb_to_recordset($1::jsonb)
           as s(i int, node_id uuid, seq int8, seconds float8, rate_until timestamptz)
       ), claim as (
         update node_agents n set counters_seq = s.seq
           from sent s
          where n.node_id = s.node_id and n.counters_seq < s.seq and n.counters_seq >= s.seq - $3::int8
         returning s.i, s.node_id, s.seconds, s.rate_until
       ), batch as (
         select * from jsonb_to_recordset($2::jsonb)
           as b(i int, ifname text, public_key text, rx bigint, tx bigint, handshake timestamptz, endpoint text, address text)
       ), hit as (
         -- A handshake cannot lie in the future: a stamp past now (a wrong clock, or a node
         -- that lies) would pin its client online, since the newest stamp wins.
         select a.id, a.device_id, a.last_endpoint, claim.i, claim.node_id, claim.seconds, claim.rate_until, b.rx, b.tx,
                case when b.handshake > now() then now() else b.handshake end as handshake, b.endpoint, b.address
           from claim
           join interfaces i on i.node_id = claim.node_id
           join batch b on b.i = claim.i and b.ifname = i.name
           join accounts a on a.interface_id = i.id and a.public_key = b.public_key
       ), ${endpointMoves('$5::timestamptz')}, acc as (
         update accounts a
            set up_bytes = least(a.up_bytes + hit.rx, ${MAX_BYTES}),
                down_bytes = least(a.down_bytes + hit.tx, ${MAX_BYTES}),
                last_handshake = greatest(a.last_handshake, hit.handshake),
                last_endpoint = coalesce(hit.endpoint, a.last_endpoint),
                up_rate = case when hit.seconds is null then a.up_rate else round(hit.rx / hit.seconds)::bigint end,
                down_rate = case when hit.seconds is null then a.down_rate else round(hit.tx / hit.seconds)::bigint end,
                rate_until = case when hit.seconds is null then a.rate_until else hit.rate_until end
           from (select * from hit order by id) hit where a.id = hit.id
         returning a.device_id, hit.node_id, hit.rx, hit.tx, hit.handshake
       ), dev as (
         update devices d
            set up_bytes = least(d.up_bytes + s.rx, ${MAX_BYTES}), down_bytes = least(d.down_bytes + s.tx, ${MAX_BYTES}),
                last_handshake = greatest(d.last_handshake, s.handshake)
           from (select device_id, sum(rx) as rx, sum(tx) as tx, max(handshake) as handshake, count(*) as n
                   from acc group by device_id order by device_id) s
          where d.id = s.device_id
         returning d.client_id, s.rx, s.tx, s.handshake, s.n
       ), cli as (
         update clients c
            set up_bytes = least(c.up_bytes + s.rx, ${MAX_BYTES}), down_bytes = least(c.down_bytes + s.tx, ${MAX_BYTES}),
                used_bytes = least(c.used_bytes + s.rx + s.tx, ${MAX_BYTES}),
                last_handshake = greatest(c.last_handshake, s.handshake)
           from (select client_id, sum(rx) as rx, sum(tx) as tx, max(handshake) as handshake, sum(n) as n
                   from dev group by client_id order by client_id) s
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
       ), client_history as (
         -- The usage history: each client's bytes added to its current 5-minute row, and each
         -- node's sum to the node's row, counted exactly when the totals are. One upsert per
         -- client and bucket; only the byte columns change, and no index holds them (HOT).
         insert into client_usage_history as h (client_id, tier, at, up_bytes, down_bytes)
         select id, ${FIVE_MINUTES.seconds}, $4::timestamptz, rx, tx from cli
          where $4::timestamptz is not null and (rx > 0 or tx > 0)
         on conflict (client_id, tier, at) do update
            set up_bytes = least(h.up_bytes + excluded.up_bytes, ${MAX_BYTES}),
                down_bytes = least(h.down_bytes + excluded.down_bytes, ${MAX_BYTES})
       ), node_history as (
         insert into node_usage_history as h (node_id, tier, at, up_bytes, down_bytes)
         select node_id, ${FIVE_MINUTES.seconds}, $4::timestamptz, sum(rx), sum(tx) from acc
          where $4::timestamptz is not null group by node_id having sum(rx) + sum(tx) > 0
         on conflict (node_id, tier, at) do update
            set up_bytes = least(h.up_bytes + excluded.up_bytes, ${MAX_BYTES}),
                down_bytes = least(h.down_bytes + excluded.down_bytes, ${MAX_BYTES})
       )
       select head.claimed, head.batch_matched, head.moved,
              cli.id, cli.owner_id, cli.status, cli.quota_bytes, cli.used_bytes, cli.expires_at, cli.start_on_first_use,
              cli.activated_at, cli.duration_seconds, cli.handshake, cli.matched,
              coalesce(pool.spent, false) as pool_spent, cli.bytes, cli.name, cli.telegram_id::text as telegram_id,
              cli.last_reset_at
         from (select (select string_agg(i::text, ',') from claim) as claimed,
                      (select string_agg(i::text || ':' || n, ',') from (select i, count(*) as n from hit group by i) m) as batch_matched,
                      (select string_agg(distinct device_id::text, ',') from moves) as moved) head
         -- Only the clients the rules may act on (usage.service.ts): a status the numbers no longer
         -- bear out (clients/client-status.ts), a first use that starts a period, a quota line
         -- (80, 95, 100%, with room for the rules' floating point) possibly crossed by these bytes,
         -- a reseller pool spent. The rest need nothing more, and are not sent to the controller.
         left join (cli left join pool on pool.user_id = cli.owner_id)
           on (cli.status <> 'disabled'
               and cli.status <> case when cli.expires_at <= $5::timestamptz then 'expired'
                                      when cli.quota_bytes > 0 and cli.used_bytes >= cli.quota_bytes then 'exhausted'
                                      else 'active' end)
           or (cli.start_on_first_use and cli.activated_at is null and cli.duration_seconds > 0 and cli.handshake is not null)
           or (cli.quota_bytes > 0 and cli.used_bytes::numeric * 100 >= cli.quota_bytes::numeric * 79
               and cli.used_bytes - cli.bytes < cli.quota_bytes)
           or pool.spent`;

/** What the batches' statement did. */
export interface CountedBatches {
  /** Each batch's claim (or why not), in the order given, with how many of its peers matched an account. */
  batches: { claim: BatchClaim; matched: number }[];
  /** Devices whose endpoint moved to an address other than their account's last. */
  moved: string[];
  /**
   * The clients touched that the status, quota and pool rules may act on (the statement leaves out
   * the rest), once each whatever number of the batches brought them bytes.
   */
  clients: CountedOwnedClient[];
}

/** What the status rules read of a client row a counter statement returned (`handshake` when it has one). */
function clientFacts(row: Record<string, unknown>): CountedClient {
  return {
    id: row.id as string,
    status: row.status as ClientStatus,
    quotaBytes: readNumber(row.quota_bytes),
    usedBytes: readNumber(row.used_bytes),
    expiresAt: readTimestamp(row.expires_at),
    startOnFirstUse: row.start_on_first_use as boolean,
    activatedAt: readTimestamp(row.activated_at),
    durationSeconds: readNumber(row.duration_seconds),
    handshake: readTimestamp(row.handshake),
    matched: readNumber(row.matched),
  };
}

function countedClient(row: Record<string, unknown>): CountedOwnedClient {
  return {
    ...clientFacts(row),
    ownerId: row.owner_id as string,
    poolSpent: row.pool_spent === true,
    batch: {
      addedBytes: readNumber(row.bytes),
      name: row.name as string,
      ownerId: row.owner_id as string,
      telegramId: (row.telegram_id as string | null) ?? null,
      lastResetAt: readTimestamp(row.last_reset_at),
    },
  };
}

export type BatchClaim =
  { claimed: true } | { claimed: false; repeat: true } | { claimed: false; repeat: false; recorded: number };

/** Traffic counters of accounts, devices and clients, and the per-node sequence that makes a batch count once. */
@Injectable()
export class UsageRepository {
  /**
   * Counts counter batches of distinct nodes, all in one statement (COUNT_BATCHES): claims each
   * batch's sequence number when it is new and at most `window` above the last one recorded for
   * its node, and only for the batches claimed records the endpoint moves and adds the peers'
   * counters to accounts, their devices and clients (and the resellers' pools and the usage
   * history's `bucket`, when given). Returns each batch's claim (or why not: a repeat, or too far
   * ahead, with the last number recorded), the devices whose endpoints moved and the clients touched.
   */
  async countBatches(
    em: EntityManager,
    batches: readonly SentBatch[],
    window: number,
    bucket: Date | undefined,
    now: Date,
  ): Promise<CountedBatches> {
    if (new Set(batches.map((batch) => batch.nodeId)).size !== batches.length)
      throw new Error('counter batches counted together must be of distinct nodes');
    // In the order of the nodes' ids: the claim locks their rows as it meets them.
    const sent = batches
      .map((batch, i) => {
        const seconds = batch.rate?.seconds ?? null;
        if (seconds !== null && !(Number.isFinite(seconds) && seconds > 0))
          throw new Error(`a rate needs a positive interval, got ${seconds}`);
        return {
          i,
          node_id: batch.nodeId,
          seq: batch.seq,
          seconds,
          rate_until: batch.rate?.until.toISOString() ?? null,
        };
      })
      .sort((a, b) => (a.node_id < b.node_id ? -1 : a.node_id > b.node_id ? 1 : 0));
    const peers = batches.flatMap((batch, i) =>
      batch.peers.map((peer) => ({
        i,
        ifname: peer.interface,
        public_key: peer.publicKey,
        rx: peer.rxBytes,
        tx: peer.txBytes,
        handshake: peer.lastHandshake === null ? null : new Date(peer.lastHandshake).toISOString(),
        endpoint: peer.endpoint,
        address: peer.endpoint === null ? null : addressOf(peer.endpoint),
      })),
    );
    const rows = await executeNamed<Record<string, unknown>>(em, 'warren_count_batches', COUNT_BATCHES, [
      JSON.stringify(sent),
      JSON.stringify(peers),
      window,
      bucket?.toISOString() ?? null,
      now.toISOString(),
    ]);
    const [head] = rows;
    const claimed = new Set(head.claimed ? String(head.claimed).split(',').map(Number) : []);
    const matched = new Map(
      head.batch_matched
        ? String(head.batch_matched)
            .split(',')
            .map((pair) => pair.split(':').map(Number) as [number, number])
        : [],
    );
    const unclaimed = batches.filter((_, i) => !claimed.has(i));
    const recorded = await this.recordedSeqs(
      em,
      unclaimed.map((batch) => batch.nodeId),
    );
    return {
      batches: batches.map((batch, i) => {
        if (claimed.has(i)) return { claim: { claimed: true }, matched: matched.get(i) ?? 0 };
        const last = recorded.get(batch.nodeId) ?? 0;
        const claim: BatchClaim =
          batch.seq <= last ? { claimed: false, repeat: true } : { claimed: false, repeat: false, recorded: last };
        return { claim, matched: 0 };
      }),
      moved: head.moved ? String(head.moved).split(',') : [],
      clients: claimed.size === 0 ? [] : rows.filter((row) => row.id !== null).map(countedClient),
    };
  }

  /**
   * The last sequence number recorded for each node, read again in a snapshot of its own: a batch
   * claimed by a transaction the statement waited for (the same batch arriving twice at once) was
   * committed after the statement's snapshot.
   */
  private async recordedSeqs(em: EntityManager, nodeIds: readonly string[]): Promise<Map<string, number>> {
    if (nodeIds.length === 0) return new Map();
    const rows = await em.execute<{ node_id: string; counters_seq: string }[]>(
      `select node_id, counters_seq from node_agents where node_id = any(array[?]::uuid[])`,
      [[...nodeIds]],
    );
    return new Map(rows.map((row) => [row.node_id, readNumber(row.counters_seq)]));
  }

  /**
   * Zeroes the usage of every account on one interface and takes exactly those bytes off their
   * devices' and clients' totals (the interface's `reset-usage`): the same levels, in the same
   * order (accounts, devices, clients), as countBatches, so the two cannot deadlock. Null when the
   * interface does not exist; else the clients touched, with their totals after, and the bytes.
   * Rows go to each update in id order, as countBatches feeds its own.
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
           from (select device_id, sum(up) as up, sum(down) as down, count(*) as n
                   from acc group by device_id order by device_id) s
          where d.id = s.device_id
         returning d.client_id, s.up, s.down, s.n
       )
       update clients c
          set up_bytes = greatest(c.up_bytes - s.up, 0), down_bytes = greatest(c.down_bytes - s.down, 0),
              used_bytes = greatest(c.used_bytes - s.up - s.down, 0)
         from (select client_id, sum(up) as up, sum(down) as down, sum(n) as n
                 from dev group by client_id order by client_id) s
        where c.id = s.client_id
       returning c.id, c.status, c.quota_bytes, c.used_bytes, c.expires_at, c.start_on_first_use,
                 c.activated_at, c.duration_seconds, s.n as matched, (s.up + s.down)::text as bytes`,
      [interfaceId],
    );
    return {
      clients: rows.map(clientFacts),
      accounts: rows.reduce((sum, row) => sum + readNumber(row.matched), 0),
      bytes: rows.reduce((sum, row) => sum + Number(row.bytes), 0),
    };
  }

  /**
   * Writes the status changes the batch caused, all in one statement. Raw SQL for the same reason
   * as countBatches: a batch can change thousands of clients at once.
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
