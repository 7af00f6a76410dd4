export const AGENT_STATES = ['never-enrolled', 'enrolled', 'connected', 'disconnected', 'unmanaged'] as const;
export type AgentState = (typeof AGENT_STATES)[number];

/** A controller marks a link alive at least this often; a link silent for longer is gone. */
export const AGENT_SILENCE_MS = 30_000;

/** What node_agents says about a node's agent (no row: all null/false). */
export interface AgentFacts {
  /** The agent holds a credential (enrolment completed and not revoked). */
  hasCredential: boolean;
  connected: boolean;
  lastSeenAt: Date | null;
  /** No agent is meant to run for this node (isUnmanaged); absent: it is managed. */
  unmanaged?: boolean;
}

/**
 * Whether no agent is meant to run for a node: the local node of a controller started with
 * WARREN_LOCAL_AGENT=off (a panel-only host). Every remote node is managed: an operator added it
 * to enrol an agent. Known from this controller's own setting, so each controller decides alike
 * for its own answers, its metrics and its deliveries (docs/agents.md, "The local agent").
 */
export function isUnmanaged(node: { isLocal: boolean }, config: { localAgent: boolean }): boolean {
  return node.isLocal && !config.localAgent;
}

/**
 * The agent's state as operators need it. `connected` in the table alone is not enough: a
 * controller that crashed (or was killed) with links open leaves it true, so a link also has
 * to have been seen within the last 30 s.
 * - connected: seen on a live link within 30 s (an unmanaged node's too: an agent that still
 *   holds the local node's credential, e.g. another controller's, does manage the host);
 * - unmanaged: no agent is meant to run for the node and none is linked: nothing is waited for;
 * - never-enrolled: no credential (never enrolled, or its enrolment is still pending);
 * - enrolled: a credential, but the agent has never been seen on a link;
 * - disconnected: seen before, not now.
 */
export function agentState(facts: AgentFacts, nowMs: number): AgentState {
  const live =
    facts.hasCredential &&
    facts.connected &&
    facts.lastSeenAt !== null &&
    nowMs - facts.lastSeenAt.getTime() <= AGENT_SILENCE_MS;
  if (live) return 'connected';
  if (facts.unmanaged) return 'unmanaged';
  if (!facts.hasCredential) return 'never-enrolled';
  if (!facts.lastSeenAt) return 'enrolled';
  return 'disconnected';
}

/**
 * The node is offline: its agent is meant to run (a managed node) and is not on a live link
 * (never enrolled, never seen, or gone), so nothing it last reported holds. The web panel's
 * isOfflineAgent (components/node-health.tsx) reads the API's agent state the same way.
 */
export function isOffline(state: AgentState): boolean {
  return state === 'never-enrolled' || state === 'enrolled' || state === 'disconnected';
}
