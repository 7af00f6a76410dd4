import type { Logger } from 'pino';
import { scrubText } from './redact.js';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug';

/**
 * Nest's own start-up chatter: a line per module and per route (about 200 on every start), which
 * buried what an operator starting the panel needs to read. It is kept at `debug`.
 */
const STARTUP_CONTEXTS = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer']);

/**
 * Nest's LoggerService (matched by shape: this library has no framework glue) writing to pino.
 * Every `new Logger('delivery').warn(…)` in the apps lands here: Nest appends the logger's
 * context as the last argument, and `error` gets the stack before it.
 */
export class NestPinoLogger {
  constructor(readonly pino: Logger) {}

  log(message: unknown, ...rest: unknown[]): void {
    this.write(STARTUP_CONTEXTS.has(rest.at(-1) as string) ? 'debug' : 'info', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.write('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.write('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.write('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.write('debug', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.write('fatal', message, rest);
  }

  private write(level: Level, message: unknown, rest: unknown[]): void {
    if (!this.pino.isLevelEnabled(level)) return;
    const context = typeof rest.at(-1) === 'string' ? (rest.at(-1) as string) : undefined;
    const fields: Record<string, unknown> = context ? { context } : {};
    if (level === 'error' || level === 'fatal') {
      const stack = rest.length > 1 ? rest[0] : undefined;
      if (typeof stack === 'string' && stack) fields.stack = scrubText(stack);
    }
    if (message instanceof Error) {
      fields.err = message;
      this.pino[level](fields, message.message);
    } else if (typeof message === 'object' && message !== null) {
      this.pino[level]({ ...fields, ...(message as object) });
    } else {
      this.pino[level](fields, String(message));
    }
  }
}
