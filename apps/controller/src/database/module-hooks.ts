import { registerHooks, type RegisterHooksOptions } from 'node:module';

/**
 * Registers module hooks (the embedded PostgreSQL's binaries and its spawn go through them), except
 * inside Jest, whose module loader refuses hooks (it throws) and which gets its redirects from
 * jest.config.js instead. Not an environment check: a panel a test starts inherits JEST_WORKER_ID
 * but runs outside Jest and needs its hooks (a 0700 checkout's embedded-start.spec failed so).
 */
export function registerModuleHooks(hooks: RegisterHooksOptions): void {
  try {
    registerHooks(hooks);
  } catch (error) {
    if (process.env.JEST_WORKER_ID === undefined) throw error;
  }
}
