import { Worker, createPostgresBackend, type Job } from 'bullmq';
import pg from 'pg';
import {
  APPLY_JOB,
  applyDeltaJobSchema,
  applyJobSchema,
  nodeQueueName,
  type ApplyResult,
} from '#libs/contracts/node-queue.js';
import type { DesiredDelta } from '#libs/contracts/desired-delta.js';
import type { DesiredState } from '#libs/contracts/desired-state.js';
import { probeJobSchema, type ProbeResult } from '#libs/contracts/routing.js';
import type { QueueAccess } from '#libs/contracts/agent-link.js';
import { QUEUE_SCHEMA } from '#libs/contracts/queue-store.js';
import { withLogContext } from '#libs/logging/index.js';
import { EvalshaOnlyRedis } from './evalsha-only-redis.js';

export type ApplyHandler = (job: Job) => Promise<ApplyResult>;
export type ProbeHandler = (job: Job) => Promise<ProbeResult>;

/**
 * Jobs taken at once. BullMQ hands a worker any job of its queue (it cannot filter by name), so
 * one worker takes both kinds: applies still run one at a time (the host driver serializes them
 * in the order taken), while probes run beside them and beside each other, so a probe never
 * waits behind a long apply. Applies queue up inside the agent at most this many deep.
 */
const CONCURRENCY = 4;

/**
 * How soon a job whose agent died mid-apply is offered again. Until then the controller's
 * re-delivery collapses into it (same job id), so BullMQ's defaults (30 s lock, 30 s check, and
 * a check is skipped within an interval of the dead worker's last) left a restarted node out of
 * sync for about a minute; now about 15 s. The lock is renewed every 5 s while an apply runs
 * (applies wait on child processes, not on the event loop); a false stall would only apply the
 * same state twice.
 */
const LOCK_MS = 10_000;
const STALLED_CHECK_MS = 5_000;

/** A worker on either store; only the backend-neutral part of its API is used. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyWorker = Worker<any, any, string, any, any, any>;

/**
 * The agent's end of the work channel: a BullMQ worker on its node's queue taking apply and
 * probe jobs (applies never interleave: see CONCURRENCY). In Redis mode it logs in as the node's own Redis user, which can
 * touch nothing but this queue's keys and run no Lua but BullMQ's, by SHA (evalsha-only-redis.ts).
 */
export class ApplyWorker {
  private worker?: AnyWorker;
  private redis?: EvalshaOnlyRedis;
  private pool?: pg.Pool;

  constructor(
    private readonly nodeId: string,
    private readonly access: QueueAccess,
    private readonly queueDatabaseUrl: string | undefined,
    private readonly onError: (error: Error) => void,
  ) {}

  /** `others`: handlers of the queue's other job names (a backup's HOST_STATE_JOB). */
  start(handler: ApplyHandler, others: Record<string, (job: Job) => Promise<unknown>> = {}): void {
    const name = nodeQueueName(this.nodeId);
    // Every line a job's handler logs carries the job's id and queue (libs/logging).
    const processor = (job: Job) =>
      withLogContext({ jobId: job.id, queue: name }, async () => {
        if (job.name === APPLY_JOB) return handler(job);
        const other = others[job.name];
        if (!other) throw new Error(`unknown job ${job.name}`);
        return other(job);
      });
    if (this.access.kind === 'redis') {
      this.redis = new EvalshaOnlyRedis(this.access.url, {
        username: this.access.username,
        password: this.access.password,
        // BullMQ workers block on Redis and require unlimited retries per request.
        maxRetriesPerRequest: null,
      });
      this.redis.on('error', (error) => this.onError(error));
      this.worker = new Worker(name, processor, {
        connection: this.redis,
        prefix: this.access.prefix,
        concurrency: Object.keys(others).length > 0 ? CONCURRENCY : 1,
        lockDuration: LOCK_MS,
        stalledInterval: STALLED_CHECK_MS,
      });
    } else {
      if (!this.queueDatabaseUrl)
        throw new Error(
          'the panel keeps its queues in PostgreSQL: WARREN_AGENT_QUEUE_DATABASE_URL is required (local agent only)',
        );
      this.pool = new pg.Pool({
        connectionString: this.queueDatabaseUrl,
        max: 3 + CONCURRENCY,
        options: `-c search_path=${QUEUE_SCHEMA}`,
      });
      this.pool.on('error', (error) => this.onError(error));
      this.worker = new Worker(
        name,
        processor,
        {
          connection: this.pool,
          concurrency: Object.keys(others).length > 0 ? CONCURRENCY : 1,
          lockDuration: LOCK_MS,
          stalledInterval: STALLED_CHECK_MS,
        },
        createPostgresBackend,
      );
    }
    this.worker!.on('error', (error: Error) => this.onError(error));
  }

  async stop(): Promise<void> {
    // close() waits for the running job (a kill instead leaves it to BullMQ's stalled-job check),
    // but not forever: with its store gone it would never return.
    const closing = this.worker?.close();
    await Promise.race([closing, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]).catch(() => undefined);
    this.redis?.disconnect();
    await Promise.race([this.pool?.end(), new Promise((resolve) => setTimeout(resolve, 2_000).unref())]).catch(
      () => undefined,
    );
  }
}

/** The whole state, or a delta (`kind: 'delta'`). */
export function parseApplyJob(job: Job): DesiredState | DesiredDelta {
  const data = job.data as { kind?: unknown } | null;
  return data?.kind === 'delta' ? applyDeltaJobSchema.parse(data) : applyJobSchema.parse(data);
}

export function parseProbeJob(job: Job) {
  return probeJobSchema.parse(job.data);
}
