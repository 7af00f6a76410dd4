import type {
  FastifyInstance,
  FastifyRequest,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerBase,
} from 'fastify';
import { ApiError, badRequest } from './api-error.js';
import { findUnstorableText, UNSTORABLE_TEXT } from './storable-text.js';

/** The fastify instance as the Nest adapter types it (HTTP or HTTPS server). */
export type PanelFastify = FastifyInstance<
  RawServerBase,
  RawRequestDefaultExpression<RawServerBase>,
  RawReplyDefaultExpression<RawServerBase>
>;

/**
 * Deeper than any body a route takes (the deepest DTO nests 3 levels), shallow enough that
 * class-transformer and class-validator, which recurse per level, stay far from the stack limit
 * (2,000 levels, 4 KB of brackets, overflowed it).
 */
export const MAX_JSON_DEPTH = 64;

/** Whether the JSON text nests arrays and objects deeper than `limit`; one pass, no parsing. */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c)
        i++; // backslash: the next character is escaped, even a quote
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) {
      inString = true;
    } else if (code === 0x5b || code === 0x7b) {
      if (++depth > limit) return true;
    } else if (code === 0x5d || code === 0x7d) {
      depth--;
    }
  }
  return false;
}

/**
 * The one body parser: `application/json` only (every other media type is then fastify's 415),
 * refused before parsing when nested too deep, parsed by fastify's own parser (prototype
 * poisoning refused), then refused when a string or key holds text that cannot be stored.
 * Replaces fastify's and Nest's parsers (JSON, text/plain, urlencoded): start the Nest
 * application with `bodyParser: false`.
 */
export function registerJsonBody(fastify: PanelFastify, bodyLimit: number): void {
  const parse = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, (request, text, done) => {
    // JSON is UTF-8 (RFC 8259); a body declared in another charset would be read wrongly.
    const charset = /;\s*charset="?([^";\s]+)/i.exec(request.headers['content-type'] ?? '')?.[1];
    if (charset && !/^utf-?8$/i.test(charset)) {
      done(new ApiError(415, 'JSON bodies must be UTF-8', ''), undefined);
      return;
    }
    const body = String(text);
    // A JSON content type with nothing sent (clients set it on every call, DELETE included) is no body.
    if (body.trim() === '') {
      done(null, undefined);
      return;
    }
    if (nestsDeeperThan(body, MAX_JSON_DEPTH)) {
      done(badRequest(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`), undefined);
      return;
    }
    // fastify types its default parser for a plain HTTP server only; it reads nothing of the request.
    // The default parser answers through the callback; what it returns carries nothing.
    void parse(request as unknown as FastifyRequest, body, (error, value) => {
      if (error) return done(error, undefined);
      const field = findUnstorableText(value);
      if (field !== undefined) return done(badRequest(UNSTORABLE_TEXT, field), undefined);
      done(null, value);
    });
  });
}
