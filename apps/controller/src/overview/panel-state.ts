import type { NodeSystemView } from '../system/system.service.js';

export const DATABASE_BACKENDS = ['embedded', 'external'] as const;
export type DatabaseBackend = (typeof DATABASE_BACKENDS)[number];

export interface NodeStates {
  total: number;
  inSync: number;
  behind: number;
  offline: number;
  /** No agent is meant to run for it (the local node with WARREN_LOCAL_AGENT=off): nothing to do. */
  unmanaged: number;
}

/**
 * Nodes by what an operator must do about them. A node whose agent is not connected is offline
 * whatever its revisions say (its applied revision is only what it last reported); a connected
 * one is in sync when it has applied the desired revision, else behind (a delivery is on its way,
 * or its applies fail). An unmanaged node has no agent to wait for: counted apart, never offline
 * or behind.
 */
export function nodeStates(nodes: readonly Pick<NodeSystemView, 'agent' | 'sync'>[]): NodeStates {
  const states: NodeStates = { total: nodes.length, inSync: 0, behind: 0, offline: 0, unmanaged: 0 };
  for (const node of nodes) {
    if (node.agent.state === 'unmanaged') states.unmanaged++;
    else if (node.agent.state !== 'connected') states.offline++;
    else if (node.sync.inSync) states.inSync++;
    else states.behind++;
  }
  return states;
}
