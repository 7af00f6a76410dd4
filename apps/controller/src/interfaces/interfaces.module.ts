import { Module } from '@nestjs/common';
import { SettingsModule } from '../settings/settings.module.js';
import { HostGroupsRepository } from './host-groups.repository.js';
import { HostGroupsService } from './host-groups.service.js';
import { HostsController } from './hosts.controller.js';
import { HostsRepository } from './hosts.repository.js';
import { HostsService } from './hosts.service.js';
import { InterfacesController } from './interfaces.controller.js';
import { InterfacesRepository } from './interfaces.repository.js';
import { InterfacesService } from './interfaces.service.js';

/**
 * Interfaces (tunnels), their hosts and host groups. clients/ uses only the entities and dial-targets.ts,
 * plain imports; the services are exported for the template (template/).
 */
@Module({
  imports: [SettingsModule],
  controllers: [InterfacesController, HostsController],
  providers: [
    InterfacesService,
    InterfacesRepository,
    HostsService,
    HostsRepository,
    HostGroupsService,
    HostGroupsRepository,
  ],
  exports: [InterfacesService, HostsService, HostGroupsService],
})
export class InterfacesModule {}
