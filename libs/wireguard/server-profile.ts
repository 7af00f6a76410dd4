import type { AmneziaParams } from './amnezia.js';
import { amneziaLines, ConfigValueError, portValue } from './config-text.js';
import { renderServerPeers } from './server-config.js';

/**
 * An interface's server side as one wg-quick file (GET /api/interfaces/{id}/profile): what its
 * node runs, to read, compare or keep. Secrets stay out, as in every answer of the panel
 * (docs/interfaces.md, "Profile"): the server's private key and the peers' preshared keys are
 * withheld, with a line saying so; everything else is what the agent loads.
 */

export interface ServerProfileInput {
  /** The host's interface name; the file is `<name>.conf`. */
  name: string;
  /** The server's address with the subnet's prefix, e.g. 10.8.0.1/24. */
  address: string;
  listenPort: number;
  mtu: number;
  amnezia?: AmneziaParams | null;
  /** Peers the node runs: active clients' enabled accounts. */
  peers: readonly { publicKey: string; ip: string }[];
}

export const WITHHELD = '(withheld: the private key never leaves the panel except to the node)';

export function renderServerProfile(input: ServerProfileInput): string {
  if (!/^[\d.]+\/\d{1,2}$/.test(input.address))
    throw new ConfigValueError(`address ${JSON.stringify(input.address)} is not an IPv4 address with prefix`);
  const lines = [
    `# ${input.name}: the server side of this interface, as its node's agent loads it.`,
    '# Preshared keys are withheld as well; the peers are the devices of active clients.',
    '[Interface]',
    `# PrivateKey = ${WITHHELD}`,
    `Address = ${input.address}`,
    `ListenPort = ${portValue('listen port', input.listenPort)}`,
    `MTU = ${input.mtu}`,
  ];
  if (input.amnezia) lines.push(...amneziaLines(input.amnezia));
  const peers = renderServerPeers(input.peers.map((peer) => ({ publicKey: peer.publicKey, ip: peer.ip })));
  return peers === '' ? `${lines.join('\n')}\n` : `${lines.join('\n')}\n\n${peers}`;
}
