import 'reflect-metadata';
import { Logger, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { mkdirSync } from 'node:fs';
import { AgentModule } from './agent.module.js';
import { AGENT_USAGE, AgentConfigError, loadAgentConfig, type AgentConfig } from './config.js';

/** `warren-agent`: the agent on every tunnel host (docs/agents.md). */
const LOG_LEVELS: Record<AgentConfig['logLevel'], LogLevel[]> = {
  error: ['fatal', 'error'],
  warn: ['fatal', 'error', 'warn'],
  log: ['fatal', 'error', 'warn', 'log'],
  debug: ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'],
};

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  process.stdout.write(AGENT_USAGE);
  process.exit(0);
}
let config: AgentConfig;
try {
  config = loadAgentConfig(args);
} catch (error) {
  if (!(error instanceof AgentConfigError)) throw error;
  process.stderr.write(`warren-agent: ${error.message}\n\n${AGENT_USAGE}`);
  process.exit(2);
}
mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
Logger.overrideLogger(LOG_LEVELS[config.logLevel]);
try {
  const app = await NestFactory.createApplicationContext(AgentModule.register(config), { logger: LOG_LEVELS[config.logLevel], abortOnError: false });
  app.enableShutdownHooks();
  // Started by a controller as its local agent: it lives only as long as that controller does.
  if (process.channel) {
    process.once('disconnect', () => {
      new Logger('agent').log('the controller that started this agent is gone: stopping');
      // Its database or Redis may be gone with it: a close that cannot finish must not keep it alive.
      setTimeout(() => process.exit(0), 10_000).unref();
      void app.close().finally(() => process.exit(0));
    });
  }
} catch (error) {
  process.stderr.write(`warren-agent: cannot start: ${(error as Error).message}\n`);
  process.exit(1);
}
