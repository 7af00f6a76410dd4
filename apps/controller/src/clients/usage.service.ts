import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import { COUNTER_SEQ_WINDOW, type HopCounters, type PeerCounters } from '#libs/contracts/agent-link.js';
import { addHopTraffic } from '../outbounds/hop-traffic.js';
import { ResellerLimitsRepository } from '../resellers/reseller-limits.repository.js';
import { bumpRevisions } from '../revisions/revisions.js';
import { activationOnFirstUse, affectsPeers, nextStatus } from './client-status.js';
import { ClientTotals } from './client-totals.js';
import { ClientsRepository } from './clients.repository.js';
import { UsageRepository, type SentBatch, type StatusChange } from './usage.repository.js';
import { SharingService } from './sharing/sharing.service.js';
import { currentBucket } from './usage-tiers.js';
import { quotaCrossings } from './quota-crossings.js';
import { recordRuleChange } from './client-notices.js';
import { NotificationEvents } from '../notifications/events/notification-events.js';
import type { WarrenConfig } from '../config/config.js';
import { WARREN_CONFIG } from '../runtime.js';

/** One node's counter batch as its link received it. */
export interface NodeBatch {
  nodeId: string;
  seq: number;
  peers: readonly PeerCounters[];
  reading?: BatchReading;
}

/** The agent's reading times of a batch (agent-link.ts `at`, `since`), for the current rate. */
export interface BatchReading {
  at: number;
  since?: number;
  /** The hops' bytes the batch carries (outbounds/hop-traffic.ts): recorded once with it. */
  hops?: readonly HopCounters[];
}

/** An interval longer than this (an agent that was down) says nothing about the current rate. */
const MAX_RATE_INTERVAL_MS = 10 * 60_000;

export interface CountersOutcome {
  /** True when this batch was recorded before (its sequence number is not new): nothing changed. */
  duplicate: boolean;
  /**
   * Why the batch was refused, nothing recorded: its sequence number is more than
   * COUNTER_SEQ_WINDOW above the last one recorded for the node.
   */
  refused?: string;
  /** Peers of the batch that matched an account (others were removed meanwhile; their bytes have no owner). */
  matched: number;
  /**
   * Clients whose status changed (exhausted by this traffic, or started on first use): of all the
   * batches recorded with this one (counter-commits.ts), since a client's change is theirs together.
   */
  transitions: number;
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
export class UsageService implements OnModuleInit {
  constructor(
    @Inject(MikroORM) private readonly orm: MikroORM,
    private readonly totals: ClientTotals,
    private readonly usage: UsageRepository,
    private readonly clients: ClientsRepository,
    private readonly sharing: SharingService,
    private readonly resellers: ResellerLimitsRepository,
    @Inject(WARREN_CONFIG) private readonly config: WarrenConfig,
    private readonly notifications: NotificationEvents,
  ) {}

  onModuleInit(): void {
    if (!this.config.usageHistory)
      new Logger('clients').warn(
        'WARREN_USAGE_HISTORY=off: counter batches write no usage history (a benchmark baseline only)',
      );
  }

  /** Records one node's counter batch in a transaction of its own. */
  async recordCounters(
    nodeId: string,
    seq: number,
    peers: readonly PeerCounters[],
    now = new Date(),
    reading?: BatchReading,
  ): Promise<CountersOutcome> {
    const [outcome] = await this.recordBatches([{ nodeId, seq, peers, reading }], now);
    return outcome;
  }

  /**
   * Records batches of distinct nodes in one transaction and one statement (counter-commits.ts
   * gathers them): each counts exactly once, or is a duplicate or refused on its own. Returns
   * each batch's outcome, in order.
   */
  async recordBatches(batches: readonly NodeBatch[], now = new Date()): Promise<CountersOutcome[]> {
    const sent: SentBatch[] = batches.map((batch) => ({
      nodeId: batch.nodeId,
      seq: batch.seq,
      peers: batch.peers,
      rate: this.rateOf(now, batch.reading),
    }));
    const bucket = this.config.usageHistory ? currentBucket(now) : undefined;
    for (let attempt = 1; ; attempt++) {
      try {
        const outcomes = await this.orm.em.fork().transactional((em) => this.apply(em, sent, batches, bucket, now));
        if (outcomes.some((outcome) => outcome.transitions > 0)) this.totals.changed();
        return outcomes;
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (attempt >= 5 || !code || !RETRYABLE.has(code)) throw error;
      }
    }
  }

