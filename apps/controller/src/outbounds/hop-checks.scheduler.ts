import { mapInParallel } from '../common/in-parallel.js';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { WarrenConfig } from '../config/config.js';
import type { QueueBackend } from '../queue/queue-backend.js';
import { RecurringJob } from '../queue/recurring-job.js';
import { QUEUE_BACKEND, WARREN_CONFIG } from '../runtime.js';
import { SettingsService } from '../settings/settings.service.js';
import { OutboundsRepository } from './outbounds.repository.js';
import { ProbesService } from './probes.service.js';

export const HOP_CHECK_QUEUE = 'outbounds.checks';
export const HOP_CHECK_JOB = 'outbounds.check-due';
/** How often due hops are looked for; a hop is due when its interval (jittered) has passed. */
export const HOP_CHECK_TICK_MS = 5000;
/** Checks run at once per tick (each is a probe job on its node's queue). */
export const HOP_CHECK_PARALLEL = 8;
/** Each hop's interval is shortened by up to this fraction at random, so checks spread out. */
const JITTER = 0.2;

/**
 * Periodic hop checks (issue 19 item 9). Like the backup schedule, one tick every 5 s across
 * controllers (a BullMQ job scheduler) looks for hops whose last check is older than
 * `hopCheckIntervalSeconds` (less a random part of up to 20%, drawn per hop and tick), and runs
 * an http probe for each: the same probe job `POST /api/outbounds/{id}/check` sends, on the
 * hop's node's queue, recorded the same way (state down/up, lastCheckAt, lastError, a transition
 * on a change). They are the panel's own jobs: no operator's request, so no operator's rate
 * limit. Off when the setting is 0, and whatever it says under WARREN_HOP_CHECKS=off (tests and
 * benches: docs/testing.md).
 */
@Injectable()
export class HopChecksScheduler implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly job: RecurringJob;
  private readonly logger = new Logger('outbounds');

  constructor(
    @Inject(QUEUE_BACKEND) queues: QueueBackend,
    @Inject(WARREN_CONFIG) private readonly config: WarrenConfig,
    private readonly settings: SettingsService,
    private readonly outbounds: OutboundsRepository,
    private readonly probes: ProbesService,
  ) {
    this.job = new RecurringJob(queues, this.logger, {
      queue: HOP_CHECK_QUEUE,
      name: HOP_CHECK_JOB,
      everyMs: HOP_CHECK_TICK_MS,
      what: 'periodic hop checks',
      run: () => this.runDue(new Date()),
    });
  }

  onApplicationBootstrap(): void {
    if (this.config.hopChecks) this.job.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.job.stop();
  }

  /** Checks every hop that is due; says how many it checked, or why none. */
  async runDue(now: Date): Promise<number | 'off'> {
    if (!this.config.hopChecks) return 'off';
    const { hopCheckIntervalSeconds } = await this.settings.get();
    if (hopCheckIntervalSeconds === 0) return 'off';
    const intervalMs = hopCheckIntervalSeconds * 1000;
    const due = await this.outbounds.dueForCheck(now, () => intervalMs * (1 - JITTER * Math.random()));
    await mapInParallel(due, HOP_CHECK_PARALLEL, (id) =>
      this.probes.check(id, 'http').catch((error: Error) => {
        // The hop was deleted meanwhile, or the queue store is away: the next tick tries again.
        this.logger.debug(`periodic check of outbound ${id} did not run: ${error.message}`);
      }),
    );
    return due.length;
  }
}
