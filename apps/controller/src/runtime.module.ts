import { Global, Module, type DynamicModule } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { PANEL_RUNTIME, PREPARED_POOL, QUEUE_BACKEND, WARREN_CONFIG, type PanelRuntime } from './runtime.js';

const RUNTIME_TOKENS = [PANEL_RUNTIME, WARREN_CONFIG, MikroORM, QUEUE_BACKEND, PREPARED_POOL];

/**
 * What start-up opened before Nest runs (config, database, queue store, prepared statements),
 * global so every feature module injects it without importing AppModule back.
 */
@Global()
@Module({})
export class RuntimeModule {
  static register(runtime: PanelRuntime): DynamicModule {
    return {
      module: RuntimeModule,
      providers: [
        { provide: PANEL_RUNTIME, useValue: runtime },
        { provide: WARREN_CONFIG, useValue: runtime.config },
        { provide: MikroORM, useValue: runtime.orm },
        { provide: QUEUE_BACKEND, useValue: runtime.queues },
        { provide: PREPARED_POOL, useValue: runtime.prepared },
      ],
      exports: RUNTIME_TOKENS,
    };
  }
}
