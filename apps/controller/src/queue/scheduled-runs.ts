import type { EntityManager } from '@mikro-orm/postgresql';
import { ScheduledRun } from './scheduled-run.entity.js';

/**
 * Records that the scheduled job `job` ran at `ranAt` and what it did, in the caller's
 * transaction (so a run that rolls back is not recorded). One row per job: the latest run.
 */
export async function recordRun(em: EntityManager, job: string, ranAt: Date, result: Record<string, unknown>): Promise<void> {
  await em.upsert(ScheduledRun, { job, ranAt, result });
}
