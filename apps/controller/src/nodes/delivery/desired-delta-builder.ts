import type { DesiredDelta, DesiredInterfaceDelta } from '#libs/contracts/desired-delta.js';
import type { DesiredInterface, DesiredState } from '#libs/contracts/desired-state.js';

/**
 * A delta carrying more than this share of the node's peers goes as the whole state instead: the
 * agent's `wg syncconf` of the whole interface is then about as fast as setting them one by one,
 * and the job is no smaller.
 */
const MAX_CHANGED_SHARE = 0.5;

/**
 * What changed from `base` (the state last delivered to the node) to `next` (its state now), as
 * a delta on top of `base` (libs/contracts/desired-delta.ts), or null when the change is not one
 * a delta carries: an interface added, removed or with other settings (keys, port, MTU, NAT,
 * down, restart), hops, routing or the private-targets setting. Only peers, and the speed limits
 * and quotas of clients, travel as changes.
 */
export function buildDesiredDelta(base: DesiredState, next: DesiredState): DesiredDelta | null {
  if (base.nodeId !== next.nodeId || next.revision <= base.revision) return null;
  if (!sameJson(nodeSettings(base), nodeSettings(next))) return null;
  if (base.interfaces.length !== next.interfaces.length) return null;
  const interfaces: DesiredInterfaceDelta[] = [];
  let changed = 0;
  let total = 0;
  for (let i = 0; i < next.interfaces.length; i++) {
    const before = base.interfaces[i];
    const after = next.interfaces[i];
    if (before.name !== after.name || !sameJson(interfaceSettings(before), interfaceSettings(after))) return null;
    const change = interfaceDelta(before, after);
    total += after.peers.length;
    if (!change) continue;
    changed += change.peers.length + change.removedPeers.length;
    interfaces.push(change);
  }
  if (changed > 0 && changed > MAX_CHANGED_SHARE * Math.max(total, 1)) return null;
  const quotas = keyedChanges(base.quotas ?? [], next.quotas ?? [], (quota) => quota.client);
  return {
    kind: 'delta',
    nodeId: next.nodeId,
    revision: next.revision,
    baseRevision: base.revision,
    interfaces,
    ...(quotas.changed.length > 0 ? { quotas: quotas.changed } : {}),
    ...(quotas.removed.length > 0 ? { removedQuotas: quotas.removed } : {}),
  };
}

/** The peers and speed limits of one interface that differ; undefined when none do. */
function interfaceDelta(before: DesiredInterface, after: DesiredInterface): DesiredInterfaceDelta | undefined {
  // Compared field by field: a node's every peer passes here on each delivery.
  const peers = keyedChanges(
    before.peers,
    after.peers,
    (peer) => peer.publicKey,
    (a, b) => a.ip === b.ip && a.presharedKey === b.presharedKey,
  );
  const limits = keyedChanges(before.speedLimits ?? [], after.speedLimits ?? [], (limit) => limit.clientId);
  if (peers.changed.length + peers.removed.length + limits.changed.length + limits.removed.length === 0)
    return undefined;
  return {
    name: after.name,
    peers: peers.changed,
    removedPeers: peers.removed,
    ...(limits.changed.length > 0 ? { speedLimits: limits.changed } : {}),
    ...(limits.removed.length > 0 ? { removedSpeedLimits: limits.removed } : {}),
  };
}

/**
 * Entries of `after` that are new or differ from `before`'s entry of the same key, and the keys
 * of `before` that `after` lacks. One map of `before`: linear in the entries.
 */
function keyedChanges<T>(
  before: readonly T[],
  after: readonly T[],
  keyOf: (entry: T) => string,
  same: (a: T, b: T) => boolean = sameJson,
) {
  const old = new Map<string, T>();
  for (const entry of before) old.set(keyOf(entry), entry);
  const changed: T[] = [];
  for (const entry of after) {
    const key = keyOf(entry);
    const was = old.get(key);
    if (was === undefined || !same(was, entry)) changed.push(entry);
    old.delete(key);
  }
  return { changed, removed: [...old.keys()] };
}

function nodeSettings({ outbounds, routing, allowPrivateTargets }: DesiredState) {
  return { outbounds, routing, allowPrivateTargets };
}

function interfaceSettings(iface: DesiredInterface) {
  const { peers: _peers, speedLimits: _limits, ...settings } = iface;
  return settings;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
