import type { FastifyRequest } from 'fastify';
import { forbidden } from '../http/api-error.js';
import { isPanelOrigin } from '../http/request-origin.js';

/**
 * Where a browser says a request came from: the panel's own pages, another site, or nothing said
 * (curl and scripts send neither header). `Origin` decides when present; without it,
 * `Sec-Fetch-Site: same-origin` is the browser vouching for the panel, and any other value
 * (`same-site`, `cross-site`, `none`) is not the panel.
 */
export function requestSite(request: FastifyRequest, publicUrl: string | undefined): 'panel' | 'elsewhere' | 'unknown' {
  const origin = request.headers.origin;
  if (origin !== undefined) return isPanelOrigin(request, origin, publicUrl) ? 'panel' : 'elsewhere';
  const fetchSite = request.headers['sec-fetch-site'];
  if (fetchSite === undefined) return 'unknown';
  return fetchSite === 'same-origin' ? 'panel' : 'elsewhere';
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Cross-site request forgery: a browser attaches the session cookie to requests other sites make
 * it send. SameSite=Strict already withholds it from most, but not from sibling subdomains
 * ("same-site") or older browsers, so a cookie may change nothing unless the browser shows the
 * request came from the panel itself. Bearer tokens are never sent by a browser on its own.
 */
export function assertCookieRequestFromPanel(request: FastifyRequest, publicUrl: string | undefined): void {
  if (SAFE_METHODS.has(request.method)) return;
  if (requestSite(request, publicUrl) !== 'panel') {
    throw forbidden(
      'a request signed in by cookie must come from the panel itself (Origin or Sec-Fetch-Site)',
      'origin',
    );
  }
}

/**
 * Login CSRF: another site signing the browser in to an account of its choosing, so what the
 * person then does lands there. Sign-in sets the cookie, so a browser's sign-in must not come
 * from another site; callers that say nothing (scripts) are let through.
 */
export function assertSignInNotFromElsewhere(request: FastifyRequest, publicUrl: string | undefined): void {
  if (requestSite(request, publicUrl) === 'elsewhere') {
    throw forbidden('sign-in from another site is refused', 'origin');
  }
}
