import { AsyncLocalStorage } from 'node:async_hooks';

/** What every log line written while handling one request or one job carries. */
export interface LogContext {
  /** The request's id (X-Request-Id: the caller's when sane, else generated). */
  reqId?: string;
  /** A BullMQ job's id and its queue, for the lines its processor writes. */
  jobId?: string;
  queue?: string;
}

/**
 * The context of the work running now. AsyncLocalStorage follows the work through every await,
 * so a service's `new Logger(...)` line carries the request id without being handed it.
 */
export const logContext = new AsyncLocalStorage<LogContext>();

/** Runs `work` (and everything it awaits) with `context` on its log lines. */
export function withLogContext<T>(context: LogContext, work: () => T): T {
  return logContext.run(context, work);
}
