import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { UnrecoverableError, type Job } from 'bullmq';
import { ApiError, conflict } from '../http/api-error.js';
import { withTimeout } from '../common/with-timeout.js';
import { awaitJob, type JobOutcome } from '../queue/await-job.js';
import type { AnyWorker, QueueBackend } from '../queue/queue-backend.js';
import { QUEUE_BACKEND } from '../runtime.js';
import { BackupNotices } from './backup-notices.js';
import { ArchiveRefused } from './backup-archive.js';
import { BackupDiskFull, BackupRunner, type RunProgress } from './backup-runner.js';
import { BackupsRepository } from './backups.repository.js';

export const BACKUPS_QUEUE = 'backups';
export type RunKind = 'backup' | 'restore';
export interface RunData {
  /** For a restore: the archive; for a backup: what started it. */
  name?: string;
  trigger: 'api' | 'schedule';
}

export interface RunView {
  id: string;
  kind: RunKind;
  state: 'waiting' | 'active' | 'completed' | 'failed';
  progress: RunProgress | null;
  name: string | null;
  trigger: RunData['trigger'];
  startedAt: Date | null;
  finishedAt: Date | null;
  result: unknown;
  error: string | null;
}

const QUEUE_TIMEOUT_MS = 5000;

/** A run that failed for a reason the caller can fix; its job's failedReason starts with this. */
const REFUSED = 'refused ';

/**
 * Backups and restores as jobs on the controller's `backups` queue: one worker per controller,
 * one job at a time, and a database lock (BackupsRepository.withRunLock) so two controllers
 * never run two at once either. A job that finds the lock taken fails as a refusal.
 */