  /**
   * The peers' current rate: bytes over the agent's interval between its two readings (one clock,
   * so its skew cancels). The rate holds until the next reading is due and half an interval more
   * (at least a second): a peer that moved nothing is left out of that batch, and its rate then
   * lapses to 0. The bytes go to the usage history's 5-minute bucket of their arrival (as system
   * samples are stamped on arrival: a host with a wrong clock still lands in the right bucket).
   */
  private rateOf(now: Date, reading: BatchReading | undefined): SentBatch['rate'] {
    const intervalMs = reading?.since === undefined ? 0 : reading.at - reading.since;
    if (!(intervalMs > 0 && intervalMs <= MAX_RATE_INTERVAL_MS)) return undefined;
    const until = new Date(now.getTime() + intervalMs + Math.max(1000, intervalMs / 2));
    return { seconds: intervalMs / 1000, until };
  }

  private async apply(
    em: EntityManager,
    sent: readonly SentBatch[],
    batches: readonly NodeBatch[],
    bucket: Date | undefined,
    now: Date,
  ): Promise<CountersOutcome[]> {
    // One statement claims the batches' numbers, records the endpoint moves and adds the counters.
    const counted = await this.usage.countBatches(em, sent, COUNTER_SEQ_WINDOW, bucket, now);
    const { moved, clients } = counted;
    const outcomes: CountersOutcome[] = counted.batches.map(({ claim, matched }, i) => {
      if (claim.claimed) return { duplicate: false, matched, transitions: 0 };
      if (claim.repeat) return { duplicate: true, matched: 0, transitions: 0 };
      const refused = `counter batch ${batches[i].seq} is more than ${COUNTER_SEQ_WINDOW} ahead of the last one recorded (${claim.recorded})`;
      return { duplicate: false, refused, matched: 0, transitions: 0 };
    });
    const claimed = outcomes.filter((outcome) => !outcome.duplicate && !outcome.refused);
    if (claimed.length === 0) return outcomes;
    await addHopTraffic(
      em,
      batches
        .filter((_, i) => counted.batches[i].claim.claimed)
        .map((batch) => ({ nodeId: batch.nodeId, hops: batch.reading?.hops ?? [] })),
    );
    // The moves were compared with the endpoints before this batch; a client the sharing rule
    // disables now is disabled for what follows, as if that had come first.
    const disabled = await this.sharing.afterMoves(em, moved, now);
    if (disabled.length > 0) await bumpRevisions(em, await this.clients.nodesOf(em, disabled));
    await recordRuleChange(em, 'client.disabled', disabled, 'sharing', 'c.status_changed_at', now);
    const disabledNow = new Set(disabled);
    const touched = clients.map((client) =>
      disabledNow.has(client.id) ? { ...client, status: 'disabled' as const } : client,
    );
    // Quota crossings commit with the counters that made them (the batch counts once, so do they).
    await this.notifications.record(em, ...touched.flatMap((client) => quotaCrossings(client, now)));

    const changes: StatusChange[] = [];
    const lostOrGainedPeers: string[] = [];
    for (const client of touched) {
      let { expiresAt, activatedAt } = client;
      const activation = client.handshake !== null ? activationOnFirstUse(client, now) : null;
      if (activation) ({ activatedAt, expiresAt } = activation);
      const status = nextStatus(
        client.status,
        { quotaBytes: client.quotaBytes, usedBytes: client.usedBytes, expiresAt },
        now,
      );
      if (!activation && status === client.status) continue;
      changes.push({ id: client.id, status, activatedAt, expiresAt });
      if (affectsPeers(client.status, status)) lostOrGainedPeers.push(client.id);
    }
    if (changes.length > 0) {
      await this.usage.applyStatusChanges(em, changes, now);
      await bumpRevisions(em, await this.clients.nodesOf(em, lostOrGainedPeers));
    }
    // A reseller whose pool these bytes used up loses every active client, as a spent quota does
    // (docs/operators.md, "The pool"); one already spent loses any client brought back meanwhile.
    // The batch's statement says whose pool is spent: no further statement for any other batch.
    const spent = [...new Set(touched.filter((client) => client.poolSpent).map((client) => client.ownerId))];
    const cut = await this.resellers.applyPool(em, spent, false, now);
    await bumpRevisions(em, cut.nodeIds);
    const transitions = changes.length + disabled.length + cut.clients;
    for (const outcome of claimed) outcome.transitions = transitions;
    return outcomes;
  }
}
