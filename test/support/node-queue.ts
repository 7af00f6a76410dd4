import type { Job, Processor } from 'bullmq';
import { applyJobId, nodeQueueName } from '#libs/contracts/node-queue.js';
import type { AnyWorker, QueueBackend } from '../../apps/controller/src/queue/queue-backend.js';
import { QUEUE_BACKEND } from '../../apps/controller/src/runtime.js';
import type { TestPanel } from './test-panel.js';
import { waitFor } from './wait-for.js';

/** The panel's queue store (Redis or PostgreSQL, whichever it runs on). */
export function queuesOf(t: TestPanel): QueueBackend {
  return t.panel.app.get<QueueBackend>(QUEUE_BACKEND);
}

/** The node's apply job for its current desired revision, once delivery enqueued it. */
export async function currentApplyJob(t: TestPanel, nodeId: string): Promise<Job> {
  const queue = queuesOf(t).queue(nodeQueueName(nodeId));
  const [row] = await t.query<{ desired_revision: string }>('select desired_revision from nodes where id = $1', [
    nodeId,
  ]);
  const desired = Number(row.desired_revision);
  return waitFor(
    `the apply job of revision ${desired}`,
    async () => (await queue.getJob(applyJobId(nodeId, desired))) ?? undefined,
  );
}

/**
 * A stand-in for a node's agent on its queue: a BullMQ worker on the panel's store taking every
 * job of the node (apply jobs too, answered as applied) and handing the rest to `processor`. The
 * real agent's side is tested with the agent; this proves the controller's half. Close it to
 * make the node agentless again.
 */
export function fakeAgentWorker(t: TestPanel, nodeId: string, processor: Processor): AnyWorker {
  return queuesOf(t).worker(nodeQueueName(nodeId), async (job, token, signal) => {
    if (job.name === 'apply') return { revision: job.data.revision, ok: true, interfaces: [], durationMs: 1 };
    return processor(job, token, signal);
  });
}
