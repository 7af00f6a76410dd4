import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { toErrorResponse } from '../http/error-response.js';
import type { PanelFastify } from '../http/json-body.js';
import { WEB_APP_ROUTE } from '../http/web-route-flag.js';
import { PAGE_SECURITY_HEADERS } from './subscription-page.js';
import {
  DOWNLOAD_PATH,
  SUBSCRIPTION_PATH,
  type PublicAnswer,
  type SubscriptionsService,
} from './subscriptions.service.js';

/** Query values as one string each; a repeated or odd parameter reads as '' (which nothing accepts). */
function queryOf(request: FastifyRequest): Record<string, string | undefined> {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const result: Record<string, string | undefined> = {};
  for (const name of ['format', 'profile', 'lang', 'download']) {
    const value = query[name];
    if (value !== undefined) result[name] = typeof value === 'string' ? value : '';
  }
  return result;
}

function send(reply: FastifyReply, answer: PublicAnswer) {
  return reply
    .code(answer.status)
    .headers(PAGE_SECURITY_HEADERS)
    .headers(answer.headers)
    .type(answer.type)
    .send(answer.body);
}

/**
 * The public link routes, outside `/api` and outside the guard: `<base>/sub/{token}` (a client's
 * page, and its files for apps) and `<base>/dl/{token}` (a one-time config). They read no cookie
 * and no Authorization header, and answer with their own strict headers (subscription-page.ts).
 * Kept apart from the API's route table, like the web app's pages.
 */
export function registerPublicLinks(panelFastify: PanelFastify, basePath: string, service: SubscriptionsService): void {
  const fastify = panelFastify as unknown as FastifyInstance;
  const errorHandler = (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) => {
    const answer = toErrorResponse(error);
    void reply.code(answer.status).headers(PAGE_SECURITY_HEADERS).headers(answer.headers).send(answer.body);
  };
  const options = { config: { [WEB_APP_ROUTE]: true }, errorHandler };
  fastify.get<{ Params: { token: string } }>(
    `${basePath}/${SUBSCRIPTION_PATH}/:token`,
    options,
    async (request, reply) =>
      send(
        reply,
        await service.open({
          token: request.params.token,
          ip: request.ip,
          query: queryOf(request),
          acceptLanguage: request.headers['accept-language'],
        }),
      ),
  );
  // No HEAD route: fastify would run the handler for it, and a link checker's or a chat preview's
  // HEAD would spend the one-time link before its recipient opens it.
  fastify.get<{ Params: { token: string } }>(
    `${basePath}/${DOWNLOAD_PATH}/:token`,
    { ...options, exposeHeadRoute: false },
    async (request, reply) =>
      send(
        reply,
        await service.download({
          token: request.params.token,
          ip: request.ip,
          query: queryOf(request),
          acceptLanguage: request.headers['accept-language'],
        }),
      ),
  );
}
