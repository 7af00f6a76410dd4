import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { QueueBackend } from '../queue/queue-backend.js';
import { RecurringJob } from '../queue/recurring-job.js';
import type { WarrenConfig } from '../config/config.js';
import { QUEUE_BACKEND, WARREN_CONFIG } from '../runtime.js';
import { UsageHistoryService } from './usage-history.service.js';

/** Its own queue: a recurring job's worker fails every job name it does not know. */
export const USAGE_HISTORY_QUEUE = 'usage-history';
export const USAGE_MAINTENANCE_JOB = 'clients.usage-history-maintenance';

/**
 * Folds and prunes the usage history on the system history's period (WARREN_HISTORY_MAINTENANCE_MS,
 * 60 s), once per tick across replicas: each run is a few set-based statements over every client.
 */
@Injectable()
export class UsageHistoryScheduler implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly job: RecurringJob;

  constructor(
    @Inject(QUEUE_BACKEND) queues: QueueBackend,
    @Inject(WARREN_CONFIG) config: WarrenConfig,
    history: UsageHistoryService,
  ) {
    this.job = new RecurringJob(queues, new Logger('clients'), {
      queue: USAGE_HISTORY_QUEUE,
      name: USAGE_MAINTENANCE_JOB,
      everyMs: config.intervals.historyMaintenanceMs,
      what: 'usage history rollups',
      run: () => history.maintain(new Date()),
    });
  }

  onApplicationBootstrap(): void {
    this.job.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.job.stop();
  }
}
