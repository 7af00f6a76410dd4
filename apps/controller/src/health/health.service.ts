import { Inject, Injectable } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { withTimeout } from '../common/with-timeout.js';
import type { QueueBackend } from '../queue/queue-backend.js';
import { QUEUE_BACKEND } from '../runtime.js';

export interface Check {
  ok: boolean;
  latencyMs: number;
  error?: string;
}

export interface Health {
  status: 'ok' | 'degraded';
  database: Check;
  queue: Check & { backend: QueueBackend['kind'] };
}

async function timed(work: () => Promise<unknown>): Promise<Check> {
  const started = performance.now();
  try {
    await work();
    return { ok: true, latencyMs: Math.round((performance.now() - started) * 10) / 10 };
  } catch (error) {
    // The reason names the store and the failure kind only; connection strings never leave the process.
    const reason = error instanceof Error && /did not answer/.test(error.message) ? 'timed out' : 'unreachable';
    return { ok: false, latencyMs: Math.round(performance.now() - started), error: reason };
  }
}

/** Whether the database and the queue store answer, and how fast. */
@Injectable()
export class HealthService {
  constructor(
    @Inject(MikroORM) private readonly orm: MikroORM,
    @Inject(QUEUE_BACKEND) private readonly queues: QueueBackend,
  ) {}

  async check(): Promise<Health> {
    const [database, queue] = await Promise.all([timed(() => withTimeout(this.pingDatabase(), 2000, 'the database')), timed(() => this.queues.ping())]);
    const ok = database.ok && queue.ok;
    return { status: ok ? 'ok' : 'degraded', database, queue: { backend: this.queues.kind, ...queue } };
  }

  /** MikroORM's own round trip (a `select 1` on a pooled connection). */
  private async pingDatabase(): Promise<void> {
    const answer = await this.orm.checkConnection();
    if (!answer.ok) throw answer.error ?? new Error(answer.reason);
  }
}
