import { Injectable, Logger } from '@nestjs/common';
import { PanelMetrics } from '../metrics/panel-metrics.js';
import { UsageService, type CountersOutcome, type NodeBatch } from './usage.service.js';

/**
 * Transactions of counter batches at once: while two are in flight, batches that arrive wait and
 * go together in the next. Two keep PostgreSQL busy while the controller reads one's answer and
 * writes the next's, and a batch arriving on an idle panel starts at once (no timer, no wait).
 */
const IN_FLIGHT = 2;
/**
 * A transaction's batches at most. Most of what there is to share is shared by 16 (PostgreSQL's
 * CPU per batch: bench/counter-statement.js), and a bound keeps one transaction's locks and its
 * wait short.
 */
const MAX_BATCHES = 16;
/**
 * A transaction's peers at most (a larger batch goes alone). Also the controller's memory: a
 * transaction's JSON and rows grow with its peers, and large ones live until V8's next full
 * collection (at 64 batches of 50 peers the controller peaked at 1 GiB against 290 MiB alone).
 */
const MAX_PEERS = 2_000;

interface Waiting {
  batch: NodeBatch;
  resolve: (outcome: CountersOutcome) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit of agents' counter batches (issue 27, docs/benchmarks.md "Counter batches
 * committed together"). A batch alone costs PostgreSQL a transaction, a statement's fixed work
 * (the claim, finding the peers' accounts, two statement triggers) and a commit; at 500 batches a
 * second that fixed cost was most of a core. Batches of distinct nodes that wait at the same time
 * are recorded by one statement in one transaction (UsageService.recordBatches): each still counts
 * exactly once or is a duplicate or refused on its own, and its link hears its own outcome only
 * after the commit. A node's batch never shares a transaction with another of the same node (its
 * link sends the next only after this one's answer; a resend on a second link waits for the next
 * transaction). When a transaction fails for anything but a retried deadlock, its batches are
 * recorded again one at a time, so a batch PostgreSQL refuses fails alone.
 */
@Injectable()
export class CounterCommits {
  private readonly logger = new Logger('clients');
  private waiting: Waiting[] = [];
  private inFlight = 0;

  constructor(
    private readonly usage: UsageService,
    private readonly metrics: PanelMetrics,
  ) {}

  /** Records the batch with whatever others wait with it; resolves once it is committed (or not). */
  record(batch: NodeBatch): Promise<CountersOutcome> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ batch, resolve, reject });
      this.startNext();
    });
  }

  private startNext(): void {
    while (this.inFlight < IN_FLIGHT && this.waiting.length > 0) {
      const group = this.takeGroup();
      this.inFlight++;
      void this.commit(group).finally(() => {
        this.inFlight--;
        this.startNext();
      });
    }
  }

  /** The oldest waiting batches, one per node, within the bounds; the rest keep their order. */
  private takeGroup(): Waiting[] {
    const group: Waiting[] = [];
    const rest: Waiting[] = [];
    const nodes = new Set<string>();
    let peers = 0;
    for (const waiting of this.waiting) {
      const size = waiting.batch.peers.length;
      const fits =
        group.length === 0 ||
        (group.length < MAX_BATCHES && peers + size <= MAX_PEERS && !nodes.has(waiting.batch.nodeId));
      if (!fits) {
        rest.push(waiting);
        continue;
      }
      group.push(waiting);
      nodes.add(waiting.batch.nodeId);
      peers += size;
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
      if (group.length === 1) return group[0].reject(error);
      this.logger.warn(
        `${group.length} counter batches recorded together failed (${(error as Error).message}); recording them one at a time`,
      );
      for (const waiting of group) {
        await this.usage.recordBatches([waiting.batch], new Date()).then(
          ([outcome]) => waiting.resolve(outcome),
          (alone: unknown) => waiting.reject(alone),
        );
      }
    }
  }
}
