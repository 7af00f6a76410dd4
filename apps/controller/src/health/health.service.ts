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

export interface Liveness {
  status: 'ok';
  uptimeSeconds: number;
}

export interface Readiness {
  status: 'ready' | 'not ready';
  database: Check;
  queue: Check & { backend: QueueBackend['kind'] };
  /** -1 pending: the migration table could not be read (the database check says why). */
  migrations: { ok: boolean; pending: number };
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

/** Whether the process answers (liveness); whether it can serve: stores answer, schema current (readiness). */
@Injectable()
export class HealthService {
  constructor(
    @Inject(MikroORM) private readonly orm: MikroORM,
    @Inject(QUEUE_BACKEND) private readonly queues: QueueBackend,
  ) {}

  /** Answering is the whole test: nothing here waits on a store. */
  liveness(): Liveness {
    return { status: 'ok', uptimeSeconds: Math.round(process.uptime() * 10) / 10 };
  }

  async readiness(): Promise<Readiness> {
    const [database, queue, pending] = await Promise.all([
      timed(() => withTimeout(this.pingDatabase(), 2000, 'the database')),
      timed(() => this.queues.ping()),
      withTimeout(this.pendingMigrations(), 2000, 'the database').catch(() => -1),
    ]);
    const migrations = { ok: pending === 0, pending };
    const ready = database.ok && queue.ok && migrations.ok;
    return {
      status: ready ? 'ready' : 'not ready',
      database,
      queue: { backend: this.queues.kind, ...queue },
      migrations,
    };
  }

  /** Start-up runs them before listening; a restore of an older schema or a shared database changed under us would show here. */
  private async pendingMigrations(): Promise<number> {
    return (await this.orm.migrator.getPending()).length;
  }

  /** MikroORM's own round trip (a `select 1` on a pooled connection). */
  private async pingDatabase(): Promise<void> {
    const answer = await this.orm.checkConnection();
    if (!answer.ok) throw answer.error ?? new Error(answer.reason);
  }
}
