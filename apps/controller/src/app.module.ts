import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER, APP_PIPE, DiscoveryModule } from '@nestjs/core';
import { AgentLinkGateway } from './agents/agent-link.gateway.js';
import { AgentLinkService } from './agents/agent-link.service.js';
import { AuthModule } from './auth/auth.module.js';
import { ClientsController } from './clients/clients.controller.js';
import { ClientTotals } from './clients/client-totals.js';
import { ClientsService } from './clients/clients.service.js';
import { DevicesController } from './clients/devices.controller.js';
import { DevicesService } from './clients/devices.service.js';
import { ProfilesService } from './clients/profiles.service.js';
import { TimeTransitionsScheduler } from './clients/time-transitions.scheduler.js';
import { TimeTransitionsService } from './clients/time-transitions.service.js';
import { UsageService } from './clients/usage.service.js';
import { DocsController } from './docs/docs.controller.js';
import { DocsService } from './docs/docs.service.js';
import { RouteTableService } from './docs/route-table.service.js';
import { HealthModule } from './health/health.module.js';
import { ErrorFilter } from './http/error.filter.js';
import { StrictValidationPipe } from './http/validation.js';
import { TokensModule } from './tokens/tokens.module.js';
import { InterfacesModule } from './interfaces/interfaces.module.js';
import { AgentCredentialsService } from './nodes/agent-credentials.service.js';
import { DeliveryService } from './nodes/delivery.service.js';
import { EnrolmentController } from './nodes/enrolment.controller.js';
import { NodesController } from './nodes/nodes.controller.js';
import { NodesService } from './nodes/nodes.service.js';
import type { PanelRuntime } from './runtime.js';
import { RuntimeModule } from './runtime.module.js';
import { SystemModule } from './system/system.module.js';

@Module({})
export class AppModule {
  static register(runtime: PanelRuntime): DynamicModule {
    return {
      module: AppModule,
      imports: [DiscoveryModule, RuntimeModule.register(runtime), AuthModule, TokensModule, HealthModule, InterfacesModule, SystemModule],
      controllers: [DocsController, NodesController, EnrolmentController, ClientsController, DevicesController],
      providers: [
        { provide: APP_FILTER, useClass: ErrorFilter },
        { provide: APP_PIPE, useClass: StrictValidationPipe },
        RouteTableService,
        DocsService,
        NodesService,
        ClientsService,
        ClientTotals,
        DevicesService,
        ProfilesService,
        TimeTransitionsService,
        TimeTransitionsScheduler,
        AgentCredentialsService,
        DeliveryService,
        UsageService,
        AgentLinkService,
        AgentLinkGateway,
      ],
    };
  }
}
