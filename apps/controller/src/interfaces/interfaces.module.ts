import { Module } from '@nestjs/common';
import { HostsController } from './hosts.controller.js';
import { HostsRepository } from './hosts.repository.js';
import { HostsService } from './hosts.service.js';
import { InterfacesController } from './interfaces.controller.js';
import { InterfacesRepository } from './interfaces.repository.js';
import { InterfacesService } from './interfaces.service.js';

/**
 * Interfaces (tunnels) and their hosts. Exports nothing: clients/ uses only the entities and
 * dial-targets.ts, plain imports rather than providers.
 */
@Module({
  controllers: [InterfacesController, HostsController],
  providers: [InterfacesService, InterfacesRepository, HostsService, HostsRepository],
})
export class InterfacesModule {}
