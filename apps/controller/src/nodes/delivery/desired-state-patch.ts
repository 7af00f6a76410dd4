import type { AmneziaParams } from '#libs/wireguard/amnezia.js';
import { gatewayAddress } from '#libs/wireguard/address-pool.js';
import { parseCidr } from '#libs/wireguard/ipv4.js';
import type {
  DesiredInterface,
  DesiredPeer,
  DesiredQuota,
  DesiredSpeedLimit,
  DesiredState,
} from '#libs/contracts/desired-state.js';
import type { DesiredOutbound, DesiredRouting } from '#libs/contracts/routing.js';
import { speedLimitsByInterface, type PeerRow } from './desired-speed-limits.js';

/** An enabled interface of the node as the delivery reads it. */
export interface InterfaceRow {
  id: string;
  name: string;
  mode: 'standard' | 'amnezia';
  private_key: string;
  listen_port: number;
  subnet: string;
  mtu: number;
  nat_interface: string | null;
  awg: AmneziaParams | null;
  restart_serial: number;
}

/** A peer row: an active client's enabled account on the node. */
export type PeerListRow = PeerRow & { interface_id: string; public_key: string; preshared_key: string; ip: string };

/** Everything of a node's state but its peers, speed limits and quotas. */
export interface NodeHead {
  nodeId: string;
  revision: number;
  tunnelsStopped: boolean;
  interfaces: InterfaceRow[];
  outbounds: DesiredOutbound[];
  routing: DesiredRouting;
  allowPrivateTargets: boolean;
}

/** A peer journal row: an account whose peer changed, and what the node knew it by before. */
export interface JournalRow {
  account_id: string;
  old_interface_id: string | null;
  old_public_key: string | null;
  old_ip: string | null;
}

/** What changed on a node since a delivered state (DeliveryRepository.changesSince). */
export interface NodeChanges {
  head: NodeHead;
  journal: JournalRow[];
  /** The current peers of the journal's accounts and of `clients`' accounts on the node. */
  peers: PeerListRow[];
  /** Every client a journal account belongs or belonged to: their limits and quotas are re-read. */
  clients: string[];
  quotas: DesiredQuota[];
}

/** A node's state as read or patched, with its interfaces' ids in the state's order. */
export interface ReadState {
  state: DesiredState;
  interfaceIds: string[];
}

/** Peer rows grouped by interface id, in the rows' order. */
export function peerLists(rows: readonly PeerListRow[]): Map<string, DesiredPeer[]> {
  const byInterface = new Map<string, DesiredPeer[]>();
  for (const row of rows) {
    let list = byInterface.get(row.interface_id);
    if (!list) byInterface.set(row.interface_id, (list = []));
    list.push({ publicKey: row.public_key, presharedKey: row.preshared_key || null, ip: row.ip });
  }
  return byInterface;
}

/** The node's desired state from its head and, per interface id, its peers and speed limits. */
export function assembleState(
  head: NodeHead,
  peers: ReadonlyMap<string, DesiredPeer[]>,
  limits: ReadonlyMap<string, DesiredSpeedLimit[]>,
  quotas: DesiredQuota[],
): DesiredState {
  return {
    nodeId: head.nodeId,
    revision: head.revision,
    outbounds: head.outbounds,
    routing: head.routing,
    allowPrivateTargets: head.allowPrivateTargets,
    ...(quotas.length > 0 ? { quotas } : {}),
    interfaces: head.interfaces.map((row): DesiredInterface => {
      const interfaceLimits = limits.get(row.id);
      return {
        name: row.name,
        mode: row.mode,
        privateKey: row.private_key,
        listenPort: row.listen_port,
        address: `${gatewayAddress(row.subnet)}/${parseCidr(row.subnet).prefix}`,
        subnet: row.subnet,
        mtu: row.mtu,
        natInterface: row.nat_interface,
        amnezia: row.mode === 'amnezia' ? row.awg : null,
        peers: peers.get(row.id) ?? [],
        ...(interfaceLimits && interfaceLimits.length > 0 ? { speedLimits: interfaceLimits } : {}),
        // Only when set: a node never restarted or stopped sends what older agents know.
        ...(row.restart_serial > 0 ? { restartSerial: row.restart_serial } : {}),
        ...(head.tunnelsStopped ? { down: true } : {}),
      };
    }),
  };
}

