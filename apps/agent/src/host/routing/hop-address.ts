import { isIP } from 'node:net';
import { forbiddenReason } from '#libs/net/forbidden-targets.js';
import type { CommandRunner } from '../command-runner.js';

/**
 * A hop's host as an IPv4 address, resolved inside the node's namespace (through the runner:
 * `getent ahostsv4`), because redsocks and ss-redir want an address and the namespace is where
 * the traffic goes from.
 */
export async function resolveHopHost(runner: CommandRunner, host: string): Promise<string> {
  if (isIP(host) === 4) return host;
  if (isIP(host) === 6) throw new Error(`hop address ${host} is IPv6: hops are reached over IPv4 here`);
  return resolveName(runner, host, 'ahostsv4');
}

/**
 * A WireGuard hop's endpoint host as an address (IPv4 or IPv6), resolved in the node's
 * namespace. The address, not the name, goes into the hop's config: what was checked is what
 * `wg` dials (a name `wg` resolved itself could answer differently by then).
 */
export async function resolveEndpointHost(runner: CommandRunner, host: string): Promise<string> {
  if (isIP(host) !== 0) return host;
  return resolveName(runner, host, 'ahosts');
}

async function resolveName(runner: CommandRunner, host: string, database: 'ahosts' | 'ahostsv4'): Promise<string> {
  // The contract's host rule allows no leading '-'-free guarantee: never let getent read an option.
  if (host.startsWith('-')) throw new Error(`hop host ${JSON.stringify(host)} refused`);
  const { stdout } = await runner.run('getent', [database, host], { timeoutMs: 10_000 }).catch(() => ({ stdout: '' }));
  const first = stdout.split('\n')[0]?.split(/\s+/)[0] ?? '';
  if (isIP(first) === 0 || (database === 'ahostsv4' && isIP(first) !== 4))
    throw new Error(`hop host ${host} does not resolve to an ${database === 'ahostsv4' ? 'IPv4 ' : 'IP '}address`);
  return first;
}

/** A hop whose target is forbidden (settings allowPrivateTargets off): it must not run at all. */
export class ForbiddenHopTarget extends Error {}

/**
 * Refuses a hop's resolved address that is forbidden (libs/net/forbidden-targets.ts, with the
 * node's own addresses), unless private targets are allowed: a name that did not resolve at the
 * controller (or resolves differently here) is checked here, before any daemon config holds it.
 */
export function assertAllowedHopTarget(
  host: string,
  address: string,
  allowPrivateTargets: boolean,
  own: readonly string[],
): void {
  if (allowPrivateTargets) return;
  const reason = forbiddenReason(address, own);
  if (reason === null) return;
  // A name's resolved address is not named: the hop's stateError is read by every role.
  const what =
    host === address
      ? `hop address ${address} is ${reason.replace("this host's", "this node's")}`
      : `hop host ${host} resolves to a forbidden address`;
  throw new ForbiddenHopTarget(
    `${what}: private targets are not allowed (settings allowPrivateTargets), so the hop is not run`,
  );
}
