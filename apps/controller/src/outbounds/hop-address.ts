import { isIP } from 'node:net';
import { assertPublicTarget } from '../common/private-targets.js';
import { badRequest } from '../http/api-error.js';
import { isHostAddress } from '../http/validators.js';

/** A hop's `address` split: `host:port`, an IPv6 host in brackets (`[2001:db8::1]:51820`). */
export interface HopAddress {
  host: string;
  port: number;
}

const BRACKETED = /^\[([^\]]+)\]:(\d{1,5})$/;
const PLAIN = /^([^:[\]]+):(\d{1,5})$/;

export function parseHopAddress(text: string, field = 'address'): HopAddress {
  const match = BRACKETED.exec(text) ?? PLAIN.exec(text);
  const port = match ? Number(match[2]) : NaN;
  if (
    !match ||
    !isHostAddress(match[1]) ||
    (BRACKETED.test(text) && isIP(match[1]) !== 6) ||
    !(port >= 1 && port <= 65535)
  ) {
    throw badRequest(
      `${field} must be host:port (an IPv4 address, [IPv6 address] or hostname, and a port 1..65535)`,
      field,
    );
  }
  return { host: match[1], port };
}

export function formatHopAddress(host: string | null, port: number | null): string | null {
  if (host === null || port === null) return null;
  return isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * Refuses a hop whose host is, or resolves to, a forbidden address (libs/net/forbidden-targets.ts:
 * loopback, private, link-local, multicast, own…): a hop there would aim probes (and clients'
 * traffic) into internal networks. A name that does not resolve now is accepted: the node's agent
 * checks what it resolves to there, for probes and before running the hop (allowPrivateTargets
 * in the probe job and the desired state).
 */
export function assertAllowedHopHost(host: string, field = 'address'): Promise<void> {
  return assertPublicTarget(host, field, 'hops');
}

/**
 * redsocks and ss-redir take an IPv4 upstream (the agent resolves names with `getent ahostsv4`):
 * an IPv6 literal for those kinds could never run, so it is refused here rather than failing on
 * the node. A WireGuard hop's endpoint may be IPv6.
 */
export function assertReachableByKind(kind: string, host: string, field = 'address'): void {
  if (kind !== 'wireguard' && isIP(host) === 6) {
    throw badRequest(
      `a ${kind} outbound is reached over IPv4 on the node: give an IPv4 address or a host name, not ${host}`,
      field,
    );
  }
}
