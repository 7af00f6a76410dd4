import { badRequest } from './api-error.js';
import { isStorableText, UNSTORABLE_TEXT } from './storable-text.js';

/** Percent-decoding that fails on a bad escape or bytes that are not UTF-8 (an encoded lone surrogate is not). */
function decode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/**
 * Refuses, before anything else runs, a request whose path or query string holds text the panel
 * cannot store (NUL, or bytes that are not UTF-8): a 400 naming the path parameter or query
 * parameter. fastify's query parser would pass `%00` on and keep a bad escape as it is, so the
 * raw query is decoded strictly here; the router already refuses bad escapes in the path.
 * An `onRequest` hook: it runs for every route, and for unknown ones before their 404.
 */
export function refuseUnstorableUrlText(request: { raw: { url?: string }; params: unknown }): void {
  const url = request.raw.url ?? '';
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  const params = (request.params ?? {}) as Record<string, unknown>;
  for (const [name, value] of Object.entries(params)) {
    // `*` is the catch-all of unknown routes, not a parameter anyone named: checked as the path below.
    if (name !== '*' && typeof value === 'string' && !isStorableText(value)) throw badRequest(UNSTORABLE_TEXT, name);
  }
  const decodedPath = decode(path);
  if (decodedPath === undefined) throw badRequest('malformed URL');
  if (!isStorableText(decodedPath)) throw badRequest(UNSTORABLE_TEXT);
  if (queryAt === -1) return;
  for (const pair of url.slice(queryAt + 1).split('&')) {
    const equals = pair.indexOf('=');
    const name = decode((equals === -1 ? pair : pair.slice(0, equals)).replace(/\+/g, ' '));
    const value = equals === -1 ? '' : decode(pair.slice(equals + 1).replace(/\+/g, ' '));
    // A name that is itself bad cannot be named: the field is then "".
    const field = name !== undefined && isStorableText(name) ? name : '';
    if (name === undefined || value === undefined) throw badRequest('malformed query string', field);
    if (!isStorableText(name) || !isStorableText(value)) throw badRequest(UNSTORABLE_TEXT, field);
  }
}
