import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { badRequest } from '../http/api-error.js';
import { withTimeout } from './with-timeout.js';

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
 * Refuses a target (a hop's host, the probe URL's host) that is, or resolves to, a loopback,
 * link-local, unspecified or own address, unless settings allow private targets: the panel would
 * otherwise make requests at its own private services on a caller's behalf. A name that does not
 * resolve now is accepted: the agent checks every probe target again where it runs.
 */
export async function assertPublicTarget(host: string, field: string, what: string): Promise<void> {
  const refuse = (reason: string) =>
    badRequest(`${reason}; ${what} may not point at the panel's own or private addresses unless settings allow private targets`, field);
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
