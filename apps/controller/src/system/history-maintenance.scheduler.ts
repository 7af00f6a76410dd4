import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { QueueBackend } from '../queue/queue-backend.js';
import { RecurringJob } from '../queue/recurring-job.js';
import { QUEUE_BACKEND } from '../runtime.js';
import { SystemHistoryMaintenance } from './history-maintenance.service.js';

/**
 * Its own queue rather than `system`: a recurring job's worker fails every job name it does not
 * know, and two workers on one queue would take each other's jobs.
 */
export const SYSTEM_HISTORY_QUEUE = 'system-history';
export const HISTORY_MAINTENANCE_JOB = 'system.history-maintenance';
/** Minute rollups need a run a minute; a partial window is at most this old in the 6h/24h charts. */
export const HISTORY_MAINTENANCE_EVERY_MS = 60_000;

/**
 * Rolls up and prunes the system history once a minute, once per tick across replicas: the
 * rollup is one set-based statement over every source, and running it on every replica would
 * only repeat it.
 */
@Injectable()
export class SystemHistoryScheduler implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly job: RecurringJob;

  constructor(@Inject(QUEUE_BACKEND) queues: QueueBackend, maintenance: SystemHistoryMaintenance) {
    this.job = new RecurringJob(queues, new Logger('system'), {
      queue: SYSTEM_HISTORY_QUEUE,
      name: HISTORY_MAINTENANCE_JOB,
      everyMs: HISTORY_MAINTENANCE_EVERY_MS,
      what: 'system history rollups',
      run: () => maintenance.run(new Date()),
    });
  }

  onApplicationBootstrap(): void {
    this.job.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.job.stop();
  }
}
