import { Controller, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Route } from '../http/route.decorator.js';
import { HealthService } from './health.service.js';
import { HealthDto } from './dto/health.response.js';

@Controller()
export class HealthController {
  constructor(private readonly checks: HealthService) {}

  @Route({ method: 'GET', path: 'health', group: 'system', summary: 'Database and queue reachability (503 when either is down)', public: true, response: HealthDto, alsoAnswers: [503] })
  async health(@Res({ passthrough: true }) reply: FastifyReply) {
    const health = await this.checks.check();
    reply.status(health.status === 'ok' ? 200 : 503);
    return health;
  }
}
