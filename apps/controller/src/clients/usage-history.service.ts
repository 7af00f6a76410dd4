import { Injectable } from '@nestjs/common';
import { usageBuckets, usageParts, usageSeries, type UsageSeries } from './usage-buckets.js';
import { CLIENT_USAGE, NODE_USAGE, UsageHistoryRepository, type UsageSubject } from './usage-history.repository.js';
import { FOLD_AFTER_MS, HOURLY, DAILY, USAGE_ROLLUPS, USAGE_TIERS, type UsageRange } from './usage-tiers.js';

export interface UsageMaintenance {
  /** Rows written per subject table and target tier. */
  rolledUp: Record<string, Record<number, number>>;
  /** Rows deleted per subject table and tier. */
  pruned: Record<string, Record<number, number>>;
}

/**
 * Usage history of clients and of the whole panel (docs/clients.md, "Usage history"): the
 * series a range shows, and the folding and pruning that keep it (once a minute, beside the
 * system history's upkeep; usage-history.scheduler.ts).
 */
@Injectable()
export class UsageHistoryService {
  constructor(private readonly store: UsageHistoryRepository) {}

  /** One client's series; the caller has checked the client exists (ClientsService.usage). */
  client(clientId: string, range: UsageRange, now = new Date()): Promise<UsageSeries> {
    return this.series(CLIENT_USAGE, clientId, range, now);
  }

  /** Every client's traffic: the sum over the nodes' rows (the same bytes, far fewer rows). */
  total(range: UsageRange, now = new Date()): Promise<UsageSeries> {
    return this.series(NODE_USAGE, null, range, now);
  }

  private async series(subject: UsageSubject, id: string | null, range: UsageRange, now: Date): Promise<UsageSeries> {
    const nowMs = now.getTime();
    const { startMs } = usageBuckets(range, nowMs);
    const folded = new Map([
      [HOURLY, await this.foldedUntil(subject, HOURLY)],
      [DAILY, await this.foldedUntil(subject, DAILY)],
    ]);
    const rows = await this.store.read(subject, id, usageParts(range, startMs, folded));
    return usageSeries(range, nowMs, rows);
  }

  /** The end of a tier's newest window: finer rows before it are folded into it. */
  private async foldedUntil(subject: UsageSubject, tier: typeof HOURLY): Promise<number | null> {
    const newest = await this.store.newestAt(subject, tier);
    return newest === null ? null : newest + tier.seconds * 1000;
  }

  /**
   * Folds the closed windows not folded yet (5-minute rows into hours, then hours into days) and
   * prunes each tier past its retention. A window is folded once it ended FOLD_AFTER_MS ago,
   * from the end of the newest window of its tier; windows without traffic leave no row and are
   * simply read again (an empty index range) next time.
   */
  async maintain(now = new Date()): Promise<UsageMaintenance> {
    const nowMs = now.getTime();
    const result: UsageMaintenance = { rolledUp: {}, pruned: {} };
    for (const subject of [CLIENT_USAGE, NODE_USAGE]) {
      const rolledUp: Record<number, number> = {};
      for (const { from, to } of USAGE_ROLLUPS) {
        const width = to.seconds * 1000;
        const end = Math.floor((nowMs - FOLD_AFTER_MS) / width) * width;
        // Rows of the finer tier are pruned only after this fold in the same run, so whatever
        // is still there was never folded into a pruned window: after a pause of any length the
        // fold starts from where it stopped (or, the first time, from the oldest row there is).
        const newest = await this.store.newestAt(subject, to);
        const start = newest === null ? 0 : newest + width;
        rolledUp[to.seconds] = start < end ? await this.store.rollUp(subject, from, to, start, end) : 0;
      }
      const pruned: Record<number, number> = {};
      for (const tier of USAGE_TIERS)
        pruned[tier.seconds] = await this.store.prune(subject, tier, nowMs - tier.retentionSeconds * 1000);
      result.rolledUp[subject.table] = rolledUp;
      result.pruned[subject.table] = pruned;
    }
    return result;
  }
}
