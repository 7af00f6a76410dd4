import type { EntityManager } from '@mikro-orm/postgresql';
import type { InferKyselyDB } from '@mikro-orm/sql';
import { type ScheduledRun } from './scheduled-run.entity.js';

type RunsDb = InferKyselyDB<typeof ScheduledRun>;

/**
 * Records that the scheduled job `job` ran at `ranAt` and what it did, in the caller's
 * transaction (so a run that rolls back is not recorded). One row per job: the latest run. A run
 * for an earlier time than the one recorded (a replica with a slow clock, a test's chosen clock)
 * does not replace it.
 */
export async function recordRun(
  em: EntityManager,
  job: string,
  ranAt: Date,
  result: Record<string, unknown>,
): Promise<void> {
  await em
    .getKysely<RunsDb>()
    .insertInto('scheduled_runs')
    .values({ job, ran_at: ranAt, result: JSON.stringify(result) as never })
    .onConflict((conflict) =>
      conflict
        .column('job')
        .doUpdateSet((eb) => ({ ran_at: eb.ref('excluded.ran_at'), result: eb.ref('excluded.result') }))
        .where('scheduled_runs.ran_at', '<=', (eb) => eb.ref('excluded.ran_at')),
    )
    .execute();
}
