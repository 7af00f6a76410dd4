import { Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import { PanelMetrics } from '../metrics/panel-metrics.js';
import { UsageService, type CountersOutcome, type NodeBatch } from './usage.service.js';

/**
 * Transactions of counter batches at once: while two are in flight, batches that arrive wait and
 * go together in the next. Two keep PostgreSQL busy while the controller reads one's answer and
 * writes the next's, and a batch arriving on a quiet panel starts at once (no wait, LINGER_MS).
 */
const IN_FLIGHT = 2;
/**
 * A transaction's batches at most. Most of what there is to share is shared by 16 (PostgreSQL's
 * CPU per batch: bench/counter-statement.js); at 1,000 agents 32 carried 12% more batches a
 * second than 16 (docs/benchmarks.md), and a bound keeps one transaction's locks and wait short.
 */
const MAX_BATCHES = 32;
/**
 * A transaction's peers at most (a larger batch goes alone). Also the controller's memory: a
 * transaction's JSON and rows grow with its peers, and large ones live until V8's next full
 * collection (at 64 batches of 50 peers the controller peaked at 1 GiB against 290 MiB alone).
 */
const MAX_PEERS = 2_000;
/**
 * How long a node whose batch failed on its own is recorded alone: a batch PostgreSQL refuses is
 * sent again every round, and in a shared transaction it would fail the others' too, each time.
 */
const ALONE_MS = 5 * 60_000;
/**
 * How long a batch may wait for company when batches arrive often enough that some will come in
 * that time (at least one expected, from the last second's arrivals). A transaction's fixed cost
 * (its start, the statement's start and triggers, the commit) is about 40% of a lone batch's, so
 * even 2 to 5 batches a transaction save most of what sharing can: at 200 agents (100 batches a
 * second) 50 ms gathers about five. The agent waits for the answer before its next batch, 2 s
 * later; 50 ms more is nothing to it, and a panel that hears a batch now and then (fewer than 20 a
 * second) does not wait at all.
 */
const LINGER_MS = 50;
/**
 * Waiting batches enough to start without lingering: most of what sharing saves is saved by 16
 * (MAX_BATCHES), and waiting for more only adds to their acks' latency.
 */
const GROUP_AIM = 16;
/**
 * Batches arriving often: at least COMPANY_RATE in the last RATE_WINDOW_MS, one every LINGER_MS
 * on average, so that a batch that lingers can expect another.
 */
const RATE_WINDOW_MS = 1000;
const COMPANY_RATE = RATE_WINDOW_MS / LINGER_MS;

interface Waiting {
  batch: NodeBatch;
  /** When it arrived (`clock`). */
  at: number;
  resolve: (outcome: CountersOutcome) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit of agents' counter batches (issue 27, docs/agents.md "Counters, exactly once"). A
 * batch alone costs PostgreSQL a transaction, a statement's fixed work (the claim, finding the
 * peers' accounts, two statement triggers) and a commit. Batches of distinct nodes that wait at
 * the same time are recorded by one statement in one transaction (UsageService.recordBatches):
 * each still counts exactly once or is a duplicate or refused on its own, and its link hears its
 * own outcome only after the commit.
 *
 * A node has at most one batch here: its link sends the next only after this one's answer, so a
 * second one is a copy sent on a newer link (the agent reconnected), and it replaces the waiting
 * one (whose link is gone; the claim makes any copy count once). A node's batch waits while
 * another of the node's is in flight (it would only wait for that one's row lock, and hold up the
 * others of its transaction). When a transaction fails for anything but a retried deadlock, its
 * batches are recorded again one at a time, so a batch PostgreSQL refuses fails alone; its node
 * then goes alone for ALONE_MS.
 */
@Injectable()
export class CounterCommits implements BeforeApplicationShutdown {
  private readonly logger = new Logger('clients');
  /** In arrival order, one per node. */
  private waiting: Waiting[] = [];
  private readonly inFlightNodes = new Set<string>();
  private inFlight = 0;
  /** Nodes whose batch failed on its own, until when they are recorded alone. */
  private readonly alone = new Map<string, number>();
  private stopping = false;
  /** The last COMPANY_RATE arrival times, oldest first. */
  private arrivals: number[] = [];
  /** The wake-up of the oldest waiting batch's linger, when one is set. */
  private lingerTimer: NodeJS.Timeout | undefined;
  /** Milliseconds, for the arrival times; tests may replace it. */
  clock: () => number = () => performance.now();

  constructor(
    private readonly usage: UsageService,
    private readonly metrics: PanelMetrics,
  ) {}

  /** Records the batch with whatever others wait with it; resolves once it is committed (or not). */
  record(batch: NodeBatch): Promise<CountersOutcome> {
    if (this.stopping) return Promise.reject(new Error('the controller is stopping'));
    return new Promise((resolve, reject) => {
      const older = this.waiting.findIndex((waiting) => waiting.batch.nodeId === batch.nodeId);
      if (older >= 0) {
        this.waiting[older].reject(new Error('a newer copy of the node’s batch arrived on another link'));
        this.waiting.splice(older, 1);
      }
      const at = this.clock();
      this.arrivals.push(at);
      if (this.arrivals.length > COMPANY_RATE) this.arrivals.shift();
      this.waiting.push({ batch, at, resolve, reject });
      this.startNext();
    });
  }

  /** Nothing new starts; what waits is not recorded (its agents send it again to the next controller). */
  beforeApplicationShutdown(): void {
    this.stopping = true;
    clearTimeout(this.lingerTimer);
    for (const waiting of this.waiting) waiting.reject(new Error('the controller is stopping'));
    this.waiting = [];
  }

  private startNext(): void {
    while (this.inFlight < IN_FLIGHT) {
      if (this.lingers()) return;
      const group = this.takeGroup();
      if (group.length === 0) return;
      this.inFlight++;
      for (const waiting of group) this.inFlightNodes.add(waiting.batch.nodeId);
      void this.commit(group).finally(() => {
        this.inFlight--;
        for (const waiting of group) this.inFlightNodes.delete(waiting.batch.nodeId);
        this.startNext();
      });
    }
  }

  /**
   * Whether the waiting batches wait a little longer for company (LINGER_MS): only while batches
   * arrive often, fewer than GROUP_AIM wait, and the oldest has waited less than the linger; then
   * a wake-up is set for when it will have.
   */
  private lingers(): boolean {
    if (this.waiting.length === 0 || this.waiting.length >= GROUP_AIM) return false;
    const now = this.clock();
    if (this.arrivals.length < COMPANY_RATE || this.arrivals[0] <= now - RATE_WINDOW_MS) return false;
    // Within a millisecond is over: a timer may fire that much early (it counts whole milliseconds
    // from the event loop's cached time).
    const left = Math.min(this.waiting[0].at + LINGER_MS - now, LINGER_MS);
    if (left < 1) return false;
    if (this.lingerTimer === undefined) {
      this.lingerTimer = setTimeout(() => {
        this.lingerTimer = undefined;
        this.startNext();
      }, Math.ceil(left));
      this.lingerTimer.unref();
    }
    return true;
  }

  /** The oldest waiting batches of nodes not in flight, within the bounds; the rest keep their order. */
  private takeGroup(): Waiting[] {
    const group: Waiting[] = [];
    const rest: Waiting[] = [];
    const now = Date.now();
    let peers = 0;
    let closed = false;
    for (const waiting of this.waiting) {
      const { nodeId, peers: batchPeers } = waiting.batch;
      const alone = (this.alone.get(nodeId) ?? 0) > now;
      const fits =
        !closed &&
        !this.inFlightNodes.has(nodeId) &&
        (group.length === 0 || (!alone && group.length < MAX_BATCHES && peers + batchPeers.length <= MAX_PEERS));
      if (!fits) {
        rest.push(waiting);
        continue;
      }
      group.push(waiting);
      peers += batchPeers.length;
      // A node recorded alone, or a batch as large as a transaction, closes its group.
      if (alone || peers >= MAX_PEERS) closed = true;
    }
    this.waiting = rest;
    return group;
  }

  private async commit(group: Waiting[]): Promise<void> {
    this.metrics.counterCommitBatches.observe(group.length);
    try {
      const outcomes = await this.usage.recordBatches(
        group.map((waiting) => waiting.batch),
        new Date(),
      );
      group.forEach((waiting, i) => waiting.resolve(outcomes[i]));
    } catch (error) {
      if (group.length === 1) {
        const now = Date.now();
        for (const [nodeId, until] of this.alone) if (until <= now) this.alone.delete(nodeId);
        this.alone.set(group[0].batch.nodeId, now + ALONE_MS);
        return group[0].reject(error);
      }
      this.logger.warn(
        `${group.length} counter batches recorded together failed (${(error as Error).message}); recording them one at a time`,
      );
      for (const waiting of group) await this.commit([waiting]);
    }
  }
}
