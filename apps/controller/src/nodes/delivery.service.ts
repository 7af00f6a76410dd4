import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { APPLY_JOB, applyJobId, nodeQueueName } from '#libs/contracts/node-queue.js';
import type { QueueBackend } from '../queue/queue-backend.js';
import { PANEL_RUNTIME, QUEUE_BACKEND, type PanelRuntime } from '../runtime.js';
import { readDesiredState } from './desired-state.js';
import { REVISIONS_CHANNEL } from '../revisions/revisions.js';

const SWEEP_INTERVAL_MS = 5000;
/** A job that failed is offered again after this long (the agent may have been fixed meanwhile). */
const FAILED_RETRY_MS = 60_000;

/**
 * Delivers desired state: when a node's revision grows, an `apply` job carrying the node's whole
 * state at that revision goes onto the node's queue. The trigger is PostgreSQL's NOTIFY from
 * bumpRevisions, which arrives only after the change committed; `nodes.delivered_revision` is the
 * outbox mark, so a sweep finds changes no job carries yet (listener down, controller crashed
 * between commit and enqueue, a queue store that lost its jobs) and delivers them.
 *
 * Deliveries of one node never overlap: a revision that grows while one is being delivered is
 * delivered after it, once, with whatever the state is by then (bursts of changes coalesce).
 */
@Injectable()
export class DeliveryService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('delivery');
  private listener?: pg.Client;
  private sweepTimer?: NodeJS.Timeout;
  private reconnectTimer?: NodeJS.Timeout;
  private closed = false;
  /** Nodes being delivered now; the value says whether another run is due after this one. */
  private readonly inFlight = new Map<string, { again: boolean; force: boolean }>();
  private readonly lastJob = new Map<string, string>();
  private readonly idle = new Set<() => void>();

  constructor(
    @Inject(MikroORM) private readonly orm: MikroORM,
    @Inject(QUEUE_BACKEND) private readonly queues: QueueBackend,
    @Inject(PANEL_RUNTIME) private readonly runtime: PanelRuntime,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.listen();
    this.sweepTimer = setInterval(() => void this.sweep(), SWEEP_INTERVAL_MS);
    this.sweepTimer.unref();
    void this.sweep();
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweepTimer);
    clearTimeout(this.reconnectTimer);
    await this.listener?.end().catch(() => undefined);
    await this.settled();
  }

  /**
   * Delivers the node's current state. `force` re-enqueues even when a job for the revision
   * already ran (the agent says it is behind: its host lost state, or the job was lost).
   */
  deliver(nodeId: string, force = false): void {
    const running = this.inFlight.get(nodeId);
    if (running) {
      running.again = true;
      running.force ||= force;
      return;
    }
    this.inFlight.set(nodeId, { again: false, force: false });
    void this.run(nodeId, force);
  }

  /** Resolves when no delivery is running (tests and shutdown). */
  settled(): Promise<void> {
    if (this.inFlight.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.add(resolve));
  }

  /** Finds nodes whose state no live job carries and delivers them. */
  async sweep(): Promise<void> {
    if (this.closed) return;
    try {
      const rows = await this.orm.em.fork().execute<{ id: string; desired_revision: string; delivered_revision: string }[]>(
        'select id, desired_revision, delivered_revision from nodes where desired_revision > applied_revision',
      );
      for (const row of rows) {
        const desired = Number(row.desired_revision);
        if (desired > Number(row.delivered_revision)) {
          this.deliver(row.id);
          continue;
        }
        // The job's state, not the job: getJob reads its data, the node's whole desired state (about
        // 15 MB at 100,000 clients), and this runs every 5 s for as long as an agent is behind.
        // ioredis keeps a buffer of three times the largest reply it parsed (docs/memory.md).
        const queue = this.queues.queue(nodeQueueName(row.id));
        const jobId = applyJobId(row.id, desired);
        const state = await queue.getJobState(jobId);
        if (state === 'unknown') {
          this.deliver(row.id, true);
        } else if (state === 'failed') {
          const job = await queue.getJob(jobId);
          if (!job || Date.now() - (job.finishedOn ?? 0) > FAILED_RETRY_MS) this.deliver(row.id, true);
        }
      }
    } catch (error) {
      this.logger.warn(`delivery sweep failed: ${(error as Error).message}`);
    }
  }

  private async run(nodeId: string, force: boolean): Promise<void> {
    try {
      await this.enqueue(nodeId, force);
    } catch (error) {
      // The sweep retries: delivered_revision did not move.
      this.logger.warn(`delivering node ${nodeId} failed: ${(error as Error).message}`);
    }
    const state = this.inFlight.get(nodeId)!;
    if (state.again && !this.closed) {
      this.inFlight.set(nodeId, { again: false, force: false });
      void this.run(nodeId, state.force);
      return;
    }
    this.inFlight.delete(nodeId);
    if (this.inFlight.size === 0) {
      for (const resolve of this.idle) resolve();
      this.idle.clear();
    }
  }

  private async enqueue(nodeId: string, force: boolean): Promise<void> {
    const em = this.orm.em.fork();
    const state = await readDesiredState(em, nodeId);
    if (!state) return; // the node was deleted
    const queue = this.queues.queue(nodeQueueName(nodeId));
    const jobId = applyJobId(nodeId, state.revision);
    if (force) {
      // By state, not getJob: that would read the whole state of the finished job back (see sweep).
      const existing = await queue.getJobState(jobId);
      if (existing === 'completed' || existing === 'failed') await queue.remove(jobId);
    }
    await queue.add(APPLY_JOB, state, {
      jobId,
      attempts: 5,
      backoff: { type: 'exponential', delay: 1000 },
      removeOnComplete: { count: 10 },
      removeOnFail: { count: 20 },
    });
    // An older job still waiting is superseded: the agent would apply it only to apply this next.
    const previous = this.lastJob.get(nodeId);
    if (previous && previous !== jobId) await queue.remove(previous).catch(() => undefined);
    this.lastJob.set(nodeId, jobId);
    await em.execute('update nodes set delivered_revision = greatest(delivered_revision, ?) where id = ?', [state.revision, nodeId]);
  }

  private async listen(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.runtime.databaseUrl });
    client.on('notification', (message) => {
      for (const id of message.payload?.split(',') ?? []) if (id) this.deliver(id);
    });
    const retry = () => {
      if (this.closed || this.listener !== client) return;
      this.listener = undefined;
      this.reconnectTimer = setTimeout(() => void this.listen().then(() => this.sweep()), 1000);
      this.reconnectTimer.unref();
    };
    client.on('error', retry);
    client.on('end', retry);
    this.listener = client;
    try {
      await client.connect();
      await client.query(`listen ${REVISIONS_CHANNEL}`);
    } catch (error) {
      this.logger.warn(`cannot listen for revision changes (${(error as Error).message}); retrying`);
      retry();
    }
  }
}
