import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { HopConfig } from '#libs/contracts/routing.js';
import { writeFileAtomic } from '#libs/files/atomic-file.js';
import { integerValue } from '#libs/files/config-value.js';
import { keyValue, portValue } from '#libs/wireguard/config-text.js';
import { parseInterfaceAddress, reconcileAddressing } from '../addressing.js';
import type { CommandRunner } from '../command-runner.js';
import { tunnelArg } from '../host-arguments.js';
import type { Link } from '../links.js';
import type { Driver } from '../managed-state.js';
import { createLink } from '../wireguard-link.js';

/**
 * A WireGuard hop: a second WireGuard interface (same driver as the tunnels: kernel module or
 * wireguard-go, via wireguard-link.ts) with one peer, the upstream. Its peer accepts 0.0.0.0/0:
 * whatever policy routing sends into the hop's table goes to the upstream (what the upstream
 * accepts from us is its business). No route is added here: the hop's table gets its default
 * route from policy-routes.ts.
 */

export type WireguardHop = Extract<HopConfig, { kind: 'wireguard' }>;

export function wireguardHopConfigPath(stateDir: string, slot: number): string {
  return join(stateDir, `hop-${slot}.wg.conf`);
}

export function renderWireguardHop(config: WireguardHop): { text: string; sha256: string } {
  const host = config.endpointHost.includes(':') ? `[${config.endpointHost}]` : config.endpointHost;
  if (!/^[A-Za-z0-9.:_[\]-]+$/.test(host) || host.startsWith('-'))
    throw new Error(`endpoint host ${JSON.stringify(config.endpointHost)} refused`);
  const lines = [
    '[Interface]',
    `PrivateKey = ${keyValue('hop private key', config.privateKey)}`,
    '',
    '[Peer]',
    `PublicKey = ${keyValue('upstream public key', config.peerPublicKey)}`,
  ];
  if (config.presharedKey) lines.push(`PresharedKey = ${keyValue('hop preshared key', config.presharedKey)}`);
  lines.push(`Endpoint = ${host}:${portValue('endpoint port', config.endpointPort)}`, 'AllowedIPs = 0.0.0.0/0');
  const keepalive = integerValue('persistent keepalive', config.persistentKeepalive);
  if (keepalive > 0) lines.push(`PersistentKeepalive = ${keepalive}`);
  const text = `${lines.join('\n')}\n`;
  return { text, sha256: createHash('sha256').update(text).digest('hex') };
}

/**
 * Brings the hop's interface to the desired state: created when missing (`link` undefined),
 * loaded with `wg syncconf` when its config changed or the link is new, addressed and up.
 */
export async function reconcileWireguardHop(
  runner: CommandRunner,
  stateDir: string,
  slot: number,
  config: WireguardHop,
  link: Link | undefined,
  driver: Driver,
  loadedSha256: string | null,
): Promise<{ sha256: string; created: boolean }> {
  const name = tunnelArg(config.interfaceName);
  const address = parseInterfaceAddress(config.address);
  if (!address)
    throw new Error(`hop address ${JSON.stringify(config.address)} is not an IPv4 address with a prefix length`);
  const rendered = renderWireguardHop(config);
  let created = false;
  if (!link) {
    await createLink(runner, name, driver);
    created = true;
    link = { ifindex: -1, name, kind: null, mtu: 0, up: false, addresses: [] };
  }
  if (created || loadedSha256 !== rendered.sha256) {
    const file = wireguardHopConfigPath(stateDir, slot);
    writeFileAtomic(file, rendered.text, { durable: false });
    await runner.run('wg', ['syncconf', name, file]);
  }
  await reconcileAddressing(runner, link, address, config.mtu);
  return { sha256: rendered.sha256, created };
}
