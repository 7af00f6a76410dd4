import { isIP } from 'node:net';
import type { CommandRunner } from '../command-runner.js';

/**
 * A hop's host as an IPv4 address, resolved inside the node's namespace (through the runner:
 * `getent ahostsv4`), because redsocks and ss-redir want an address and the namespace is where
 * the traffic goes from.
 */
export async function resolveHopHost(runner: CommandRunner, host: string): Promise<string> {
  if (isIP(host) === 4) return host;
  if (isIP(host) === 6) throw new Error(`hop address ${host} is IPv6: hops are reached over IPv4 here`);
  // The contract's host rule allows no leading '-'-free guarantee: never let getent read an option.
  if (host.startsWith('-')) throw new Error(`hop host ${JSON.stringify(host)} refused`);
  const { stdout } = await runner.run('getent', ['ahostsv4', host], { timeoutMs: 10_000 }).catch(() => ({ stdout: '' }));
  const first = stdout.split('\n')[0]?.split(/\s+/)[0] ?? '';
  if (isIP(first) !== 4) throw new Error(`hop host ${host} does not resolve to an IPv4 address`);
  return first;
}
