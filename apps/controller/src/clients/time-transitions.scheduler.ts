import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { Job } from 'bullmq';
import { withTimeout } from '../common/with-timeout.js';
import type { AnyWorker, QueueBackend } from '../queue/queue-backend.js';
import { QUEUE_BACKEND } from '../runtime.js';
import { TimeTransitionsService } from './time-transitions.service.js';

export const SYSTEM_QUEUE = 'system';
export const TIME_TRANSITIONS_JOB = 'clients.time-transitions';
export const TIME_TRANSITIONS_EVERY_MS = 30_000;
const RETRY_MS = 30_000;

/**
 * Runs applyTimeTransitions every 30 s as a BullMQ job scheduler on the system queue. The
 * scheduler is upserted under a fixed id, so N controller replicas share one schedule and each
 * tick is one job that exactly one replica's worker takes. Start-up never waits on the queue
 * store: when it is unreachable the upsert is retried in the background.
 */
@Injectable()
export class TimeTransitionsScheduler implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('clients');
  private worker?: AnyWorker;
  private retry?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    @Inject(QUEUE_BACKEND) private readonly queues: QueueBackend,
    private readonly transitions: TimeTransitionsService,
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
        this.queues.queue(SYSTEM_QUEUE).upsertJobScheduler(
          TIME_TRANSITIONS_JOB,
          { every: TIME_TRANSITIONS_EVERY_MS },
          { name: TIME_TRANSITIONS_JOB, opts: { removeOnComplete: 100, removeOnFail: 100 } },
        ),
        5000,
        'the queue store',
      );
    } catch (error) {
      if (this.stopped) return;
      this.logger.warn(`scheduling client expiry and reset cycles failed, retrying in 30 s: ${(error as Error).message}`);
      this.retry = setTimeout(() => void this.start(), RETRY_MS);
      this.retry.unref();
      return;
    }
    if (this.stopped) return;
    this.worker = this.queues.worker(SYSTEM_QUEUE, (job) => this.process(job));
  }

  private async process(job: Job): Promise<unknown> {
    // The system queue has one worker per replica; jobs it does not know are failed, not dropped.
    if (job.name !== TIME_TRANSITIONS_JOB) throw new Error(`no handler for system job "${job.name}"`);
    return this.transitions.applyTimeTransitions(new Date());
  }
}
