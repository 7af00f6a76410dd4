import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { QueueBackend } from '../queue/queue-backend.js';
import { RecurringJob } from '../queue/recurring-job.js';
import type { WarrenConfig } from '../config/config.js';
import { QUEUE_BACKEND, WARREN_CONFIG } from '../runtime.js';
import { SystemHistoryMaintenance } from './history-maintenance.service.js';

/**
 * Its own queue rather than `system`: a recurring job's worker fails every job name it does not
 * know, and two workers on one queue would take each other's jobs.
 */
export const SYSTEM_HISTORY_QUEUE = 'system-history';
export const HISTORY_MAINTENANCE_JOB = 'system.history-maintenance';

/**
 * Rolls up and prunes the system history once a minute (WARREN_HISTORY_MAINTENANCE_MS: minute
 * rollups need a run a minute; a partial window is at most this old in the 6h/24h charts), once
 * per tick across replicas: the rollup is one set-based statement over every source, and
 * running it on every replica would only repeat it.
 */
@Injectable()
export class SystemHistoryScheduler implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly job: RecurringJob;

  constructor(
    @Inject(QUEUE_BACKEND) queues: QueueBackend,
    @Inject(WARREN_CONFIG) config: WarrenConfig,
    maintenance: SystemHistoryMaintenance,
  ) {
    this.job = new RecurringJob(queues, new Logger('system'), {
      queue: SYSTEM_HISTORY_QUEUE,
      name: HISTORY_MAINTENANCE_JOB,
      everyMs: config.intervals.historyMaintenanceMs,
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
