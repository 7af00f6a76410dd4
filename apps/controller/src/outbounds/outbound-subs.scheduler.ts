import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { mapInParallel } from '../common/in-parallel.js';
import type { WarrenConfig } from '../config/config.js';
import type { QueueBackend } from '../queue/queue-backend.js';
import { RecurringJob } from '../queue/recurring-job.js';
import { QUEUE_BACKEND, WARREN_CONFIG } from '../runtime.js';
import { OutboundSubsService, SUB_REFRESH_PARALLEL } from './outbound-subs.service.js';

export const SUB_REFRESH_QUEUE = 'outbounds.subscriptions';
export const SUB_REFRESH_JOB = 'outbounds.refresh-due-subscriptions';
/** How often due subscriptions are looked for; each has its own interval (at least 5 minutes). */
export const SUB_REFRESH_TICK_MS = 30_000;

/**
 * Scheduled subscription refreshes: one tick every 30 s across controllers (a BullMQ job
 * scheduler, as the hop checks) refreshes the enabled subscriptions whose interval has passed
 * since their last fetch, or that were never fetched. Off with the periodic hop checks
 * (WARREN_HOP_CHECKS=off: tests and benches, docs/testing.md), which are the panel's other
 * outbound work on a schedule.
 */
@Injectable()
export class OutboundSubsScheduler implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly job: RecurringJob;
  private readonly logger = new Logger('outbounds');

  constructor(
    @Inject(QUEUE_BACKEND) queues: QueueBackend,
    @Inject(WARREN_CONFIG) private readonly config: WarrenConfig,
    private readonly subs: OutboundSubsService,
  ) {
    this.job = new RecurringJob(queues, this.logger, {
      queue: SUB_REFRESH_QUEUE,
      name: SUB_REFRESH_JOB,
      everyMs: SUB_REFRESH_TICK_MS,
      what: 'outbound subscription refreshes',
      run: () => this.runDue(new Date()),
    });
  }

  onApplicationBootstrap(): void {
    if (this.config.hopChecks) this.job.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.job.stop();
  }

  /** Refreshes every due subscription; says how many. A failed fetch is stored on the subscription. */
  async runDue(now: Date): Promise<number> {
    const due = await this.subs.due(now);
    await mapInParallel(due, SUB_REFRESH_PARALLEL, (id) =>
      this.subs.refresh(id).catch((error: Error) => {
        // Deleted meanwhile, or the database is away: the next tick tries again.
        this.logger.debug(`scheduled refresh of outbound subscription ${id} did not run: ${error.message}`);
      }),
    );
    return due.length;
  }
}
