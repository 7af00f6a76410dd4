import type { Logger } from '@nestjs/common';
import type { Job } from 'bullmq';
import { withTimeout } from '../common/with-timeout.js';
import type { AnyWorker, QueueBackend } from './queue-backend.js';

const RETRY_MS = 30_000;
/**
 * The schedule is upserted again this often: a Redis that restarted empty has forgotten it, and
 * nothing else would bring it back before the controller restarts. The upsert is idempotent.
 */
const RENEW_MS = 60_000;

export interface RecurringJobSpec {
  /** A queue of its own: its worker fails every job name but this one. */
  queue: string;
  name: string;
  everyMs: number;
  /** For the log, e.g. "client expiry and reset cycles". */
  what: string;
  run(): Promise<unknown>;
}

/**
 * Work that runs every N ms as a BullMQ job scheduler. The scheduler is upserted under a fixed
 * id, so N controller replicas share one schedule and each tick is one job that exactly one
 * replica's worker takes. Start-up never waits on the queue store: when it is unreachable the
 * upsert is retried in the background.
 */
export class RecurringJob {
  private worker?: AnyWorker;
  private retry?: NodeJS.Timeout;
  private renew?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly queues: QueueBackend,
    private readonly logger: Logger,
    private readonly spec: RecurringJobSpec,
  ) {}

  start(): void {
    void this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    clearInterval(this.renew);
    await this.worker?.close().catch(() => undefined);
  }

  private upsert(): Promise<unknown> {
    const { queue, name, everyMs } = this.spec;
    return withTimeout(
      this.queues
        .queue(queue)
        .upsertJobScheduler(name, { every: everyMs }, { name, opts: { removeOnComplete: 100, removeOnFail: 100 } }),
      5000,
      'the queue store',
    );
  }

  private async schedule(): Promise<void> {
    const { queue } = this.spec;
    try {
      await this.upsert();
    } catch (error) {
      if (this.stopped) return;
      this.logger.warn(`scheduling ${this.spec.what} failed, retrying in 30 s: ${(error as Error).message}`);
      this.retry = setTimeout(() => void this.schedule(), RETRY_MS);
      this.retry.unref();
      return;
    }
    if (this.stopped) return;
    this.worker = this.queues.worker(queue, (job) => this.process(job));
    this.renew = setInterval(() => void this.upsert().catch(() => undefined), RENEW_MS);
    this.renew.unref();
  }

  private async process(job: Job): Promise<unknown> {
    // Jobs this worker does not know are failed, not dropped.
    if (job.name !== this.spec.name) throw new Error(`no handler for ${this.spec.queue} job "${job.name}"`);
    return this.spec.run();
  }
}
