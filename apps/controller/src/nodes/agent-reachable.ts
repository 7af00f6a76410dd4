import { withTimeout } from '../common/with-timeout.js';
import { ApiError, conflict } from '../http/api-error.js';
import type { AnyQueue } from '../queue/queue-backend.js';
import { isOffline, type AgentState } from '../system/agent-state.js';

/** A queue store that does not take the job this soon is a 503, not a request that hangs. */
const QUEUE_TIMEOUT_MS = 5_000;

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

/**
 * Puts one piece of work (a probe, an update) on a node's queue for its agent: one attempt, kept
 * `keepSeconds` after it ends. A queue store that does not answer in time is a 503 saying the
 * node cannot `what` ("be probed") until it does.
 */
export async function addAgentJob(
  queue: AnyQueue,
  work: { name: string; data: object; jobId: string; keepSeconds: number },
  node: { id: string },
  what: string,
): Promise<void> {
  await withTimeout(
    queue.add(work.name, work.data, {
      jobId: work.jobId,
      attempts: 1,
      removeOnComplete: { age: work.keepSeconds },
      removeOnFail: { age: work.keepSeconds },
    }),
    QUEUE_TIMEOUT_MS,
    'the queue store',
  ).catch((error: Error) => {
    throw new ApiError(503, `${error.message}: node ${node.id} cannot ${what} until it answers`);
  });
}
