import { Module } from '@nestjs/common';
import { OutboundsModule } from '../outbounds/outbounds.module.js';
import { SettingsModule } from '../settings/settings.module.js';
import { RoutingController } from './routing.controller.js';
import { RoutingRepository } from './routing.repository.js';
import { RoutingService } from './routing.service.js';
import { RouteTestRepository } from './route-test.repository.js';
import { RouteTestService } from './route-test.service.js';
import { RuleHitsService } from './rule-hits.service.js';

/** Policy routing per node. Exports RuleHitsService for the agent link (nodes/). */
@Module({
  imports: [OutboundsModule, SettingsModule],
  controllers: [RoutingController],
  providers: [RoutingService, RoutingRepository, RuleHitsService, RouteTestService, RouteTestRepository],
  exports: [RuleHitsService, RoutingService],
})
export class RoutingModule {}
