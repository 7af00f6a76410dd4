import type { Job } from 'bullmq';
import { applyJobId, applyJobSchema, nodeQueueName } from '#libs/contracts/node-queue.js';
import { DeliveryRepository } from '../../apps/controller/src/nodes/delivery/delivery.repository.js';
import type { QueueBackend } from '../../apps/controller/src/queue/queue-backend.js';
import { QUEUE_BACKEND } from '../../apps/controller/src/runtime.js';
import { fixtures, signedInPanel } from '../support/fixtures.js';
import { waitFor } from '../support/wait-for.js';

const session = signedInPanel();
const { createNodeWithInterface, createClient, revision } = fixtures(session);

/** The node's apply job for its current desired revision, once the delivery enqueued it. */
async function currentJob(nodeId: string): Promise<Job> {
  const { t } = session();
  const queue = t.panel.app.get<QueueBackend>(QUEUE_BACKEND).queue(nodeQueueName(nodeId));
  const desired = await revision(nodeId);
  return waitFor(`the apply job of revision ${desired}`, async () => (await queue.getJob(applyJobId(nodeId, desired))) ?? undefined);
}

test('during a burst of changes a node is delivered paced: after a delivery of T ms the next starts at least T ms later', async () => {
  const { node, iface } = await createNodeWithInterface();
  // Some peers first, so that a delivery takes measurable time.
  for (let i = 0; i < 4; i++) await Promise.all(Array.from({ length: 10 }, () => createClient({ interfaceIds: [iface.id] })));
  await currentJob(node.id);
  const { t } = session();

  // Each delivery of this node, from reading its state to marking it delivered.
  const repository = t.panel.app.get(DeliveryRepository);
  const runs: { start: number; end?: number }[] = [];
  const { desiredState, markDelivered } = repository;
  repository.desiredState = async (nodeId) => {
    if (nodeId === node.id) runs.push({ start: performance.now() });
    return desiredState.call(repository, nodeId);
  };
  repository.markDelivered = async (nodeId, delivered) => {
    await markDelivered.call(repository, nodeId, delivered);
    if (nodeId === node.id) runs[runs.length - 1].end = performance.now();
  };
  try {
    const burst = Array.from({ length: 24 }, () => createClient({ interfaceIds: [iface.id] }));
    const created = await Promise.all(burst);
    const job = await currentJob(node.id);
    // Every change arrived: the last job carries every client's peer.
    expect(applyJobSchema.parse(job.data).interfaces[0].peers).toHaveLength(40 + created.length);
    await waitFor('the node marked delivered', async () => (await t.query<{ ok: boolean }>('select desired_revision = delivered_revision as ok from nodes where id = $1', [node.id]))[0].ok);
  } finally {
    repository.desiredState = desiredState;
    repository.markDelivered = markDelivered;
  }

  expect(runs.length).toBeGreaterThanOrEqual(2);
  const pauses = runs.slice(1).map((run, i) => {
    const previous = runs[i];
    return { took: previous.end! - previous.start, pause: run.start - previous.end! };
  });
  // A little slack for timer granularity (whole milliseconds, the event loop's cached clock).
  for (const { took, pause } of pauses) expect(pause).toBeGreaterThanOrEqual(took * 0.8 - 2);
});
