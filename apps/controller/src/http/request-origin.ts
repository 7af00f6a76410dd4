import type { FastifyRequest } from 'fastify';
import { isHostAndPort } from '#libs/net/host-and-port.js';
import { badRequest } from './api-error.js';

/**
 * The address people reach the panel on, for what it prints (the enrolment command, curl
 * examples, `baseUrl`, the OpenAPI server): `WARREN_PUBLIC_URL` when set, otherwise the scheme
 * and host the request reached (fastify honours X-Forwarded-Proto/Host only from a configured
 * trusted proxy). The Host header is the caller's to choose, so a value that is not a valid
 * host[:port] is refused (400) rather than printed or replaced by a guess.
 */
export function requestOrigin(request: FastifyRequest, publicUrl: string | undefined): string {
  if (publicUrl) return publicUrl;
  const { protocol, host } = request;
  if ((protocol !== 'http' && protocol !== 'https') || typeof host !== 'string' || !isHostAndPort(host)) {
    throw badRequest(
      "the address this request reached (Host, or a trusted proxy's X-Forwarded-Host and -Proto) is not http(s)://host[:port]; set WARREN_PUBLIC_URL to print the panel's address",
    );
  }
  return `${protocol}://${host}`;
}

/**
 * Whether an `Origin` header names the panel: its WARREN_PUBLIC_URL, or the address this request
 * reached (scheme, host and port; a base path is no part of an origin). `null` and anything
 * unparsable are not the panel.
 */
export function isPanelOrigin(request: FastifyRequest, origin: string, publicUrl: string | undefined): boolean {
  const sameOrigin = (panel: () => string) => {
    try {
      return new URL(origin).origin === new URL(panel()).origin;
    } catch {
      return false;
    }
  };
  return (
    (publicUrl !== undefined && sameOrigin(() => publicUrl)) || sameOrigin(() => requestOrigin(request, undefined))
  );
}
