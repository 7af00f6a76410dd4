import { randomUUID } from 'node:crypto';
import type { DesiredInterface, DesiredPeer, DesiredState } from '#libs/contracts/desired-state.js';
import { generateKeyPair, generatePresharedKey } from '#libs/wireguard/keys.js';

/**
 * Desired states (libs/contracts/desired-state.ts) built by hand, for tests that give them to an
 * agent's host drivers without a panel to read them: a peer, an interface, a state of a revision,
 * each with fresh keys and plain defaults that a partial overrides. Compose them:
 * `desiredState(1, [desiredInterface(name, 81, { peers: [desiredPeer('10.81.0.2')] })])`.
 */

/**
 * The node every state here is for unless one says otherwise. One for the whole test file (Jest
 * loads support modules anew for each), so an agent's applied record (apply-record.ts) matches
 * from one revision to the next.
 */
export const testNodeId = randomUUID();

/**
 * Each interface its own port unless one is given: interfaces of one namespace must not share one.
 * A random start, so that two runs at once are unlikely to meet.
 */
let nextListenPort = 52100 + Math.floor(Math.random() * 800);

/** A device at tunnel address `ip`, with a fresh public key and a fresh preshared key. */
export function desiredPeer(ip: string, overrides: Partial<DesiredPeer> = {}): DesiredPeer {
  return { publicKey: generateKeyPair().publicKey, presharedKey: generatePresharedKey(), ip, ...overrides };
}

/**
 * An up, standard WireGuard interface on 10.`net`.0.0/24 (the server at .1) with a fresh private
 * key, a port of its own, MTU 1380, no NAT and no peers.
 */
export function desiredInterface(
  name: string,
  net: number,
  overrides: Partial<DesiredInterface> = {},
): DesiredInterface {
  return {
    name,
    mode: 'standard',
    privateKey: generateKeyPair().privateKey,
    listenPort: overrides.listenPort ?? nextListenPort++,
    address: `10.${net}.0.1/24`,
    subnet: `10.${net}.0.0/24`,
    mtu: 1380,
    natInterface: null,
    amnezia: null,
    peers: [],
    ...overrides,
  };
}

/** The whole state of revision `revision` for testNodeId; `extra` adds hops, routing, quotas... */
export function desiredState(
  revision: number,
  interfaces: DesiredInterface[],
  extra: Partial<DesiredState> = {},
): DesiredState {
  return { nodeId: testNodeId, revision, interfaces, ...extra };
}
