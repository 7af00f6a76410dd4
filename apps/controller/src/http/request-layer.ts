import type { FastifyInstance } from 'fastify';
import { registerRawUploads } from './raw-upload.js';
import { answerClientError, answerFrameworkError } from './framework-errors.js';
import { registerJsonBody, type PanelFastify } from './json-body.js';
import { badRequest } from './api-error.js';
import { refuseUnstorableUrlText } from './url-text.js';
import { WEB_APP_ROUTE } from './web-route-flag.js';

/**
 * What every request passes before routing, guards and pipes: checks that hold for all routes,
 * present and future, because they are not per DTO. fastify options for the adapter; the Nest
 * application must be created with `bodyParser: false` so this body parser is the only one.
 */
export const requestLayerOptions = {
  frameworkErrors: answerFrameworkError,
  clientErrorHandler: answerClientError,
};

/**
 * Options for Node's HTTP(S) server. An HTTP/1.1 request without Host is refused by Node itself,
 * with an empty 400 body; let it through to be refused here, in the `{error, field}` shape.
 */
export const serverOptions = { requireHostHeader: false };

export function installRequestLayer(fastify: PanelFastify, bodyLimit: number): void {
  registerJsonBody(fastify, bodyLimit);
  registerRawUploads(fastify as unknown as FastifyInstance);
  fastify.addHook('onRequest', async (request) => {
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined)
      throw badRequest('the Host header is required');
    refuseUnstorableUrlText(request);
  });
  // API answers may carry secrets (the template, client configs, backups, tokens): no browser
  // or proxy cache may keep them. Every answer but the web app's own (its routes set their own
  // caching: hashed assets for a year, index.html revalidated) is no-store, errors and 404s too.
  // Every answer, the web app's included, is nosniff: a JSON error echoing a field must never be
  // read by a browser as HTML or script.
  fastify.addHook('onSend', async (request, reply) => {
    reply.header('x-content-type-options', 'nosniff');
    if (!(request.routeOptions.config as unknown as Record<string, unknown> | undefined)?.[WEB_APP_ROUTE])
      reply.header('cache-control', 'no-store');
  });
}
