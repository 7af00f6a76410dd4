import { Module } from '@nestjs/common';
import { HostsController } from './hosts.controller.js';
import { HostsRepository } from './hosts.repository.js';
import { HostsService } from './hosts.service.js';
import { InterfacesController } from './interfaces.controller.js';
import { InterfacesRepository } from './interfaces.repository.js';
import { InterfacesService } from './interfaces.service.js';

/**
 * Interfaces (tunnels) and their hosts. clients/ uses only the entities and dial-targets.ts,
 * plain imports; the services are exported for the template (template/).
 */
@Module({
  controllers: [InterfacesController, HostsController],
  providers: [InterfacesService, InterfacesRepository, HostsService, HostsRepository],
  exports: [InterfacesService, HostsService],
})
export class InterfacesModule {}
