import { Injectable } from '@nestjs/common';
import { AuditService } from '../audit/audit.service.js';
import { SettingsService } from '../settings/settings.service.js';
import { SystemHistoryRepository } from './history.repository.js';
import { ROLLUPS, TIERS } from './tiers.js';

export interface MaintenanceResult {
  /** Rows written per target tier (seconds → rows). */
  rolledUp: Record<number, number>;
  /** Rows deleted per tier. */
  pruned: Record<number, number>;
  /** The audit log's upkeep: entries past retention deleted, abandoned pending ones settled. */
  audit: { pruned: number; abandoned: number };
}

/**
 * Rollups and retention of the system history, for every source at once, and the audit log's
 * retention (the setting auditRetentionDays). Runs once a minute from the system-history queue
 * (one replica per tick); tests call it with the clock they need.
 */
@Injectable()
export class SystemHistoryMaintenance {
  constructor(
    private readonly store: SystemHistoryRepository,
    private readonly audit: AuditService,
    private readonly settings: SettingsService,
  ) {}

  async run(now: Date = new Date()): Promise<MaintenanceResult> {
    const rolledUp = await this.rollUp(now);
    const pruned = await this.prune(now);
    const audit = await this.audit.maintain((await this.settings.get()).auditRetentionDays, now);
    return { rolledUp, pruned, audit };
  }

  /**
   * Minute rows from raw samples, then ten-minute rows from minute rows. Each rollup recomputes
   * its lookback (the partial current window included) and, after a pause in the schedule (the
   * queue store was away, every replica was down), everything since its newest row, as far
   * back as the source tier still has rows.
   */
  async rollUp(now: Date = new Date()): Promise<Record<number, number>> {
    const nowMs = now.getTime();
    const written: Record<number, number> = {};
    for (const rollup of ROLLUPS) {
      const newest = await this.store.newestAt(rollup.to);
      const oldestSource = nowMs - rollup.from.retentionSeconds * 1000;
      const lookback = nowMs - rollup.lookbackSeconds * 1000;
      const from = Math.max(oldestSource, newest === null ? oldestSource : Math.min(lookback, newest));
      written[rollup.to.seconds] = await this.store.rollUp(rollup, from, nowMs);
    }
    return written;
  }

  async prune(now: Date = new Date()): Promise<Record<number, number>> {
    const pruned: Record<number, number> = {};
    for (const tier of TIERS)
      pruned[tier.seconds] = await this.store.prune(tier, now.getTime() - tier.retentionSeconds * 1000);
    return pruned;
  }
}
