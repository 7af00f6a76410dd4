import { Module } from '@nestjs/common';
import { OutboundsModule } from '../outbounds/outbounds.module.js';
import { RoutingController } from './routing.controller.js';
import { RoutingRepository } from './routing.repository.js';
import { RoutingService } from './routing.service.js';
import { RuleHitsService } from './rule-hits.service.js';

/** Policy routing per node. Exports RuleHitsService for the agent link (nodes/). */
@Module({
  imports: [OutboundsModule],
  controllers: [RoutingController],
  providers: [RoutingService, RoutingRepository, RuleHitsService],
  exports: [RuleHitsService, RoutingService],
})
export class RoutingModule {}
