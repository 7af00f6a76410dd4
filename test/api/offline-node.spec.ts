import { nodeQueueName } from '#libs/contracts/node-queue.js';
import { PROBE_JOB, type ProbeResult } from '#libs/contracts/routing.js';
import { closeLinks, linkAgent } from '../support/agent-link-client.js';
import { answer, fixtures, signedInPanel } from '../support/fixtures.js';
import { fakeAgentWorker, queuesOf } from '../support/node-queue.js';
import { waitFor } from '../support/wait-for.js';

/**
 * A node whose agent is not linked (issue 21 item 7): nothing of it is shown as its last reported
 * state, and a check of its hops fails at once, naming why, instead of waiting for an agent that
 * is not there. The link state is node_agents' (what every controller reads), judged by
 * system/agent-state.ts.
 */
const session = signedInPanel();
const f = fixtures(session);
const { typed, createNode } = f;
afterAll(() => closeLinks());

async function hops(nodeId: string) {
  const listed = await answer(typed().GET('/api/outbounds', { params: { query: { nodeId } } }));
  expect(listed.status).toBe(200);
  return listed.body;
}

async function check(id: string) {
  const checked = await answer(typed().POST('/api/outbounds/{id}/check', { params: { path: { id } } }));
  expect(checked.status).toBe(200);
  return checked.body;
}

async function probeJobs(nodeId: string) {
  const queue = queuesOf(session().t).queue(nodeQueueName(nodeId));
  return (await queue.getJobs(['waiting', 'active', 'completed', 'failed', 'delayed'])).filter(
    (job) => job.name === PROBE_JOB,
  );
}

test('a node never enrolled: its hops, built-ins too, are offline; a check fails at once with no job and nothing stored', async () => {
  const node = await createNode();
  const created = await answer(
    typed().POST('/api/outbounds', {
      body: { nodeId: node.id, tag: 'never-linked', kind: 'socks', address: '203.0.113.40:1080' },
    }),
  );
  expect(created.status).toBe(201);
  expect((await hops(node.id)).map((hop) => [hop.tag, hop.state])).toEqual([
    ['direct', 'offline'],
    ['blocked', 'offline'],
    ['never-linked', 'offline'],
  ]);

  const result = await check(created.body.id);
  expect(result).toMatchObject({ ok: false, errorClass: 'agent-not-linked', latencyMs: null, egressIp: null });
  expect(result.error).toBe(`the agent of node ${node.name} has never been enrolled: nothing was checked`);
  // No probe was sent to wait for, and the hop's last check is not overwritten by one that did not run.
  expect(await probeJobs(node.id)).toEqual([]);
  const stored = await answer(typed().GET('/api/outbounds/{id}', { params: { path: { id: created.body.id } } }));
  expect(stored.body).toMatchObject({ lastCheckAt: null, lastError: null });

  // direct is checked through the agent too: the same answer.
  const direct = (await hops(node.id)).find((hop) => hop.tag === 'direct')!;
  expect(await check(direct.id)).toMatchObject({ ok: false, errorClass: 'agent-not-linked' });
});

test('linked, the hops show what the agent reports and checks reach it; once the link drops, offline again', async () => {
  const { t } = session();
  const node = await createNode();
  const created = await answer(
    typed().POST('/api/outbounds', {
      body: { nodeId: node.id, tag: 'linked-hop', kind: 'http', address: '203.0.113.41:3128' },
    }),
  );
  expect(created.status).toBe(201);
  const link = await linkAgent(t, node.enrolment!.secret);
  // Connected: the built-ins run; the hop is not reported yet (no apply recorded).
  expect((await hops(node.id)).map((hop) => [hop.tag, hop.state])).toEqual([
    ['direct', 'up'],
    ['blocked', 'up'],
    ['linked-hop', 'unknown'],
  ]);
  const measured: ProbeResult = {
    ok: true,
    latencyMs: 9,
    stages: { dns: null, connect: 9, handshake: null, firstByte: null },
    errorClass: null,
    error: null,
    egressIp: null,
  };
  const worker = fakeAgentWorker(t, node.id, async (job) => (job.name === PROBE_JOB ? measured : undefined));
  try {
    expect(await check(created.body.id)).toEqual(measured);
  } finally {
    await worker.close();
  }

  link.socket.terminate();
  await waitFor('the node offline', async () => (await f.getNode(node.id)).agent.state === 'disconnected' || undefined);
  expect((await hops(node.id)).every((hop) => hop.state === 'offline')).toBe(true);
  const result = await check(created.body.id);
  expect(result).toMatchObject({ ok: false, errorClass: 'agent-not-linked' });
  expect(result.error).toBe(
    `the agent of node ${node.name} is not linked to the panel (disconnected): nothing was checked`,
  );
  // The last real check stays the hop's last check.
  const stored = await answer(typed().GET('/api/outbounds/{id}', { params: { path: { id: created.body.id } } }));
  expect(stored.body).toMatchObject({ latencyMs: 9, lastError: null });
});

test('a disabled hop of an offline node stays disabled (the operator turned it off), not offline', async () => {
  const node = await createNode();
  const created = await answer(
    typed().POST('/api/outbounds', {
      body: { nodeId: node.id, tag: 'turned-off', kind: 'socks', address: '203.0.113.42:1080', enabled: false },
    }),
  );
  expect(created.status).toBe(201);
  expect(created.body.state).toBe('disabled');
});
