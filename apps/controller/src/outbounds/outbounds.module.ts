import { Module } from '@nestjs/common';
import { OutboundsController } from './outbounds.controller.js';
import { OutboundsRepository } from './outbounds.repository.js';
import { OutboundsService } from './outbounds.service.js';
import { ProbeSettings } from './probe-settings.js';
import { ProbesService } from './probes.service.js';

/**
 * Outbounds (hops) per node and their probes. Exports OutboundsService for routing/ (the node a
 * request acts on, by the same rule).
 */
@Module({
  controllers: [OutboundsController],
  providers: [OutboundsService, OutboundsRepository, ProbesService, ProbeSettings],
  exports: [OutboundsService],
})
export class OutboundsModule {}
