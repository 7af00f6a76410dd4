import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { logContext, scrubText, type Logger } from '#libs/logging/index.js';
import type { PanelMetrics } from '../metrics/panel-metrics.js';
import type { PanelFastify } from './json-body.js';

/** A caller's X-Request-Id is kept when it is this: bounded, and nothing a log reader must escape. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export const REQUEST_ID_HEADER = 'x-request-id';

/**
 * fastify's `genReqId`: the caller's X-Request-Id when sane (a proxy or client tracing one call
 * through several services), else a new UUID. `request.id` is then the id every line carries.
 */
export function requestId(request: IncomingMessage): string {
  const incoming = request.headers[REQUEST_ID_HEADER];
  return typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/** Probes and scrapers ask every few seconds: their lines are debug, not the log's bulk. */
const QUIET_ROUTES = new Set(['/api/health', '/api/health/ready', '/api/metrics']);

/**
 * Per request: the id in the X-Request-Id response header and on every log line written while
 * the request is handled (AsyncLocalStorage entered in onRequest, and again in preHandler because
 * body parsing resumes in the socket's context), one line when it is answered, and the duration
 * histogram by route pattern (never the raw URL: the label set stays as small as the route table).
 */
export function installRequestLog(
  fastify: PanelFastify,
  options: { logger: Logger; metrics: PanelMetrics; basePath: string },
): void {
  const { logger, metrics, basePath } = options;
  const enter = (request: { id: string }, _reply: unknown, done: () => void) =>
    logContext.run({ reqId: request.id }, done);
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    enter(request, reply, done);
  });
  fastify.addHook('preHandler', enter);
  fastify.addHook('onResponse', (request, reply, done) => {
    const pattern = request.routeOptions.url;
    const route =
      pattern === undefined
        ? 'unmatched'
        : pattern.startsWith(basePath)
          ? pattern.slice(basePath.length) || '/'
          : pattern;
    const status = reply.statusCode;
    const seconds = reply.elapsedTime / 1000;
    metrics.httpDuration.observe({ method: request.method, route, status: String(status) }, seconds);
    const level = status >= 500 ? 'error' : QUIET_ROUTES.has(route) ? 'debug' : 'info';
    if (logger.isLevelEnabled(level)) {
      // The path without its query string: searches and filters are the caller's business.
      // A link's token is its whole secret: a route with one logs its pattern, never the token.
      const path =
        pattern !== undefined && pattern.includes(':token')
          ? pattern
          : scrubText(withoutLinkToken(request.url.split('?', 1)[0]!, basePath).slice(0, 512));
      logger[level](
        { reqId: request.id, method: request.method, path, route, status, ms: Math.round(reply.elapsedTime * 10) / 10 },
        'request answered',
      );
    }
    done();
  });
}

/** A path under the public link routes (`/sub/`, `/dl/`) that no route matched still hides its token. */
function withoutLinkToken(path: string, basePath: string): string {
  for (const prefix of [`${basePath}/sub/`, `${basePath}/dl/`]) {
    if (path.startsWith(prefix)) return `${prefix}:token${path.slice(prefix.length).replace(/^[^/]*/, '')}`;
  }
  return path;
}