/**
 * Clients the journal's accounts belonged to in `base`, found by their old addresses in base's
 * quotas and speed limits (an account removed since has no row left to say whose it was). Only
 * a client with a quota or a limit has anything to re-read; any other has neither to correct.
 */
export function formerOwners(base: DesiredState, journal: readonly JournalRow[]): string[] {
  const old = new Set(journal.flatMap((row) => (row.old_ip === null ? [] : [row.old_ip])));
  if (old.size === 0) return [];
  const owners = new Set<string>();
  for (const quota of base.quotas ?? []) if (quota.ips.some((ip) => old.has(ip))) owners.add(quota.client);
  for (const iface of base.interfaces)
    for (const limit of iface.speedLimits ?? []) if (limit.ips.some((ip) => old.has(ip))) owners.add(limit.clientId);
  return [...owners];
}

/**
 * The last state read with `changes` applied: the node's state at the changes' revision, built
 * from it and the changed rows alone. Per interface, the journal's peers leave by their old key
 * and come back as they are now (if still active and enabled); the re-read clients' speed limits
 * and quotas replace theirs; everything else is the head as read now. Undefined unless the node
 * has the same interfaces under the same names as then (one added or re-enabled: its peers were
 * never journaled as new), so the caller reads the whole state. Quotas of clients the journal does not name keep the remaining bytes
 * `base` gave them: their kernel allowance is corrected from WireGuard's counters on the host
 * (docs/agent-host.md, "Quotas"), so only a changed client is armed again.
 */
export function patchDesiredState(last: ReadState, changes: NodeChanges): ReadState | undefined {
  const { head } = changes;
  const base = last.state;
  // The same interfaces, each under the same name: an interface added, removed, renamed, or a
  // name now another interface's (one deleted and one made under its name) is read whole, since
  // the journal says which accounts changed, not which interface a name stands for.
  if (head.interfaces.length !== last.interfaceIds.length) return undefined;
  const baseNameOf = new Map(last.interfaceIds.map((id, i) => [id, base.interfaces[i]?.name]));
  if (head.interfaces.some((row) => baseNameOf.get(row.id) !== row.name)) return undefined;
  const baseByName = new Map(base.interfaces.map((iface) => [iface.name, iface]));
  const nameOf = new Map(head.interfaces.map((row) => [row.id, row.name]));

  // Keys to take out, per interface name: every journal account's old key and its current one.
  const leaving = new Map<string, Set<string>>();
  const leave = (interfaceId: string | null, key: string | null) => {
    const name = interfaceId === null ? undefined : nameOf.get(interfaceId);
    if (name === undefined || key === null) return;
    let keys = leaving.get(name);
    if (!keys) leaving.set(name, (keys = new Set()));
    keys.add(key);
  };
  for (const row of changes.journal) leave(row.old_interface_id, row.old_public_key);
  // Every row read comes back as it is now. Those of re-read clients' accounts the journal does
  // not name are unchanged peers (read for their clients' limits and quotas): out and in again
  // by the same key, they change nothing.
  for (const row of changes.peers) leave(row.interface_id, row.public_key);
  const arriving = peerLists(changes.peers);

  const limits = speedLimitsByInterface(changes.peers);
  const reread = new Set(changes.clients);
  const peers = new Map<string, DesiredPeer[]>();
  const mergedLimits = new Map<string, DesiredSpeedLimit[]>();
  for (const row of head.interfaces) {
    const before = baseByName.get(row.name)!;
    const keys = leaving.get(row.name);
    const kept = keys ? before.peers.filter((peer) => !keys.has(peer.publicKey)) : before.peers;
    const added = arriving.get(row.id) ?? [];
    peers.set(row.id, added.length > 0 ? [...kept, ...added] : kept);
    const keptLimits = (before.speedLimits ?? []).filter((limit) => !reread.has(limit.clientId));
    mergedLimits.set(row.id, [...keptLimits, ...(limits.get(row.id) ?? [])]);
  }
  const quotas = [...(base.quotas ?? []).filter((quota) => !reread.has(quota.client)), ...changes.quotas];
  return {
    state: assembleState(head, peers, mergedLimits, quotas),
    interfaceIds: head.interfaces.map((row) => row.id),
  };
}
