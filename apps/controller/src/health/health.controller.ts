import { Controller, Inject, Res } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyReply } from 'fastify';
import { withTimeout } from '../common/with-timeout.js';
import { Route } from '../http/route.decorator.js';
import { HealthDto } from './dto/health.response.js';
import { QUEUE_BACKEND } from '../runtime.js';
import type { QueueBackend } from '../queue/queue-backend.js';

interface Check {
  ok: boolean;
  latencyMs: number;
  error?: string;
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

@Controller()
export class HealthController {
  constructor(
    @Inject(MikroORM) private readonly orm: MikroORM,
    @Inject(QUEUE_BACKEND) private readonly queues: QueueBackend,
  ) {}

  @Route({ method: 'GET', path: 'health', group: 'system', summary: 'Database and queue reachability (503 when either is down)', public: true, response: HealthDto, alsoAnswers: [503] })
  async health(@Res({ passthrough: true }) reply: FastifyReply) {
    const [database, queue] = await Promise.all([
      timed(() => withTimeout(this.orm.em.getConnection().execute('select 1'), 2000, 'the database')),
      timed(() => this.queues.ping()),
    ]);
    const ok = database.ok && queue.ok;
    reply.status(ok ? 200 : 503);
    return { status: ok ? 'ok' : 'degraded', database, queue: { backend: this.queues.kind, ...queue } };
  }
}
