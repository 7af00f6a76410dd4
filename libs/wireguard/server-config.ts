import type { AmneziaParams } from './amnezia.js';
import { amneziaLines, ConfigValueError, keyValue, portValue } from './config-text.js';
import { isIpv4 } from './ipv4.js';

/**
 * Server-side configuration in `wg setconf` / `wg syncconf` format (not wg-quick): no Address,
 * DNS or hooks, because the agent sets the address itself and syncconf rejects wg-quick keys.
 */

export interface ServerPeer {
  publicKey: string;
  presharedKey?: string | null;
  /** The device's tunnel address; routed to this peer only, as a /32. */
  ip: string;
}

export interface ServerConfigInput {
  privateKey: string;
  listenPort: number;
  peers: readonly ServerPeer[];
  /** Present for AmneziaWG interfaces (`awg setconf` reads the same format plus these keys). */
  amnezia?: AmneziaParams | null;
}

export function renderServerConfig(input: ServerConfigInput): string {
  const lines = [
    '[Interface]',
    `PrivateKey = ${keyValue('server private key', input.privateKey)}`,
    `ListenPort = ${portValue('listen port', input.listenPort)}`,
  ];
  if (input.amnezia) lines.push(...amneziaLines(input.amnezia));
  const peers = renderServerPeers(input.peers);
  return peers === '' ? `${lines.join('\n')}\n` : `${lines.join('\n')}\n\n${peers}`;
}

/**
 * The [Peer] blocks alone, for callers that assemble the file themselves. One string per peer,
 * joined once at the end, so 10,000 peers render in a few milliseconds.
 *
 * Duplicates are refused: `wg` silently merges a repeated key into one peer, and a repeated
 * address moves the route to the later peer, so either would cut a device off without an error.
 */
export function renderServerPeers(peers: readonly ServerPeer[]): string {
  const blocks = new Array<string>(peers.length);
  const keys = new Set<string>();
  const ips = new Set<string>();
  for (let i = 0; i < peers.length; i++) {
    const peer = peers[i];
    const publicKey = keyValue('peer public key', peer.publicKey);
    if (!isIpv4(peer.ip)) throw new ConfigValueError(`peer address ${JSON.stringify(peer.ip)} is not IPv4`);
    if (keys.has(publicKey)) throw new ConfigValueError(`peer public key ${publicKey} appears twice`);
    if (ips.has(peer.ip)) throw new ConfigValueError(`peer address ${peer.ip} appears twice`);
    keys.add(publicKey);
    ips.add(peer.ip);
    const psk = peer.presharedKey ? `PresharedKey = ${keyValue('peer preshared key', peer.presharedKey)}\n` : '';
    blocks[i] = `[Peer]\nPublicKey = ${publicKey}\n${psk}AllowedIPs = ${peer.ip}/32\n`;
  }
  // Each block ends in a newline; joining with another leaves one blank line between blocks.
  return blocks.join('\n');
}
