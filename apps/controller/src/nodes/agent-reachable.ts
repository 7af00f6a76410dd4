import { conflict } from '../http/api-error.js';
import { isOffline, type AgentState } from '../system/agent-state.js';

/** Why a node's agent cannot be asked now, by its state. */
const NOT_LINKED: Partial<Record<AgentState, string>> = {
  'never-enrolled': 'has never been enrolled',
  enrolled: 'was enrolled but has never linked to the panel',
  disconnected: 'is not linked to the panel (disconnected)',
};

/**
 * Work sent to a node's agent over its queue (a probe, an update) needs an agent there: an
 * unmanaged node or one whose agent is not linked (by node_agents, as every controller reads it)
 * is a 409 naming the node, at once. `what`: the work, as the sentence's end ("answer a probe").
 */
export function requireLinkedAgent(
  node: { id: string; name: string; agent: { state: AgentState } },
  what: string,
): void {
  const state = node.agent.state;
  if (state === 'unmanaged')
    throw conflict(
      `node ${node.id} (${node.name}) is unmanaged: no agent runs for it (WARREN_LOCAL_AGENT=off), so nothing can ${what}`,
      'id',
    );
  if (isOffline(state))
    throw conflict(
      `the agent of node ${node.id} (${node.name}) ${NOT_LINKED[state] ?? 'is not linked to the panel'}: nothing can ${what}`,
      'id',
    );
}
