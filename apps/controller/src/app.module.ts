import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE, DiscoveryModule } from '@nestjs/core';
import { AgentLinkGateway } from './agents/agent-link.gateway.js';
import { AgentLinkService } from './agents/agent-link.service.js';
import { AuthController } from './auth/auth.controller.js';
import { AuthGuard } from './auth/auth.guard.js';
import { AuthService } from './auth/auth.service.js';
import { LoginThrottleService } from './auth/login-throttle.service.js';
import { TokensController } from './auth/tokens.controller.js';
import { TokensService } from './auth/tokens.service.js';
import { ClientsModule } from './clients/clients.module.js';
import { DocsController } from './docs/docs.controller.js';
import { DocsService } from './docs/docs.service.js';
import { RouteTableService } from './docs/route-table.service.js';
import { HealthController } from './health/health.controller.js';
import { ErrorFilter } from './http/error.filter.js';
import { StrictValidationPipe } from './http/validation.js';
import { HostsController } from './interfaces/hosts.controller.js';
import { HostsService } from './interfaces/hosts.service.js';
import { InterfacesController } from './interfaces/interfaces.controller.js';
import { InterfacesService } from './interfaces/interfaces.service.js';
import { AgentCredentialsService } from './nodes/agent-credentials.service.js';
import { DeliveryService } from './nodes/delivery.service.js';
import { EnrolmentController } from './nodes/enrolment.controller.js';
import { NodesController } from './nodes/nodes.controller.js';
import { NodesService } from './nodes/nodes.service.js';
import type { PanelRuntime } from './runtime.js';
import { RuntimeModule } from './runtime.module.js';
import { SystemController } from './system/system.controller.js';
import { SYSTEM_PROVIDERS } from './system/system.providers.js';

@Module({})
export class AppModule {
  static register(runtime: PanelRuntime): DynamicModule {
    return {
      module: AppModule,
      imports: [DiscoveryModule, RuntimeModule.register(runtime), ClientsModule],
      controllers: [AuthController, TokensController, DocsController, HealthController, NodesController, EnrolmentController, InterfacesController, HostsController, SystemController],
      providers: [
        { provide: APP_GUARD, useClass: AuthGuard },
        { provide: APP_FILTER, useClass: ErrorFilter },
        { provide: APP_PIPE, useClass: StrictValidationPipe },
        AuthService,
        LoginThrottleService,
        TokensService,
        RouteTableService,
        DocsService,
        NodesService,
        InterfacesService,
        HostsService,
        ...SYSTEM_PROVIDERS,
        AgentCredentialsService,
        DeliveryService,
        AgentLinkService,
        AgentLinkGateway,
      ],
    };
  }
}
