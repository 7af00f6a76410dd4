import type { FastifyInstance } from 'fastify';
import { ApiError } from './api-error.js';

/** Media types an upload route reads as a raw stream. */
export const UPLOAD_MEDIA_TYPES = ['application/gzip', 'application/octet-stream'];
/** Routes (relative to `<base>/api/`) that take a raw upload; every other route still takes JSON only. */
const UPLOAD_ROUTES = ['backups/upload'];

/**
 * Raw uploads: the body is handed to the handler as the request stream, unread, so an archive of
 * any size is streamed to disk by the handler (which enforces its own size limit) instead of
 * buffered here under the 1 MiB JSON limit. Only the routes listed take it; elsewhere these media
 * types are the same 415 as any other non-JSON body.
 */
export function registerRawUploads(fastify: FastifyInstance): void {
  fastify.addContentTypeParser(UPLOAD_MEDIA_TYPES, (request, payload, done) => {
    const route = request.routeOptions.url ?? '';
    if (!UPLOAD_ROUTES.some((path) => route.endsWith(`/api/${path}`))) {
      done(new ApiError(415, 'unsupported content type; send application/json', ''), undefined);
      return;
    }
    done(null, payload);
  });
}