@Injectable()
export class BackupJobs implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('backups');
  private worker?: AnyWorker;
  private stopped = false;
  private readonly made: ((name: string) => void)[] = [];

  constructor(
    @Inject(QUEUE_BACKEND) private readonly queues: QueueBackend,
    private readonly runner: BackupRunner,
    private readonly repository: BackupsRepository,
    private readonly notices: BackupNotices,
  ) {}

  onApplicationBootstrap(): void {
    void this.startWorker();
    void this.runner.store.sweepScratch().catch(() => undefined);
  }

  /**
   * The worker starts once the queue store answers (retried every 30 s), as the recurring jobs'
   * do: a worker made while the store is unreachable opens connections that retry for ever, and
   * a shutdown that cannot close it leaves the process running.
   */
  private async startWorker(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.queues.ping(2000);
        if (this.stopped) return;
        this.worker = this.queues.worker(BACKUPS_QUEUE, (job) => this.process(job));
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 30_000).unref());
      }
    }
  }

  /** A queue store that does not answer is a 503 naming it, not a request that hangs. */
  private bounded<T>(operation: Promise<T>): Promise<T> {
    return withTimeout(operation, QUEUE_TIMEOUT_MS, `the ${this.queues.kind} queue store`).catch((error: Error) => {
      throw new ApiError(503, `${error.message}: backups are unavailable until it answers`);
    });
  }

  /** The worker is the queue store's: it closes it at shutdown, bounded (queue-backend.ts). */
  onModuleDestroy(): void {
    this.stopped = true;
    this.worker = undefined;
  }

  private get queue() {
    return this.queues.queue(BACKUPS_QUEUE);
  }

  /** The run waiting or going on now, if any. */
  async current(): Promise<RunView | null> {
    const [job] = await this.bounded(this.queue.getJobs(['active', 'waiting', 'prioritized', 'delayed'], 0, 0));
    return job ? this.view(job) : null;
  }

  async find(id: string): Promise<RunView | null> {
    if (!/^\d{1,15}$/.test(id)) return null; // the queue's own ids are numbers; other keys are its internals
    const job = await this.bounded(this.queue.getJob(id));
    if (job && job.name !== 'backup' && job.name !== 'restore') return null;
    return job ? this.view(job) : null;
  }

  /** Enqueues a run; 409 while another waits or runs. */
  async start(kind: RunKind, data: RunData): Promise<string> {
    const running = await this.current();
    if (running) throw conflict(`a ${running.kind} is already running (job ${running.id}); wait for it to finish`);
    const job = await this.bounded(
      this.queue.add(kind, data, { attempts: 1, removeOnComplete: { count: 50 }, removeOnFail: { count: 50 } }),
    );
    return job.id!;
  }

  wait(id: string, timeoutMs: number): Promise<JobOutcome> {
    return awaitJob(this.queue, id, timeoutMs);
  }

  /** The refusal in a failed run's reason, if it was one: [status, message]. */
  static refusal(reason: string): [400 | 409 | 503 | 507, string] | null {
    const m = /^refused (400|409|503|507) ([\s\S]*)$/.exec(reason);
    return m ? [Number(m[1]) as 400 | 409 | 503 | 507, m[2]] : null;
  }

  /**
   * Called with each new archive's name once it is complete, on the controller that made it
   * (the Telegram bot sends it to the owner). A listener must not throw and must not hold the job.
   */
  onBackupMade(listener: (name: string) => void): void {
    this.made.push(listener);
  }

  private async process(job: Job<RunData>): Promise<unknown> {
    const report = (progress: RunProgress) => job.updateProgress(progress as unknown as object);
    try {
      const outcome = await this.repository.withRunLock<unknown>(async () => {
        // A run killed with its controller (kill -9) left its staging and half-packed archive:
        // holding the lock, no run is going on anywhere, so they go now rather than in an hour.
        const swept = await this.runner.store.sweepDeadRuns().catch(() => 0);
        if (swept > 0) this.logger.log(`removed ${swept} scratch entr${swept === 1 ? 'y' : 'ies'} of runs that died`);
        if (job.name === 'backup') return this.runner.backup(report, job.data.trigger);
        if (job.name === 'restore') return this.runner.restore(job.data.name ?? '', report);
        throw new UnrecoverableError(`no handler for backups job "${job.name}"`);
      });
      if (!outcome.ran) throw new UnrecoverableError(`${REFUSED}409 another backup or restore is running`);
      await report({ stage: 'done', percent: 100 });
      // The line carries the job's id (the queue's log context), which the API's answer names too.
      const made = (outcome.result as { name?: string } | undefined)?.name;
      this.logger.log(job.name === 'backup' ? `backup ${made} made` : `restore of ${job.data.name} done`);
      if (job.name === 'backup' && made) for (const listener of this.made) listener(made);
      // A notice that cannot be recorded does not turn a made backup into a failed one.
      if (job.name === 'backup')
        await this.notices.backupDone(made ?? String(job.id), job.data.trigger, outcome.result).catch(() => undefined);
      return outcome.result;
    } catch (error) {
      if (job.name === 'backup' && !(error instanceof UnrecoverableError && error.message.startsWith(REFUSED)))
        await this.notices.backupFailed(job, (error as Error).message).catch(() => undefined);
      if (error instanceof ArchiveRefused) throw new UnrecoverableError(`${REFUSED}${error.status} ${error.message}`);
      if (error instanceof BackupDiskFull) throw new UnrecoverableError(`${REFUSED}507 ${error.message}`);
      throw error;
    }
  }

  private async view(job: Job<RunData>): Promise<RunView> {
    const state = await job.getState();
    const progress =
      typeof job.progress === 'object' && job.progress !== null ? (job.progress as unknown as RunProgress) : null;
    return {
      id: job.id!,
      kind: job.name as RunKind,
      state: (['waiting', 'active', 'completed', 'failed'].includes(state) ? state : 'waiting') as RunView['state'],
      progress,
      name:
        job.name === 'restore'
          ? (job.data.name ?? null)
          : ((job.returnvalue as { name?: string } | null)?.name ?? null),
      trigger: job.data.trigger,
      startedAt: job.processedOn ? new Date(job.processedOn) : null,
      finishedAt: job.finishedOn ? new Date(job.finishedOn) : null,
      result: state === 'completed' ? job.returnvalue : null,
      error:
        state === 'failed' ? (BackupJobs.refusal(job.failedReason ?? '')?.[1] ?? job.failedReason ?? 'failed') : null,
    };
  }
}
