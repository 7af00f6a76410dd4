import { Module } from '@nestjs/common';
import { OutboundsModule } from '../outbounds/outbounds.module.js';
import { SystemModule } from '../system/system.module.js';
import { MetricsController } from './metrics.controller.js';
import { MetricsService } from './metrics.service.js';

/** `GET /api/metrics` for Prometheus (docs/operations.md); exports nothing. */
@Module({ imports: [SystemModule, OutboundsModule], controllers: [MetricsController], providers: [MetricsService] })
export class MonitoringModule {}
