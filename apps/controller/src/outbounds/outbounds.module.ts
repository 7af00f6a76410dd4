import { Module } from '@nestjs/common';
import { OutboundsController } from './outbounds.controller.js';
import { OutboundsRepository } from './outbounds.repository.js';
import { OutboundsService } from './outbounds.service.js';
import { SettingsModule } from '../settings/settings.module.js';
import { ProbesService } from './probes.service.js';
import { HopChecksScheduler } from './hop-checks.scheduler.js';
import { OutboundToolsService } from './outbound-tools.service.js';
import { OutboundSubsController } from './outbound-subs.controller.js';
import { OutboundSubsRepository } from './outbound-subs.repository.js';
import { OutboundSubsScheduler } from './outbound-subs.scheduler.js';
import { OutboundSubsService } from './outbound-subs.service.js';

/**
 * Outbounds (hops) per node, their probes and periodic checks, and the subscriptions that make hops from a URL's list. Exports OutboundsService for
 * routing/ (the node a request acts on, by the same rule) and the repository for the metrics
 * (every hop's state).
 */
@Module({
  imports: [SettingsModule],
  controllers: [OutboundsController, OutboundSubsController],
  providers: [
    OutboundsService,
    OutboundsRepository,
    ProbesService,
    HopChecksScheduler,
    OutboundToolsService,
    OutboundSubsService,
    OutboundSubsRepository,
    OutboundSubsScheduler,
  ],
  exports: [OutboundsService, OutboundsRepository],
})
export class OutboundsModule {}
