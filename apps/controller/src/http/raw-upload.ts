import type { FastifyInstance } from 'fastify';
import { ApiError } from './api-error.js';

/** Media types an upload route reads as a raw stream. */
export const UPLOAD_MEDIA_TYPES = ['application/gzip', 'application/octet-stream'];
/** Media types the client import reads (any file: JSON or a SQLite database, as bytes). */
export const IMPORT_MEDIA_TYPES = ['application/octet-stream'];
/**
 * Routes (relative to `<base>/api/`) that take a raw upload, with the 415 each answers to another
 * type; every other route still takes JSON only.
 */
const UPLOAD_ROUTES: Record<string, () => ApiError> = {
  'backups/upload': () => uploadRefused(),
  'clients/import': () => new ApiError(415, 'send the file as the body, as application/octet-stream', 'file'),
};

const uploadRoute = (route: string | undefined) =>
  Object.entries(UPLOAD_ROUTES).find(([path]) => (route ?? '').endsWith(`/api/${path}`));
const isUploadRoute = (route: string | undefined) => uploadRoute(route) !== undefined;

/** The 415 of an upload route: it names the type it takes, not JSON as every other route's does. */
export const uploadRefused = () => new ApiError(415, 'send the archive as the body, as application/gzip', 'archive');

/**
 * Raw uploads: the body is handed to the handler as the request stream, unread, so an archive of
 * any size is streamed to disk by the handler (which enforces its own size limit) instead of
 * buffered here under the 1 MiB JSON limit. Only the routes listed take it; elsewhere these media
 * types are the same 415 as any other non-JSON body.
 */
export function registerRawUploads(fastify: FastifyInstance): void {
  // Before fastify's own body parsing, whose refusal of another type says "send application/json".
  fastify.addHook('preParsing', async (request) => {
    const route = uploadRoute(request.routeOptions.url);
    if (!route) return;
    const type = request.headers['content-type']?.split(';')[0].trim().toLowerCase();
    const accepted = route[0] === 'clients/import' ? IMPORT_MEDIA_TYPES : UPLOAD_MEDIA_TYPES;
    if (type !== undefined && !accepted.includes(type)) throw route[1]();
  });
  fastify.addContentTypeParser(UPLOAD_MEDIA_TYPES, (request, payload, done) => {
    if (!isUploadRoute(request.routeOptions.url)) {
      done(new ApiError(415, 'unsupported content type; send application/json', ''), undefined);
      return;
    }
    done(null, payload);
  });
}
