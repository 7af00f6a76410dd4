import { Global, Module, type DynamicModule } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { PANEL_RUNTIME, PREPARED_POOL, QUEUE_BACKEND, WARREN_CONFIG, type PanelRuntime } from './runtime.js';

/**
 * What start-up opened before Nest runs (config, database, queue store, prepared pool), made
 * injectable everywhere: feature modules need it and must not each re-provide it.
 */
@Global()
@Module({})
export class RuntimeModule {
  static register(runtime: PanelRuntime): DynamicModule {
    const providers = [
      { provide: PANEL_RUNTIME, useValue: runtime },
      { provide: WARREN_CONFIG, useValue: runtime.config },
      { provide: MikroORM, useValue: runtime.orm },
      { provide: QUEUE_BACKEND, useValue: runtime.queues },
      { provide: PREPARED_POOL, useValue: runtime.prepared },
    ];
    return { module: RuntimeModule, global: true, providers, exports: providers.map((provider) => provider.provide) };
  }
}
