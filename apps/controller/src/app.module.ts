import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE, DiscoveryModule } from '@nestjs/core';
import { AuthController } from './auth/auth.controller.js';
import { AuthGuard } from './auth/auth.guard.js';
import { AuthService } from './auth/auth.service.js';
import { LoginThrottleService } from './auth/login-throttle.service.js';
import { TokensController } from './auth/tokens.controller.js';
import { TokensService } from './auth/tokens.service.js';
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
import { HealthController } from './health/health.controller.js';
import { ErrorFilter } from './http/error.filter.js';
import { StrictValidationPipe } from './http/validation.js';
import { HostsController } from './interfaces/hosts.controller.js';
import { HostsService } from './interfaces/hosts.service.js';
import { InterfacesController } from './interfaces/interfaces.controller.js';
import { InterfacesService } from './interfaces/interfaces.service.js';
import { NodesModule } from './nodes/nodes.module.js';
import { type PanelRuntime } from './runtime.js';
import { RuntimeModule } from './runtime.module.js';
import { SystemController } from './system/system.controller.js';
import { SYSTEM_PROVIDERS } from './system/system.providers.js';

@Module({})
export class AppModule {
  static register(runtime: PanelRuntime): DynamicModule {
    return {
      module: AppModule,
      imports: [RuntimeModule.register(runtime), DiscoveryModule, NodesModule],
      controllers: [AuthController, TokensController, DocsController, HealthController, InterfacesController, HostsController, ClientsController, DevicesController, SystemController],
      providers: [
        { provide: APP_GUARD, useClass: AuthGuard },
        { provide: APP_FILTER, useClass: ErrorFilter },
        { provide: APP_PIPE, useClass: StrictValidationPipe },
        AuthService,
        LoginThrottleService,
        TokensService,
        RouteTableService,
        DocsService,
        InterfacesService,
        HostsService,
        ClientsService,
        ClientTotals,
        DevicesService,
        ProfilesService,
        TimeTransitionsService,
        TimeTransitionsScheduler,
        ...SYSTEM_PROVIDERS,
        UsageService,
      ],
    };
  }
}
