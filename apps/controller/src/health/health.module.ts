import { Module } from '@nestjs/common';
import { HealthController } from './health.controller.js';
import { HealthService } from './health.service.js';

/** `GET /api/health`; exports nothing. */
@Module({ controllers: [HealthController], providers: [HealthService] })
export class HealthModule {}
