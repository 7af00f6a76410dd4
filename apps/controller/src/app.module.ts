import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER, APP_PIPE, DiscoveryModule } from '@nestjs/core';
import { AuthModule } from './auth/auth.module.js';
import { ClientsModule } from './clients/clients.module.js';
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
      imports: [
        DiscoveryModule,
        RuntimeModule.register(runtime),
        AuthModule,
        TokensModule,
        HealthModule,
        InterfacesModule,
        ClientsModule,
        SystemModule,
        NodesModule,
      ],
      controllers: [DocsController],
      providers: [
        { provide: APP_FILTER, useClass: ErrorFilter },
        { provide: APP_PIPE, useClass: StrictValidationPipe },
        RouteTableService,
        DocsService,
      ],
    };
  }
}
