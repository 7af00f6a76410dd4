import type { FastifyRequest } from 'fastify';

/**
 * The address a request reached the panel on: scheme and host as the client used them.
 * Fastify honours X-Forwarded-Proto/Host only when the peer is a configured trusted proxy.
 */
export function requestOrigin(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}
