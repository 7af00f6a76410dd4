import { Module } from '@nestjs/common';
import { ClientsModule } from '../clients/clients.module.js';
import { RoutingModule } from '../routing/routing.module.js';
import { SystemModule } from '../system/system.module.js';
import { AgentCredentialsRepository } from './enrolment/agent-credentials.repository.js';
import { AgentCredentialsService } from './enrolment/agent-credentials.service.js';
import { DeliveryRepository } from './delivery/delivery.repository.js';
import { DeliveryService } from './delivery/delivery.service.js';
import { AgentLinkGateway } from './link/agent-link.gateway.js';
import { AgentLinkRepository } from './link/agent-link.repository.js';
import { AgentLinkService } from './link/agent-link.service.js';
import { EnrolmentController } from './enrolment.controller.js';
import { AgentInstallController } from './agent-install/agent-install.controller.js';
import { AgentInstallService } from './agent-install/agent-install.service.js';
import { NodesController } from './nodes.controller.js';
import { NodesRepository } from './nodes.repository.js';
import { NodesService } from './nodes.service.js';
import { NodeProbeService } from './probe/node-probe.service.js';
import { NodeUpdateService } from './update/node-update.service.js';

/**
 * Nodes and their agents: the registry, enrolment and credentials, delivery of desired state,
 * and the agents' link. Other domains reach nodes only through revisions/ (bumpRevisions,
 * lockNode); NodesService is exported for the template (template/), DeliveryRepository for server/ (every
 * interface's config, rendered from the desired state). The local agent is started by panel.ts once the panel
 * listens, with AgentCredentialsService taken from the application.
 */
@Module({
  imports: [ClientsModule, SystemModule, RoutingModule],
  controllers: [NodesController, EnrolmentController, AgentInstallController],
  providers: [
    NodesRepository,
    NodesService,
    AgentCredentialsRepository,
    AgentCredentialsService,
    DeliveryRepository,
    DeliveryService,
    AgentLinkRepository,
    AgentLinkService,
    AgentLinkGateway,
    AgentInstallService,
    NodeProbeService,
    NodeUpdateService,
  ],
  exports: [NodesService, DeliveryRepository],
})
export class NodesModule {}
