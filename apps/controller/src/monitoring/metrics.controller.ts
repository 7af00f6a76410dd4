import { Controller, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { SIGNED_IN } from '#libs/contracts/user-roles.js';
import { Route } from '../http/route.decorator.js';
import { MetricsService } from './metrics.service.js';

export const METRICS_MEDIA_TYPE = 'text/plain';

@Controller()
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Route({
    method: 'GET',
    path: 'metrics',
    group: 'system',
    roles: SIGNED_IN,
    summary:
      'Prometheus metrics (text exposition format): HTTP, queues and jobs per node, sync, agents, counters, history, process',
    response: { text: METRICS_MEDIA_TYPE },
  })
  async scrape(@Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const body = await this.metrics.scrape();
    reply.header('content-type', this.metrics.contentType);
    return body;
  }
}
