import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { DesiredInterface, DesiredPeer } from '#libs/contracts/desired-state.js';
import { ConfigValueError, keyValue } from '#libs/wireguard/config-text.js';
import { isIpv4 } from '#libs/wireguard/ipv4.js';
import { renderServerConfig, renderServerPeers } from '#libs/wireguard/server-config.js';
import type { CommandRunner } from './command-runner.js';
import { tunnelArg } from './host-arguments.js';
import { writeFileAtomic } from '#libs/files/atomic-file.js';

/**
 * Loading an interface's keys, port and peers with `wg syncconf`, which changes only what
 * differs (peers added, removed or updated in place: a kept peer keeps its session, endpoint
 * and counters). The config is rendered once as one string and written to a 0600 file in the
 * state directory, because it holds the private key and syncconf reads a file, not stdin.
 */

export interface RenderedConfig {
  text: string;
  sha256: string;
}

export function renderInterfaceConfig(desired: DesiredInterface): RenderedConfig {
  const text = renderServerConfig({
    privateKey: desired.privateKey,
    listenPort: desired.listenPort,
    peers: desired.peers,
    // `wg` refuses AmneziaWG keys; a standard interface never carries them, whatever the job says.
    amnezia: desired.mode === 'amnezia' ? desired.amnezia : null,
  });
  return { text, sha256: createHash('sha256').update(text).digest('hex') };
}

/** The interface's config file; the name is checked, so it cannot point outside the state directory. */
export function configPath(stateDir: string, name: string): string {
  return join(stateDir, `${tunnelArg(name)}.conf`);
}

export async function syncConfig(
  runner: CommandRunner,
  stateDir: string,
  name: string,
  config: RenderedConfig,
  peers: number,
  listenPort: number,
): Promise<void> {
  const dev = tunnelArg(name);
  const file = configPath(stateDir, name);
  writeFileAtomic(file, config.text, { durable: false });
  try {
    // ~0.13 ms per peer on a 2-core machine through wireguard-go; leave a wide margin for slow hosts.
    await runner.run('wg', ['syncconf', dev, file], { timeoutMs: Math.max(30_000, peers * 3) });
  } catch (error) {
    throw (await portProblem(runner, name, listenPort)) ?? error;
  }
}

/**
 * wireguard-go answers a setting it cannot apply by hanging up, and wg dies of SIGPIPE without
 * a word. The usual cause is a listen port already bound (it is set before any peer), so that is
 * checked and named instead.
 */
async function portProblem(runner: CommandRunner, name: string, listenPort: number): Promise<Error | null> {
  try {
    const { stdout } = await runner.run('wg', ['show', tunnelArg(name), 'listen-port']);
    const actual = Number(stdout.trim());
    if (actual === listenPort) return null;
    return new Error(
      `listen port ${listenPort} could not be bound on ${name} (already in use by another interface or program?)`,
    );
  } catch {
    return null;
  }
}

/**
 * True when the interface holds exactly the desired peers' keys. `wg show <if> peers` costs
 * about a third of a no-op syncconf (both fetch the whole device; syncconf then sends every
 * peer back), so an unchanged config is verified this way instead of re-loaded.
 */
export async function livePeersMatch(runner: CommandRunner, name: string, desired: DesiredInterface): Promise<boolean> {
  const { stdout } = await runner.run('wg', ['show', tunnelArg(name), 'peers'], {
    timeoutMs: Math.max(30_000, desired.peers.length),
  });
  const keys = new Set<string>();
  for (const peer of desired.peers) keys.add(peer.publicKey);
  let count = 0;
  let from = 0;
  while (from < stdout.length) {
    let to = stdout.indexOf('\n', from);
    if (to === -1) to = stdout.length;
    if (to > from) {
      if (!keys.has(stdout.slice(from, to))) return false;
      count++;
    }
    from = to + 1;
  }
  return count === keys.size;
}

/** Peers named in one `wg set`: keeps its argument list far below the kernel's limit. */
const PEERS_PER_SET = 1000;

/**
 * A delta's peers on a live interface, touching no other peer (they keep their sessions,
 * endpoints and counters, and `wg` never reads the whole device): peers with a preshared key
 * through `wg addconf` of a file with their [Peer] blocks alone (the key is read from a file, and
 * each block replaces the peer's allowed IPs); then one `wg set` removing the gone peers and
 * setting those without a preshared key (clearing any it had). A typical delta (a device added,
 * changed or removed) is one command; commands and bytes grow with the changed peers only.
 */
export async function setPeers(
  runner: CommandRunner,
  stateDir: string,
  name: string,
  change: { peers: readonly DesiredPeer[]; removedPeers: readonly string[] },
): Promise<void> {
  const dev = tunnelArg(name);
  const keyed = change.peers.filter((peer) => peer.presharedKey);
  if (keyed.length > 0) {
    // A file of its own, 0600 (preshared keys); rendering refuses bad keys and duplicates first.
    const file = join(stateDir, `${dev}.delta.conf`);
    writeFileAtomic(file, renderServerPeers(keyed), { durable: false });
    try {
      await runner.run('wg', ['addconf', dev, file], { timeoutMs: Math.max(30_000, keyed.length * 3) });
    } finally {
      rmSync(file, { force: true });
    }
  }
  const args: string[][] = [];
  for (const key of change.removedPeers) args.push(['peer', keyValue('peer public key', key), 'remove']);
  for (const peer of change.peers) {
    if (peer.presharedKey) continue;
    if (!isIpv4(peer.ip)) throw new ConfigValueError(`peer address ${JSON.stringify(peer.ip)} is not IPv4`);
    args.push([
      'peer',
      keyValue('peer public key', peer.publicKey),
      'preshared-key',
      '/dev/null',
      'allowed-ips',
      `${peer.ip}/32`,
    ]);
  }
  for (let i = 0; i < args.length; i += PEERS_PER_SET)
    await runner.run('wg', ['set', dev, ...args.slice(i, i + PEERS_PER_SET).flat()], { timeoutMs: 30_000 });
}
