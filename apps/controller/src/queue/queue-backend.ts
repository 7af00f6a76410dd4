import { Queue, Worker, createPostgresBackend, runMigrations, type Processor, type WorkerOptions } from 'bullmq';
import { Logger } from '@nestjs/common';
import { Redis } from 'ioredis';
import { hostname } from 'node:os';
import pg from 'pg';
import { withLogContext } from '#libs/logging/index.js';
import { withTimeout } from '../common/with-timeout.js';
import { QUEUE_SCHEMA } from '#libs/contracts/queue-store.js';
import { holdOffTableUpkeep, releaseTableUpkeep } from '../database/upkeep-hold-off.js';

export type QueueBackendKind = 'redis' | 'postgres';

/**
 * The name this controller's workers stamp on every job they run (BullMQ's `processedBy`): with
 * several controllers on one store, it says which one ran a scheduled tick or a backup.
 */
export const WORKER_NAME = `controller ${hostname()} pid ${process.pid}`;

const logger = new Logger('queue');

/** A BullMQ queue on either store; producers use only the backend-neutral API. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyQueue = Queue<any, any, string, any, any, string, any, any>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyWorker = Worker<any, any, string, any, any, any>;

/**
 * Where BullMQ keeps jobs: Redis when REDIS_URL is set, otherwise BullMQ's PostgreSQL backend in
 * its own schema of the panel's database. Producers get queues from here and never care which.
 */
export interface QueueBackend {
  readonly kind: QueueBackendKind;
  queue(name: string): AnyQueue;
  /**
   * A worker for one of the controller's own queues (e.g. `system`), on the same store; closed with
   * it. `options`: BullMQ's stall detection (lockDuration, stalledInterval, maxStalledCount).
   */
  worker(name: string, processor: Processor, options?: WorkerTuning): AnyWorker;
  /** Resolves when the backing store answers a real queue operation within the timeout. */
  ping(timeoutMs?: number): Promise<void>;
  /**
   * Redis' `maxmemory` in bytes (0: no limit), read from INFO; null on the PostgreSQL backend,
   * which has no such setting. A Redis without a limit grows until the host kills it.
   */
  memoryLimit(timeoutMs?: number): Promise<number | null>;
  close(): Promise<void>;
}

export type WorkerTuning = Pick<WorkerOptions, 'lockDuration' | 'stalledInterval' | 'maxStalledCount' | 'concurrency'>;

/** Told when a job of one of the controller's own queues ends (for the metrics). */
export type JobDoneObserver = (queue: string, outcome: 'completed' | 'failed') => void;

abstract class BaseQueueBackend implements QueueBackend {
  abstract readonly kind: QueueBackendKind;
  onJobDone?: JobDoneObserver;
  protected readonly queues = new Map<string, AnyQueue>();
  protected readonly workers = new Set<AnyWorker>();

  protected abstract open(name: string): AnyQueue;
  protected abstract openWorker(name: string, processor: Processor, options?: WorkerTuning): AnyWorker;

  queue(name: string): AnyQueue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = this.open(name);
      queue.on('error', () => undefined); // reachability is reported by ping(), not by crashing
      this.queues.set(name, queue);
    }
    return queue;
  }

  worker(name: string, processor: Processor, options?: WorkerTuning): AnyWorker {
    // Every line the job's processor logs carries its id and queue (libs/logging).
    const inContext: Processor = (job, token, signal) =>
      withLogContext({ jobId: job.id, queue: name }, async () => {
        logger.debug(`job ${job.name} started`);
        try {
          const value = await processor(job, token, signal);
          this.onJobDone?.(name, 'completed');
          logger.debug(`job ${job.name} completed`);
          return value;
        } catch (error) {
          this.onJobDone?.(name, 'failed');
          logger.warn(`job ${job.name} failed: ${(error as Error).message}`);
          throw error;
        }
      });
    const worker = this.openWorker(name, inContext, options);
    worker.on('error', () => undefined); // a store outage is reported by ping(), not by crashing
    this.workers.add(worker);
    return worker;
  }

  async ping(timeoutMs = 2000): Promise<void> {
    await withTimeout(this.queue('system').getJobCounts('waiting'), timeoutMs, `the ${this.kind} queue store`);
  }

  abstract memoryLimit(timeoutMs?: number): Promise<number | null>;

  async close(): Promise<void> {
    // Bounded: a worker cut off from its store must not hold up shutdown (its connection is dropped next).
    await Promise.allSettled([...this.workers].map((worker) => withTimeout(worker.close(), 5000, 'a queue worker')));
    this.workers.clear();
    await Promise.allSettled([...this.queues.values()].map((queue) => queue.close()));
    this.queues.clear();
  }
}

