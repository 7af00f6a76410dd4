import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { Job } from 'bullmq';
import { withTimeout } from '../common/with-timeout.js';
import type { AnyWorker, QueueBackend } from '../queue/queue-backend.js';
import { QUEUE_BACKEND } from '../runtime.js';
import { SystemHistoryMaintenance } from './history-maintenance.service.js';

/**
 * Its own queue rather than `system`: the worker on `system` (clients/time-transitions.scheduler.ts)
 * fails every job name it does not know, and two workers on one queue would take each other's jobs.
 */
export const SYSTEM_HISTORY_QUEUE = 'system-history';
export const HISTORY_MAINTENANCE_JOB = 'system.history-maintenance';
/** Minute rollups need a run a minute; a partial window is at most this old in the 6h/24h charts. */
export const HISTORY_MAINTENANCE_EVERY_MS = 60_000;
const RETRY_MS = 30_000;

/**
 * Rolls up and prunes the system history once a minute as a BullMQ job scheduler. The
 * scheduler is upserted under a fixed id, so N controller replicas share one schedule and each
 * tick is one job that exactly one replica runs: the rollup is one set-based statement over
 * every source, and running it on every replica would only repeat it. Start-up never waits on
 * the queue store: when it is unreachable the upsert is retried in the background.
 */
@Injectable()
export class SystemHistoryScheduler implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('system');
  private worker?: AnyWorker;
  private retry?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    @Inject(QUEUE_BACKEND) private readonly queues: QueueBackend,
    private readonly maintenance: SystemHistoryMaintenance,
  ) {}

  onApplicationBootstrap(): void {
    void this.start();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    await this.worker?.close().catch(() => undefined);
  }

  private async start(): Promise<void> {
    try {
      await withTimeout(
        this.queues.queue(SYSTEM_HISTORY_QUEUE).upsertJobScheduler(
          HISTORY_MAINTENANCE_JOB,
          { every: HISTORY_MAINTENANCE_EVERY_MS },
          { name: HISTORY_MAINTENANCE_JOB, opts: { removeOnComplete: 100, removeOnFail: 100 } },
        ),
        5000,
        'the queue store',
      );
    } catch (error) {
      if (this.stopped) return;
      this.logger.warn(`scheduling system history rollups failed, retrying in 30 s: ${(error as Error).message}`);
      this.retry = setTimeout(() => void this.start(), RETRY_MS);
      this.retry.unref();
      return;
    }
    if (this.stopped) return;
    this.worker = this.queues.worker(SYSTEM_HISTORY_QUEUE, (job) => this.process(job));
  }

  private async process(job: Job): Promise<unknown> {
    if (job.name !== HISTORY_MAINTENANCE_JOB) throw new Error(`no handler for system-history job "${job.name}"`);
    return this.maintenance.run(new Date());
  }
}
