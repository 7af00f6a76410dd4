import { Global, Module, type DynamicModule } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { PanelMetrics } from './metrics/panel-metrics.js';
import { PANEL_RUNTIME, PREPARED_POOL, QUEUE_BACKEND, WARREN_CONFIG, type PanelRuntime } from './runtime.js';

/**
 * What start-up opened before Nest runs (config, database, queue store, prepared pool), made
 * injectable everywhere: global, so every feature module reaches it without importing it.
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
      { provide: PanelMetrics, useValue: runtime.metrics },
    ];
    return { module: RuntimeModule, providers, exports: providers.map((provider) => provider.provide) };
  }
}
