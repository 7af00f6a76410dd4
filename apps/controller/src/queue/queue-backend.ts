import { Queue, createPostgresBackend, runMigrations } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
import { withTimeout } from '../common/with-timeout.js';
import { QUEUE_SCHEMA } from '../database/orm.js';

export type QueueBackendKind = 'redis' | 'postgres';

/** A BullMQ queue on either store; producers use only the backend-neutral API. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyQueue = Queue<any, any, string, any, any, string, any, any>;

/**
 * Where BullMQ keeps jobs: Redis when REDIS_URL is set, otherwise BullMQ's PostgreSQL backend in
 * its own schema of the panel's database. Producers get queues from here and never care which.
 */
export interface QueueBackend {
  readonly kind: QueueBackendKind;
  queue(name: string): AnyQueue;
  /** Resolves when the backing store answers a real queue operation within the timeout. */
  ping(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

abstract class BaseQueueBackend implements QueueBackend {
  abstract readonly kind: QueueBackendKind;
  protected readonly queues = new Map<string, AnyQueue>();

  protected abstract open(name: string): AnyQueue;

  queue(name: string): AnyQueue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = this.open(name);
      queue.on('error', () => undefined); // reachability is reported by ping(), not by crashing
      this.queues.set(name, queue);
    }
    return queue;
  }

  async ping(timeoutMs = 2000): Promise<void> {
    await withTimeout(this.queue('system').getJobCounts('waiting'), timeoutMs, `the ${this.kind} queue store`);
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.queues.values()].map((queue) => queue.close()));
    this.queues.clear();
  }
}

class RedisQueueBackend extends BaseQueueBackend {
  readonly kind = 'redis';
  private readonly connection: Redis;

  constructor(
    url: string,
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

  override async close(): Promise<void> {
    await super.close();
    this.connection.disconnect();
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

  override async close(): Promise<void> {
    await super.close();
    await this.pool.end();
  }
}

export async function openQueueBackend(options: {
  redisUrl?: string;
  databaseUrl: string;
  prefix: string;
}): Promise<QueueBackend> {
  if (options.redisUrl) return new RedisQueueBackend(options.redisUrl, options.prefix);
  // The pool is ours, so BullMQ cannot set search_path on it: every connection starts in its schema.
  const pool = new pg.Pool({
    connectionString: options.databaseUrl,
    max: 5,
    options: `-c search_path=${QUEUE_SCHEMA}`,
  });
  pool.on('error', () => undefined);
  const client = await pool.connect();
  try {
    await runMigrations(client, QUEUE_SCHEMA);
  } finally {
    client.release();
  }
  return new PostgresQueueBackend(pool);
}
