import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { QueueBackend } from '../queue/queue-backend.js';
import { RecurringJob } from '../queue/recurring-job.js';
import { QUEUE_BACKEND } from '../runtime.js';
import { TableUpkeep } from './table-upkeep.js';

/** Its own queue: a recurring job's worker fails every job name it does not know. */
export const TABLE_UPKEEP_QUEUE = 'table-upkeep';
export const TABLE_UPKEEP_JOB = 'system.table-upkeep';
/** As autovacuum's own round (autovacuum_naptime's default). */
export const TABLE_UPKEEP_EVERY_MS = 60_000;

/**
 * Keeps the tables vacuumed and analyzed where the server's autovacuum is off (table-upkeep.ts),
 * once a minute across replicas. A job of its own, not a step of the system history's tick: a
 * long VACUUM held the history's rollups back, and each run has its own time budget.
 */
@Injectable()
export class TableUpkeepScheduler implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly job: RecurringJob;

  constructor(@Inject(QUEUE_BACKEND) queues: QueueBackend, upkeep: TableUpkeep) {
    this.job = new RecurringJob(queues, new Logger('database'), {
      queue: TABLE_UPKEEP_QUEUE,
      name: TABLE_UPKEEP_JOB,
      everyMs: TABLE_UPKEEP_EVERY_MS,
      what: 'table upkeep',
      run: () => upkeep.run(),
    });
  }

  onApplicationBootstrap(): void {
    this.job.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.job.stop();
  }
}
