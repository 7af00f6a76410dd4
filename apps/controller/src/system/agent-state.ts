export const AGENT_STATES = ['never-enrolled', 'enrolled', 'connected', 'disconnected'] as const;
export type AgentState = (typeof AGENT_STATES)[number];

/** A controller marks a link alive at least this often; a link silent for longer is gone. */
export const AGENT_SILENCE_MS = 30_000;

/** What node_agents says about a node's agent (no row: all null/false). */
export interface AgentFacts {
  /** The agent holds a credential (enrolment completed and not revoked). */
  hasCredential: boolean;
  connected: boolean;
  lastSeenAt: Date | null;
}

/**
 * The agent's state as operators need it. `connected` in the table alone is not enough: a
 * controller that crashed (or was killed) with links open leaves it true, so a link also has
 * to have been seen within the last 30 s.
 * - never-enrolled: no credential (never enrolled, or its enrolment is still pending);
 * - enrolled: a credential, but the agent has never been seen on a link;
 * - connected: seen on a live link within 30 s;
 * - disconnected: seen before, not now.
 */
export function agentState(facts: AgentFacts, nowMs: number): AgentState {
  if (!facts.hasCredential) return 'never-enrolled';
  if (!facts.lastSeenAt) return 'enrolled';
  if (facts.connected && nowMs - facts.lastSeenAt.getTime() <= AGENT_SILENCE_MS) return 'connected';
  return 'disconnected';
}
