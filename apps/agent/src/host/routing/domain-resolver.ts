import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '#libs/files/atomic-file.js';
import { ConfigValueError, textValue } from '#libs/files/config-value.js';
import { isIpv4 } from '#libs/wireguard/ipv4.js';
import type { CommandRunner } from '../command-runner.js';
import { startDaemon, stopDaemon, isOurDaemon } from './hop-daemon.js';

/**
 * Domain criteria: Debian's dnsmasq on the tunnel gateway addresses (clients use the tunnel
 * address as their DNS), forwarding to the host's resolvers and putting every IPv4 answer for a
 * listed domain (and names under it) into the routing table's set for that domain list
 * (`nftset=`). A rule on domains matches traffic to addresses the resolver has handed out since;
 * a client that resolves elsewhere (its own DoH, a hard-coded resolver) is not matched.
 * Runs only while some rule or list names domains.
 */

export function resolverFiles(stateDir: string) {
  return { config: join(stateDir, 'resolver.conf'), pid: join(stateDir, 'resolver.pid') };
}

export function renderResolverConfig(
  table: string,
  listen: readonly string[],
  domainSets: ReadonlyMap<string, readonly string[]>,
): string {
  const addresses = listen.filter(isIpv4);
  const lines = [
    'port=53',
    `listen-address=${addresses.join(',')}`,
    // Only the tunnel addresses: never a resolver on the uplink for the world to use.
    'bind-interfaces',
    'no-hosts',
    'cache-size=1000',
  ];
  for (const [set, domains] of domainSets) {
    lines.push(`nftset=/${domains.map(resolverDomain).join('/')}/4#ip#${nftName(table)}#${nftName(set)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** A domain in an `nftset=` line: `/` and `#` separate its parts, so neither may be inside one. */
function resolverDomain(domain: string): string {
  if (/[\s/#]/.test(textValue('a domain', domain)) || domain === '')
    throw new ConfigValueError(`domain ${JSON.stringify(domain)} cannot be written to the resolver's config`);
  return domain;
}

function nftName(name: string): string {
  if (!/^[A-Za-z0-9_]+$/.test(textValue('an nftables name', name)))
    throw new ConfigValueError(`nftables name ${JSON.stringify(name)} cannot be written to the resolver's config`);
  return name;
}

/**
 * Starts, restarts (config changed or process gone) or stops the resolver; returns its pid or
 * null when none is wanted.
 */
export async function reconcileResolver(
  runner: CommandRunner,
  stateDir: string,
  table: string,
  listen: readonly string[],
  domainSets: ReadonlyMap<string, readonly string[]>,
  current: { pid: number | null; configText: string | null },
): Promise<{ pid: number | null; configText: string | null }> {
  const files = resolverFiles(stateDir);
  if (domainSets.size === 0 || listen.length === 0) {
    await stopResolver(current.pid, files);
    return { pid: null, configText: null };
  }
  const text = renderResolverConfig(table, listen, domainSets);
  if (text === current.configText && isOurDaemon(current.pid, files.config)) return current;
  await stopDaemon(current.pid, files.config);
  writeFileAtomic(files.config, text, { durable: false });
  try {
    const pid = await startDaemon(runner, {
      program: 'dnsmasq',
      args: ['-C', files.config, '-x', files.pid],
      configFile: files.config,
      pidFile: files.pid,
    });
    return { pid, configText: text };
  } catch (error) {
    await stopResolver(null, files);
    throw error;
  }
}

/** Stops the resolver and removes its files, as a hop's are (dnsmasq leaves its pid file behind). */
async function stopResolver(pid: number | null, files: ReturnType<typeof resolverFiles>): Promise<void> {
  await stopDaemon(pid, files.config);
  for (const file of Object.values(files)) rmSync(file, { force: true });
}
