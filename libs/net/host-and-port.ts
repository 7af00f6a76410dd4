import { isIP } from 'node:net';

/** A DNS label (underscores allowed: internal names use them), 1..63 characters, no edge hyphen. */
const LABEL = '[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?';
const HOST_NAME = new RegExp(`^${LABEL}(?:\\.${LABEL})*\\.?$`);
const HOST_AND_PORT = /^(\[[^\]]*\]|[^:[\]]*)(?::(\d{1,5}))?$/;

/**
 * Whether `text` is `host[:port]` as a URL authority carries it: a host name, an IPv4 address or
 * a bracketed IPv6 address, and a port 1..65535. Nothing else passes, so a value that does cannot
 * carry shell or URL syntax (`;`, `#`, `$`, quotes, spaces, `/`, `@`).
 */
export function isHostAndPort(text: string): boolean {
  const match = HOST_AND_PORT.exec(text);
  if (!match) return false;
  const [, host, port] = match;
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return false;
  if (host.startsWith('[')) return isIP(host.slice(1, -1)) === 6;
  return host.length <= 253 && (isIP(host) === 4 || HOST_NAME.test(host));
}
