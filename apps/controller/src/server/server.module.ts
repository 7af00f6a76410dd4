import { Module } from '@nestjs/common';
import { NodesModule } from '../nodes/nodes.module.js';
import { SettingsModule } from '../settings/settings.module.js';
import { MetaService } from './meta.service.js';
import { SecurityService } from './security.service.js';
import { ServerConfigsService } from './server-configs.service.js';
import { ServerController } from './server.controller.js';
import { ServerRepository } from './server.repository.js';

/** Panel-wide routes that belong to no one domain: security warnings, meta, messages, all server configs. */
@Module({
  imports: [SettingsModule, NodesModule],
  controllers: [ServerController],
  providers: [ServerRepository, SecurityService, MetaService, ServerConfigsService],
})
export class ServerModule {}
