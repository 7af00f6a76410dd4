export { createLogger, type Logger, type LoggerOptions, type WarrenLogLevel } from './logger.js';
export { NestPinoLogger } from './nest-logger.js';
export { logContext, withLogContext, type LogContext } from './log-context.js';
export { scrubText, CENSOR } from './redact.js';
