import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER, APP_PIPE, DiscoveryModule } from '@nestjs/core';
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
import { InterfacesModule } from './interfaces/interfaces.module.js';
import { NodesModule } from './nodes/nodes.module.js';
import type { PanelRuntime } from './runtime.js';
import { RuntimeModule } from './runtime.module.js';
import { SystemModule } from './system/system.module.js';
import { TokensModule } from './tokens/tokens.module.js';

@Module({})
export class AppModule {
  static register(runtime: PanelRuntime): DynamicModule {
    return {
      module: AppModule,
      imports: [DiscoveryModule, RuntimeModule.register(runtime), AuthModule, TokensModule, HealthModule, InterfacesModule, SystemModule, NodesModule],
      controllers: [DocsController, ClientsController, DevicesController],
      providers: [
        { provide: APP_FILTER, useClass: ErrorFilter },
        { provide: APP_PIPE, useClass: StrictValidationPipe },
        RouteTableService,
        DocsService,
        ClientsService,
        ClientTotals,
        DevicesService,
        ProfilesService,
        TimeTransitionsService,
        TimeTransitionsScheduler,
        UsageService,
      ],
    };
  }
}
