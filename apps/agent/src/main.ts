import 'reflect-metadata';
import { Logger, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { mkdirSync } from 'node:fs';
import { AgentModule } from './agent.module.js';
import { createLogger, NestPinoLogger } from '#libs/logging/index.js';
import { AGENT_USAGE, AgentConfigError, loadAgentConfig, type AgentConfig } from './config.js';

/** `warren-agent`: the agent on every tunnel host (docs/agents.md). */
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
// JSON lines (pretty on a terminal), secrets redacted, job ids on what a job's processor logs (libs/logging).
const nestLogger = new NestPinoLogger(
  createLogger({
    name: 'warren-agent',
    level: config.logLevel,
    ...(config.logFormat ? { pretty: config.logFormat === 'pretty' } : {}),
  }),
);
Logger.overrideLogger(nestLogger);
/**
 * Stopping, however asked: SIGTERM/SIGINT, or the controller that started this agent as its local
 * agent going away (its IPC channel closes, even when it was killed). Registered before start-up,
 * so a request to stop that arrives while the agent is still starting is not lost. Bounded: with
 * the database or Redis gone, a close that cannot finish must not keep the agent alive.
 */
let app: INestApplicationContext | undefined;
let stopping = false;
function stop(reason: string): void {
  if (stopping) return;
  stopping = true;
  new Logger('agent').log(`${reason}: stopping`);
  setTimeout(() => process.exit(), 10_000).unref();
  // process.exitCode: 0, or RESTART_EXIT_CODE after an update switched releases (its launcher restarts it).
  void (app?.close() ?? Promise.resolve()).finally(() => process.exit());
}
process.once('SIGTERM', () => stop('SIGTERM'));
process.once('SIGINT', () => stop('SIGINT'));
if (process.channel) {
  process.once('disconnect', () => stop('the controller that started this agent is gone'));
  if (!process.connected) stop('the controller that started this agent is gone');
}
try {
  app = await NestFactory.createApplicationContext(AgentModule.register(config), {
    logger: nestLogger,
    abortOnError: false,
  });
  if (stopping) await app.close().finally(() => process.exit(0));
} catch (error) {
  const message = (error as Error).message;
  // Node's words for an untrusted chain say nothing of what to do about it.
  const hint = /self[- ]signed certificate|unable to (get|verify) .*certificate|certificate has expired/i.test(message)
    ? " (the panel's certificate is not trusted here: use the enrolment command the panel prints, which carries --pin sha256:… for its self-made certificate, or give --ca FILE)"
    : '';
  process.stderr.write(`warren-agent: cannot start: ${message}${hint}\n`);
  process.exit(1);
}
