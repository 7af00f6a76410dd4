import { Module } from '@nestjs/common';
import { TunnelsController } from './tunnels.controller.js';
import { TunnelsRepository } from './tunnels.repository.js';
import { TunnelsService } from './tunnels.service.js';

/**
 * Restart, stop and start of tunnels on their nodes: changes of desired state like any other,
 * delivered by nodes/ (docs/interfaces.md, "Restart, stop, start").
 */
@Module({
  controllers: [TunnelsController],
  providers: [TunnelsService, TunnelsRepository],
})
export class TunnelsModule {}
