/**
 * Whether an error says the database could not be reached or dropped the connection (stopped,
 * restarting, crashed, starting up, out of connection slots) rather than refused the statement.
 * Such a request is answered 503 "try again" (http/error-response.ts), never 500: nothing is wrong
 * with the request or the panel, and the pools reconnect by themselves once the server is back.
 */

/** Socket errors of a connection that could not be made or was cut. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of a server going away or not taking connections: 57P01 admin_shutdown (a fast
 * shutdown ends the sessions), 57P02 crash_shutdown (another backend crashed), 57P03
 * cannot_connect_now (starting up, shutting down, in recovery), 53300 too_many_connections; and
 * class 08, connection exceptions, except 08P01 protocol_violation: the server answers that to a
 * malformed message (a bind with more parameters than it takes), a defect to log, not to retry.
 */
const SERVER_CODES = new Set(['57P01', '57P02', '57P03', '53300']);
const CONNECTION_CLASS = /^08(?!P01)/;

/** node-postgres's own words for a connection that ended under it (it gives them no code). */
const DRIVER_MESSAGES =
  /^(Connection terminated|Client has encountered a connection error and is not queryable|Client was closed and is not queryable|timeout exceeded when trying to connect|Connection ended unexpectedly)/;

export function databaseUnreachable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 5) return false;
  const { code, message, cause, previous, errors } = error as {
    code?: unknown;
    message?: unknown;
    cause?: unknown;
    previous?: unknown;
    errors?: unknown;
  };
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || SERVER_CODES.has(code) || CONNECTION_CLASS.test(code)))
    return true;
  if (typeof message === 'string' && DRIVER_MESSAGES.test(message)) return true;
  if (Array.isArray(errors) && errors.some((inner) => databaseUnreachable(inner, depth + 1))) return true;
  return databaseUnreachable(cause, depth + 1) || databaseUnreachable(previous, depth + 1);
}