class RedisQueueBackend extends BaseQueueBackend {
  readonly kind = 'redis';
  private readonly connection: Redis;
  private readonly workerConnections: Redis[] = [];

  constructor(
    private readonly url: string,
    private readonly prefix: string,
  ) {
    super();
    // Producers fail fast instead of queueing commands forever while Redis is away.
    this.connection = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: true, lazyConnect: false });
    this.connection.on('error', () => undefined);
  }

  protected open(name: string): AnyQueue {
    return new Queue(name, { connection: this.connection, prefix: this.prefix, skipWaitingForReady: true });
  }

  protected openWorker(name: string, processor: Processor, options?: WorkerTuning): AnyWorker {
    // Workers block on Redis, which BullMQ allows only with unlimited retries per request.
    const connection = new Redis(this.url, { maxRetriesPerRequest: null });
    connection.on('error', () => undefined);
    this.workerConnections.push(connection);
    return new Worker(name, processor, { ...options, connection, prefix: this.prefix, name: WORKER_NAME });
  }

  async memoryLimit(timeoutMs = 2000): Promise<number | null> {
    const info = await withTimeout(this.connection.info('memory'), timeoutMs, 'the redis queue store');
    const match = /^maxmemory:(\d+)\r?$/m.exec(info);
    return match ? Number(match[1]) : null;
  }

  override async close(): Promise<void> {
    await super.close();
    this.connection.disconnect();
    for (const connection of this.workerConnections.splice(0)) connection.disconnect();
  }
}

class PostgresQueueBackend extends BaseQueueBackend {
  readonly kind = 'postgres';

  constructor(private readonly pool: pg.Pool) {
    super();
  }

  protected open(name: string): AnyQueue {
    return new Queue(name, { connection: this.pool }, createPostgresBackend);
  }

  protected openWorker(name: string, processor: Processor, options?: WorkerTuning): AnyWorker {
    return new Worker(name, processor, { ...options, connection: this.pool, name: WORKER_NAME }, createPostgresBackend);
  }

  memoryLimit(): Promise<number | null> {
    return Promise.resolve(null);
  }

  override async close(): Promise<void> {
    await super.close();
    await this.pool.end();
  }
}

export async function openQueueBackend(options: {
  redisUrl?: string;
  databaseUrl: string;
  prefix: string;
  onJobDone?: JobDoneObserver;
}): Promise<QueueBackend> {
  const backend = await openStore(options);
  backend.onJobDone = options.onJobDone;
  return backend;
}

async function openStore(options: {
  redisUrl?: string;
  databaseUrl: string;
  prefix: string;
}): Promise<BaseQueueBackend> {
  if (options.redisUrl) return new RedisQueueBackend(options.redisUrl, options.prefix);
  // The pool is ours, so BullMQ cannot set search_path on it: every connection starts in its schema.
  // Every worker on a user-supplied pool holds one pooled connection for its LISTEN as long as it
  // runs: the controller's workers (system, system history, table upkeep, inventory, backups,
  // backup schedule, …), and room for queries. With 5 the workers alone took the pool and every queue
  // operation waited forever.
  const pool = new pg.Pool({
    connectionString: options.databaseUrl,
    max: 16,
    options: `-c search_path=${QUEUE_SCHEMA}`,
  });
  pool.on('error', () => undefined);
  // BullMQ's PostgreSQL backend adds an 'error' listener to the pool per queue and worker: a
  // panel has more than Node's default ten, which is expected and no leak.
  pool.setMaxListeners(0);
  const client = await pool.connect();
  try {
    // BullMQ's migrations alter the queue store's tables, which the table upkeep vacuums: it gives
    // way first (upkeep-hold-off.ts). Every start, as BullMQ tells no pending migrations apart:
    // at most one upkeep statement cut short, taken again next minute.
    await holdOffTableUpkeep(client);
    try {
      await runMigrations(client, QUEUE_SCHEMA);
    } finally {
      await releaseTableUpkeep(client);
    }
  } finally {
    client.release();
  }
  return new PostgresQueueBackend(pool);
}
