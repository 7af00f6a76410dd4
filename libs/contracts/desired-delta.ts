import { z } from 'zod';
import {
  desiredPeerSchema,
  desiredQuotaSchema,
  desiredSpeedLimitSchema,
  interfaceName,
  type DesiredState,
} from './desired-state.js';

/**
 * What changed in a node's desired state between two revisions (docs/agents.md, "Deltas"): the
 * peers added, changed or removed per interface, and the speed limits and quotas of the clients
 * those changes touch. A delta names the revision it applies on top of (`baseRevision`): an agent
 * whose last applied state is not that revision has a gap and is sent the whole state instead.
 * Anything else (an interface's settings, interfaces added or removed, hops, routing) travels as a
 * whole state: the controller builds no delta for it.
 */

const key = desiredPeerSchema.shape.publicKey;

export const desiredInterfaceDeltaSchema = z.object({
  /** An interface of the base state; its settings are unchanged. */
  name: interfaceName,
  /** Peers added, or changed (same public key), each as it must be now. */
  peers: z.array(desiredPeerSchema),
  /** Public keys of peers no longer on the interface. */
  removedPeers: z.array(key),
  /** Clients' speed limits added or changed (by clientId); absent = none. */
  speedLimits: z.array(desiredSpeedLimitSchema).optional(),
  /** Clients whose speed limit on this interface is gone; absent = none. */
  removedSpeedLimits: z.array(z.uuid()).optional(),
});
export type DesiredInterfaceDelta = z.infer<typeof desiredInterfaceDeltaSchema>;

export const desiredDeltaSchema = z.object({
  kind: z.literal('delta'),
  nodeId: z.uuid(),
  /** The revision this delta brings the node to. */
  revision: z.number().int().nonnegative(),
  /** The revision it applies on top of: the one delivered before it. */
  baseRevision: z.number().int().nonnegative(),
  /** Only interfaces with a change. */
  interfaces: z.array(desiredInterfaceDeltaSchema),
  /** Quotas added or changed (by client); absent = none. */
  quotas: z.array(desiredQuotaSchema).optional(),
  /** Clients whose quota on this node is gone; absent = none. */
  removedQuotas: z.array(z.uuid()).optional(),
});
export type DesiredDelta = z.infer<typeof desiredDeltaSchema>;

/** Peers a delta touches, all interfaces together (what the agent applies one by one). */
export function deltaPeers(delta: DesiredDelta): number {
  return delta.interfaces.reduce((sum, i) => sum + i.peers.length + i.removedPeers.length, 0);
}

/**
 * The whole state a delta leads to from its base (the agent's record after a delta, what the
 * watchdog re-applies). One pass over each changed interface's peers: the host work stays O(k),
 * this in-memory pass is a millisecond at 60,000 peers. Undefined when the delta does not fit the
 * base (another revision, an interface the base lacks): a gap.
 */
export function applyDelta(base: DesiredState, delta: DesiredDelta): DesiredState | undefined {
  if (base.nodeId !== delta.nodeId || base.revision !== delta.baseRevision) return undefined;
  const changes = new Map(delta.interfaces.map((change) => [change.name, change]));
  if (changes.size !== delta.interfaces.length) return undefined;
  for (const name of changes.keys()) if (!base.interfaces.some((iface) => iface.name === name)) return undefined;
  const interfaces = base.interfaces.map((iface) => {
    const change = changes.get(iface.name);
    if (!change) return iface;
    const gone = new Set([...change.removedPeers, ...change.peers.map((peer) => peer.publicKey)]);
    const peers = iface.peers.filter((peer) => !gone.has(peer.publicKey)).concat(change.peers);
    const limitsGone = new Set([
      ...(change.removedSpeedLimits ?? []),
      ...(change.speedLimits ?? []).map((limit) => limit.clientId),
    ]);
    const speedLimits = (iface.speedLimits ?? [])
      .filter((limit) => !limitsGone.has(limit.clientId))
      .concat(change.speedLimits ?? []);
    const { speedLimits: _old, ...rest } = iface;
    return { ...rest, peers, ...(speedLimits.length > 0 ? { speedLimits } : {}) };
  });
  const quotasGone = new Set([...(delta.removedQuotas ?? []), ...(delta.quotas ?? []).map((quota) => quota.client)]);
  const quotas = (base.quotas ?? []).filter((quota) => !quotasGone.has(quota.client)).concat(delta.quotas ?? []);
  const { quotas: _oldQuotas, ...rest } = base;
  return { ...rest, revision: delta.revision, interfaces, ...(quotas.length > 0 ? { quotas } : {}) };
}
