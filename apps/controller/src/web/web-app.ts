import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { WEB_PATHS } from '#libs/contracts/web-paths.js';
import { toErrorResponse } from '../http/error-response.js';
import { WEB_APP_ROUTE } from '../http/web-route-flag.js';
import type { PanelFastify } from '../http/json-body.js';

/** Marks the web app's routes (route `config`), so the route table keeps them apart from the API's. */
export { WEB_APP_ROUTE };

/** Where `npm run build:web` writes the panel's static files: `<package root>/dist/web`. */
export function defaultWebRoot(): string {
  // From source (tests) or from dist/: walk up to the folder holding package.json.
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return join(dir, 'dist', 'web');
}

/** What index.html carries for the base path; the build is made once, the base path is set per panel. */
const BASE_TAG = '<base href="/" data-warren-base>';

/** Every file of the build, as URL paths relative to the root (the only files ever served). */
function listFiles(root: string, dir = root): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? listFiles(root, path) : [relative(root, path).split('\\').join('/')];
  });
}

/**
 * Browsers may run only the panel's own scripts and talk only to the panel; Mantine writes its
 * theme into style attributes, hence 'unsafe-inline' for styles alone. QR codes are data: URLs.
 */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; font-src 'self' data:; object-src 'none'; base-uri 'self'; frame-ancestors 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
};

/**
 * Serves the web panel (apps/web, built to `root`) under the base path, outside `/api`: its built
 * files under `assets/`, and index.html, with the base path written into its `<base>`, for each of
 * the app's own pages (libs/contracts/web-paths.ts), so deep links and reloads land on the app.
 * Only those paths: an unknown path, API or not, stays the API's JSON 404, and no app route can
 * shadow an API route. Returns false when no build is there (the API runs without a panel).
 */
export async function registerWebApp(panelFastify: PanelFastify, basePath: string, root: string): Promise<boolean> {
  // fastify types routes per server kind (HTTP or HTTPS); these use nothing server-specific.
  const fastify = panelFastify as unknown as FastifyInstance;
  if (!existsSync(join(root, 'index.html'))) return false;
  // The build's own files; their precompressed twins (.br, .gz) are sent in their place, never by name.
  const files = new Set(listFiles(root).filter((file) => !/\.(br|gz)$/.test(file)));
  const index = readFileSync(join(root, 'index.html'), 'utf8').replace(
    BASE_TAG,
    `<base href="${basePath}/" data-warren-base>`,
  );
  await fastify.register(fastifyStatic as never, { root, serve: false, preCompressed: true });

  // Errors of the request layer's hooks (a NUL in the path...) answer in the API's one shape.
  const errorHandler = (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) => {
    const answer = toErrorResponse(error);
    void reply.code(answer.status).headers(answer.headers).send(answer.body);
  };
  const options = { config: { [WEB_APP_ROUTE]: true }, errorHandler };
  const notFound = (reply: FastifyReply) => reply.code(404).send({ error: 'not found', field: '' });

  const page = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply.headers(SECURITY_HEADERS).header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(index);
  for (const path of WEB_PATHS) fastify.get(`${basePath}/${path}`, options, page);

  fastify.get<{ Params: { '*'?: string } }>(`${basePath}/assets/*`, options, async (request, reply) => {
    const path = `assets/${request.params['*'] ?? ''}`;
    if (!files.has(path)) return notFound(reply);
    // Vite names built files by their content hash: they never change under the same name.
    return reply
      .headers(SECURITY_HEADERS)
      .sendFile(path, { cacheControl: false })
      .header('cache-control', 'public, max-age=31536000, immutable');
  });
  if (basePath) {
    // `/x7k2` itself: the app's relative asset paths need the trailing slash.
    fastify.get(basePath, options, async (_request, reply) => reply.redirect(`${basePath}/`, 302));
  }
  return true;
}
