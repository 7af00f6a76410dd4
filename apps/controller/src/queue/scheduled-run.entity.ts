import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * When a scheduled job last ran to completion and what it did, one row per job name (the
 * overview shows the clients' enforcement run). Written in the transaction of the run itself,
 * so a run that rolled back is not recorded as done.
 */
export const ScheduledRun = defineEntity({
  name: 'ScheduledRun',
  tableName: 'scheduled_runs',
  properties: {
    job: p.string().length(64).primary(),
    ranAt: p.datetime(),
    result: p.json<Record<string, unknown>>(),
  },
});
export type ScheduledRun = InferEntity<typeof ScheduledRun>;
