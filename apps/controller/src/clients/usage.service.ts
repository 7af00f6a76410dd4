import { Inject, Injectable } from '@nestjs/common';
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import type { PeerCounters } from '#libs/contracts/agent-link.js';
import { bumpRevisions } from '../revisions/revisions.js';
import type { ClientStatus } from './client.entity.js';
import { activationOnFirstUse, affectsPeers, nextStatus } from './client-status.js';
import { ClientTotals } from './client-totals.js';
import { readTimestamp } from './sql.js';
import { nodesOfClients } from './provisioning.js';

export interface CountersOutcome {
  /** True when this batch was recorded before (its sequence number is not new): nothing changed. */
  duplicate: boolean;
  /** Peers of the batch that matched an account (others were removed meanwhile; their bytes have no owner). */
  matched: number;
  /** Clients whose status changed (exhausted by this traffic, or started on first use). */
  transitions: number;
}

interface TouchedClient {
  id: string;
  status: ClientStatus;
  quota_bytes: string;
  used_bytes: string;
  expires_at: unknown;
  start_on_first_use: boolean;
  activated_at: unknown;
  duration_seconds: number;
  handshake: unknown;
}

/** Deadlock and serialization failures are retried: the transaction is whole or nothing. */
const RETRYABLE = new Set(['40P01', '40001']);

/**
 * Traffic accounting. An agent's counter batch adds to its accounts, their devices and clients in
 * one transaction that also claims the batch's sequence number, so a batch counts exactly once
 * however often it arrives (reconnects, controller restarts). The same transaction applies what
 * the traffic means (client-status.ts): a client over its quota becomes exhausted and loses its
 * peers (its nodes' revisions grow), and a start-on-first-use client starts at its first handshake.
 */
@Injectable()
export class UsageService {
  constructor(
    @Inject(MikroORM) private readonly orm: MikroORM,
    private readonly totals: ClientTotals,
  ) {}

  async recordCounters(nodeId: string, seq: number, peers: readonly PeerCounters[], now = new Date()): Promise<CountersOutcome> {
    for (let attempt = 1; ; attempt++) {
      try {
        const outcome = await this.orm.em.fork().transactional((em) => this.apply(em, nodeId, seq, peers, now));
        if (outcome.transitions > 0) this.totals.changed();
        return outcome;
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (attempt >= 5 || !code || !RETRYABLE.has(code)) throw error;
      }
    }
  }

  private async apply(em: EntityManager, nodeId: string, seq: number, peers: readonly PeerCounters[], now: Date): Promise<CountersOutcome> {
    const claimed = await em.execute<{ node_id: string }[]>(
      'update node_agents set counters_seq = ? where node_id = ? and counters_seq < ? returning node_id',
      [seq, nodeId, seq],
    );
    if (claimed.length === 0) return { duplicate: true, matched: 0, transitions: 0 };
    if (peers.length === 0) return { duplicate: false, matched: 0, transitions: 0 };

    // One JSON parameter instead of six arrays: the driver sends it as one literal, and
    // jsonb_to_recordset turns it back into rows (10,000 peers in a few milliseconds).
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
    // Server rx is what the client sent (upload), server tx what it received (download).
    const touched = await em.execute<(TouchedClient & { matched: string })[]>(
      `with batch as (
         select * from jsonb_to_recordset(?::jsonb)
           as b(ifname text, public_key text, rx bigint, tx bigint, handshake timestamptz, endpoint text)
       ), hit as (
         select a.id, b.rx, b.tx, b.handshake, b.endpoint
           from batch b
           join interfaces i on i.node_id = ? and i.name = b.ifname
           join accounts a on a.interface_id = i.id and a.public_key = b.public_key
       ), acc as (
         update accounts a
            set up_bytes = a.up_bytes + hit.rx,
                down_bytes = a.down_bytes + hit.tx,
                last_handshake = greatest(a.last_handshake, hit.handshake),
                last_endpoint = coalesce(hit.endpoint, a.last_endpoint)
           from hit where a.id = hit.id
         returning a.device_id, hit.rx, hit.tx, hit.handshake
       ), dev as (
         update devices d
            set up_bytes = d.up_bytes + s.rx, down_bytes = d.down_bytes + s.tx,
                last_handshake = greatest(d.last_handshake, s.handshake)
           from (select device_id, sum(rx) as rx, sum(tx) as tx, max(handshake) as handshake, count(*) as n
                   from acc group by device_id) s
          where d.id = s.device_id
         returning d.client_id, s.rx, s.tx, s.handshake, s.n
       )
       update clients c
          set up_bytes = c.up_bytes + s.rx, down_bytes = c.down_bytes + s.tx, used_bytes = c.used_bytes + s.rx + s.tx
         from (select client_id, sum(rx) as rx, sum(tx) as tx, max(handshake) as handshake, sum(n) as n
                 from dev group by client_id) s
        where c.id = s.client_id
       returning c.id, c.status, c.quota_bytes, c.used_bytes, c.expires_at, c.start_on_first_use,
                 c.activated_at, c.duration_seconds, s.handshake, s.n as matched`,
      [batch, nodeId],
    );

    const changes: { id: string; status: ClientStatus; activated_at: string | null; expires_at: string | null }[] = [];
    const lostOrGainedPeers: string[] = [];
    for (const row of touched) {
      // Raw rows carry timestamps as the driver gives them (text here), hence readTimestamp.
      let expiresAt = readTimestamp(row.expires_at);
      let activatedAt = readTimestamp(row.activated_at);
      const activation =
        row.handshake !== null
          ? activationOnFirstUse({ startOnFirstUse: row.start_on_first_use, activatedAt, durationSeconds: row.duration_seconds }, now)
          : null;
      if (activation) ({ activatedAt, expiresAt } = activation);
      const status = nextStatus(row.status, { quotaBytes: Number(row.quota_bytes), usedBytes: Number(row.used_bytes), expiresAt }, now);
      if (!activation && status === row.status) continue;
      changes.push({ id: row.id, status, activated_at: activatedAt?.toISOString() ?? null, expires_at: expiresAt?.toISOString() ?? null });
      if (affectsPeers(row.status, status)) lostOrGainedPeers.push(row.id);
    }
    if (changes.length > 0) {
      await em.execute(
        `update clients c set status = s.status, activated_at = s.activated_at, expires_at = s.expires_at, updated_at = ?
           from jsonb_to_recordset(?::jsonb) as s(id uuid, status text, activated_at timestamptz, expires_at timestamptz)
          where c.id = s.id`,
        [now, JSON.stringify(changes)],
      );
      await bumpRevisions(em, await nodesOfClients(em, lostOrGainedPeers));
    }
    const matched = touched.reduce((sum, row) => sum + Number(row.matched), 0);
    return { duplicate: false, matched, transitions: changes.length };
  }
}
