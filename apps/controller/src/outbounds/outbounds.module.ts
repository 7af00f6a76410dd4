import { Module } from '@nestjs/common';
import { OutboundsController } from './outbounds.controller.js';
import { OutboundsRepository } from './outbounds.repository.js';
import { OutboundsService } from './outbounds.service.js';
import { SettingsModule } from '../settings/settings.module.js';
import { ProbesService } from './probes.service.js';

/**
 * Outbounds (hops) per node and their probes. Exports OutboundsService for routing/ (the node a
 * request acts on, by the same rule).
 */
@Module({
  imports: [SettingsModule],
  controllers: [OutboundsController],
  providers: [OutboundsService, OutboundsRepository, ProbesService],
  exports: [OutboundsService],
})
export class OutboundsModule {}
