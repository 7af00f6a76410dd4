import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { badRequest } from '../http/api-error.js';
import { isHostAddress } from '../http/validators.js';
import { withTimeout } from '../common/with-timeout.js';

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
  if (!match || !isHostAddress(match[1]) || (BRACKETED.test(text) && isIP(match[1]) !== 6) || !(port >= 1 && port <= 65535)) {
    throw badRequest(`${field} must be host:port (an IPv4 address, [IPv6 address] or hostname, and a port 1..65535)`, field);
  }
  return { host: match[1], port };
}

export function formatHopAddress(host: string | null, port: number | null): string | null {
  if (host === null || port === null) return null;
  return isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
}

/** Loopback, link-local and unspecified ranges, both families (and IPv4 mapped into IPv6). */
function privateRanges(): BlockList {
  const list = new BlockList();
  list.addSubnet('127.0.0.0', 8, 'ipv4');
  list.addSubnet('169.254.0.0', 16, 'ipv4');
  list.addSubnet('0.0.0.0', 8, 'ipv4');
  list.addAddress('::1', 'ipv6');
  list.addAddress('::', 'ipv6');
  list.addSubnet('fe80::', 10, 'ipv6');
  list.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');
  list.addSubnet('::ffff:169.254.0.0', 112, 'ipv6');
  return list;
}

const PRIVATE = privateRanges();

/** The controller host's own addresses, read each time (interfaces come and go). */
function ownAddresses(): Set<string> {
  const own = new Set<string>();
  for (const addresses of Object.values(networkInterfaces())) for (const address of addresses ?? []) own.add(address.address.toLowerCase());
  return own;
}

/** Why an address may not be a hop or probe target, or undefined when it may. */
export function forbiddenReason(address: string): string | undefined {
  const family = isIP(address);
  if (family === 0) return undefined;
  if (PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6')) return `${address} is a loopback, link-local or unspecified address`;
  if (ownAddresses().has(address.toLowerCase())) return `${address} is an address of the panel's own host`;
  return undefined;
}

const RESOLVE_TIMEOUT_MS = 2000;

/**
 * Refuses a hop whose host is, or resolves to, a loopback, link-local, unspecified or own
 * address: a hop there would aim probes (and clients' traffic) at the panel's private services.
 * A name that does not resolve now is accepted: it may resolve on the node, whose agent checks
 * every probe target again (the probe job's allowPrivateTargets).
 */
export async function assertAllowedHopHost(host: string, field = 'address'): Promise<void> {
  const refuse = (reason: string) =>
    badRequest(`${reason}; hops may not point at the panel's own or private addresses unless settings allow private targets`, field);
  if (host.toLowerCase() === 'localhost' || host.toLowerCase().endsWith('.localhost')) throw refuse(`${host} is this host`);
  const direct = forbiddenReason(host);
  if (direct) throw refuse(direct);
  if (isIP(host) !== 0) return;
  const resolved = await withTimeout(lookup(host, { all: true }), RESOLVE_TIMEOUT_MS, `resolving ${host}`).catch(() => []);
  for (const { address } of resolved) {
    const reason = forbiddenReason(address);
    if (reason) throw refuse(`${host} resolves to ${reason}`);
  }
}
