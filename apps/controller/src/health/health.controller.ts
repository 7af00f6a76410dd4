import { Controller, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Route } from '../http/route.decorator.js';
import { HealthService } from './health.service.js';
import { LivenessDto, ReadinessDto } from './dto/health.response.js';

/**
 * Two questions, two routes (docs/operations.md): liveness for a supervisor (is the process
 * answering at all: restart it if not) and readiness for a load balancer (can it serve now:
 * database and queue store answer, migrations done; send traffic elsewhere if not). A store
 * outage must not make a supervisor restart a healthy process that cannot fix it.
 */
@Controller()
export class HealthController {
  constructor(private readonly checks: HealthService) {}

  @Route({
    method: 'GET',
    path: 'health',
    group: 'system',
    summary: 'Liveness: the process answers (touches no store)',
    public: true,
    response: LivenessDto,
  })
  health() {
    return this.checks.liveness();
  }

  @Route({
    method: 'GET',
    path: 'health/ready',
    group: 'system',
    summary: 'Readiness: database and queue store answer and migrations are done (503 when not)',
    public: true,
    response: ReadinessDto,
    alsoAnswers: [503],
  })
  async ready(@Res({ passthrough: true }) reply: FastifyReply) {
    const readiness = await this.checks.readiness();
    reply.status(readiness.status === 'ready' ? 200 : 503);
    return readiness;
  }
}
