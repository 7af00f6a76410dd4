import { applyJobSchema } from '#libs/contracts/node-queue.js';
import { MAX_REVISION } from '#libs/contracts/numbers.js';
import { DeliveryRepository } from '../../apps/controller/src/nodes/delivery/delivery.repository.js';
import { CAPABILITIES, closeLinks, enrol, openAs } from '../support/agent-link-client.js';
import { answer, fixtures, signedInPanel } from '../support/fixtures.js';
import { currentApplyJob } from '../support/node-queue.js';
import { waitFor } from '../support/wait-for.js';

const session = signedInPanel();
const { createNodeWithInterface, createClient, createNode, typed } = fixtures(session);
afterAll(() => closeLinks());

/** The node's apply job for its current desired revision, once the delivery enqueued it. */
const currentJob = (nodeId: string) => currentApplyJob(session().t, nodeId);

// The pacing rule itself (a rest as long as the delivery before it) is checked on a fake clock in
// delivery-pacing.spec.ts; how long deliveries take is the clients bench's business.
test("during a burst of changes a node's deliveries never overlap, and the last carries every change", async () => {
  const { node, iface } = await createNodeWithInterface();
  // Some peers first, so that a delivery takes a while and the burst meets one in progress.
  for (let i = 0; i < 4; i++)
    await Promise.all(Array.from({ length: 10 }, () => createClient({ interfaceIds: [iface.id] })));
  await currentJob(node.id);
  const { t } = session();

  // Each delivery of this node, from reading its state (the journal's changes, or the whole
  // state: a patch the journal cannot make reads it next, in the same delivery) to marking it delivered.
  const repository = t.panel.app.get(DeliveryRepository);
  let running = 0;
  let overlaps = 0;
  let deliveries = 0;
  let readJournal = false;
  const begins = (nodeId: string) => {
    if (nodeId !== node.id) return;
    deliveries++;
    if (++running > 1) overlaps++;
  };
  const { wholeState, changesSince, markDelivered } = repository;
  repository.changesSince = async (nodeId, base, most) => {
    begins(nodeId);
    readJournal = nodeId === node.id;
    return changesSince.call(repository, nodeId, base, most);
  };
  repository.wholeState = async (nodeId) => {
    if (nodeId === node.id && !readJournal) begins(nodeId);
    if (nodeId === node.id) readJournal = false;
    return wholeState.call(repository, nodeId);
  };
  repository.markDelivered = async (nodeId, delivered) => {
    await markDelivered.call(repository, nodeId, delivered);
    if (nodeId === node.id) {
      running--;
      readJournal = false;
    }
  };
  try {
    const burst = Array.from({ length: 24 }, () => createClient({ interfaceIds: [iface.id] }));
    const created = await Promise.all(burst);
    const job = await currentJob(node.id);
    // Every change arrived: the last job carries every client's peer.
    expect(applyJobSchema.parse(job.data).interfaces[0].peers).toHaveLength(40 + created.length);
    await waitFor(
      'the node marked delivered',
      async () =>
        (
          await t.query<{ ok: boolean }>(
            'select desired_revision = delivered_revision as ok from nodes where id = $1',
            [node.id],
          )
        )[0].ok,
    );
  } finally {
    Object.assign(repository, { wholeState, changesSince, markDelivered });
  }
  expect(deliveries).toBeGreaterThanOrEqual(1);
  expect(overlaps).toBe(0);
});

test('a host ahead of every revision issued (a restored backup, a lying agent) is superseded; an apply beyond the desired revision is not recorded', async () => {
  const { t } = session();
  const node = await createNode();
  const { credential } = await enrol(t, node.enrolment!.secret);
  const link = await openAs(t, credential);
  const ahead = 1_000_000;
  link.send({ type: 'hello', version: 'test-agent', capabilities: CAPABILITIES, gaps: [], appliedRevision: ahead });
  await link.next('welcome');
  const view = async () => (await answer(typed().GET('/api/nodes/{id}', { params: { path: { id: node.id } } }))).body;
  expect(await view()).toMatchObject({ desiredRevision: ahead + 1, appliedRevision: ahead, inSync: false });
  // The host gets a job it will take: a revision above its own.
  expect(applyJobSchema.parse((await currentJob(node.id)).data).revision).toBe(ahead + 1);

  const applied = (revision: number) => ({
    type: 'applied',
    result: { revision, ok: true, interfaces: [], durationMs: 1 },
  });
  link.send(applied(ahead + 5));
  link.send({ type: 'heartbeat', at: Date.now() });
  await waitFor('the lying report handled', async () =>
    (await view()).agent?.lastApply?.revision === ahead + 5 ? true : undefined,
  );
  expect(await view()).toMatchObject({ desiredRevision: ahead + 1, appliedRevision: ahead, inSync: false });
  link.send(applied(ahead + 1));
  await waitFor('the node in sync', async () => ((await view()).inSync ? true : undefined));
  expect(await view()).toMatchObject({ desiredRevision: ahead + 1, appliedRevision: ahead + 1 });
  // A host that says it runs the desired revision (a reconnect) changes nothing.
  const again = await openAs(t, credential);
  again.send({
    type: 'hello',
    version: 'test-agent',
    capabilities: CAPABILITIES,
    gaps: [],
    appliedRevision: ahead + 1,
  });
  await again.next('welcome');
  expect(await view()).toMatchObject({ desiredRevision: ahead + 1, appliedRevision: ahead + 1, inSync: true });

  // A claim beyond MAX_REVISION moves nothing: the node shows out of sync, and its revisions stay
  // where an honest agent's reports are accepted.
  again.send({
    type: 'hello',
    version: 'test-agent',
    capabilities: CAPABILITIES,
    gaps: [],
    appliedRevision: MAX_REVISION,
  });
  await again.next('welcome');
  expect(await view()).toMatchObject({ desiredRevision: ahead + 1, appliedRevision: 0, inSync: false });
  again.send({ type: 'hello', version: 'test-agent', capabilities: CAPABILITIES, gaps: [], appliedRevision: 2 ** 53 });
  expect(await again.next('error')).toMatchObject({
    error: expect.stringMatching(/^invalid message: appliedRevision: /),
  });
});
