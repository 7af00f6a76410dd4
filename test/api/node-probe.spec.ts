import { NODE_PROBE_JOB, nodeProbeJobSchema } from '#libs/contracts/node-probe.js';
import { WARREN_VERSION } from '#libs/version/warren-version.js';
import { closeLinks, enrol, helloAs, linkAgent } from '../support/agent-link-client.js';
import { fixtures } from '../support/fixtures.js';
import { nodeQueueName } from '#libs/contracts/node-queue.js';
import { fakeAgentWorker, queuesOf } from '../support/node-queue.js';
import { nodeProbeAnswer } from '../support/node-probe.js';
import { randomSuffix } from '../support/random-suffix.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';

/**
 * POST /api/nodes/{id}/probe, the controller's half: the job it puts on the node's queue, what it
 * makes of the answer (round trip, version skew), and its refusals, each within a bounded time.
 * A stand-in agent answers here (node-queue.ts); test/e2e/node-probe.spec.ts runs the real one.
 */

let t: TestPanel;
let token: string;

beforeAll(async () => {
  t = await startTestPanel();
  token = await t.login();
});
afterAll(async () => {
  closeLinks();
  await t?.stop();
});

const { call, createNode } = fixtures(() => ({ t, token }));

/** Node probes still on the node's queue for an agent to take. */
async function waitingProbes(nodeId: string): Promise<number> {
  const jobs = await queuesOf(t).queue(nodeQueueName(nodeId)).getJobs(['waiting', 'delayed', 'active', 'prioritized']);
  return jobs.filter((job) => job.name === NODE_PROBE_JOB).length;
}

/** Calls the probe and measures how long the answer took. */
async function probe(id: string) {
  const started = Date.now();
  const response = await call('POST', `nodes/${id}/probe`);
  return { ...response, tookMs: Date.now() - started };
}

test('an agent older than the panel: the answer carries its version and a warning, as the security warnings do', async () => {
  const node = await createNode({ name: `probe-${randomSuffix(6)}` });
  const { credential } = await enrol(t, node.enrolment!.secret);
  await helloAs(t, credential, '0.0.1');
  const taken: unknown[] = [];
  const worker = fakeAgentWorker(t, node.id, async (job) => {
    taken.push({ name: job.name, data: job.data });
    return nodeProbeAnswer('0.0.1');
  });
  try {
    const answered = await probe(node.id);
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({
      nodeId: node.id,
      nodeName: node.name,
      agentVersion: '0.0.1',
      panelVersion: WARREN_VERSION,
      versionSkew: 'older',
      versionWarning: expect.stringContaining(`older than the panel's ${WARREN_VERSION}`),
      host: { kernel: '6.8.0-test', cpus: 2, load: [0.1, 0.2, 0.3] },
      wireguard: { implementation: 'wireguard-go', tools: 'wireguard-tools v1.0.20210914' },
      nft: 'nftables v1.0.9 (Old Doc Yago)',
    });
    const body = answered.body as { roundTripMs: number };
    expect(body.roundTripMs).toBeGreaterThanOrEqual(0);
    expect(body.roundTripMs).toBeLessThanOrEqual(answered.tookMs);
    expect(taken).toEqual([{ name: NODE_PROBE_JOB, data: expect.anything() }]);
    expect(nodeProbeJobSchema.safeParse((taken[0] as { data: unknown }).data).success).toBe(true);

    // The same version fact, by the same rule: the security warnings name this node's agent.
    const warnings = await call('GET', 'security/warnings');
    const old = (warnings.body as { warnings: { code: string; message: string }[] }).warnings.find(
      (warning) => warning.code === 'agents-older-than-panel',
    );
    expect(old?.message).toContain(`${node.name} (0.0.1)`);
  } finally {
    await worker.close();
  }
});

test('an agent of the panel version: no warning', async () => {
  const node = await createNode({ name: `probe-${randomSuffix(6)}` });
  const { credential } = await enrol(t, node.enrolment!.secret);
  await helloAs(t, credential, WARREN_VERSION);
  const worker = fakeAgentWorker(t, node.id, async () => nodeProbeAnswer(WARREN_VERSION));
  try {
    const answered = await probe(node.id);
    expect(answered).toMatchObject({ status: 200, body: { versionSkew: 'same', versionWarning: null } });
  } finally {
    await worker.close();
  }
});

describe('refusals, each a clear answer within a bounded time', () => {
  test('the unmanaged local node (WARREN_LOCAL_AGENT=off) is a 409 naming it', async () => {
    const nodes = (await call('GET', 'nodes')).body as { id: string; isLocal: boolean }[];
    const local = nodes.find((node) => node.isLocal)!;
    const refused = await probe(local.id);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ field: 'id', error: expect.stringContaining(`node ${local.id}`) });
    expect((refused.body as { error: string }).error).toMatch(/unmanaged/);
    expect(refused.tookMs).toBeLessThan(2000);
  });

  test('a node whose agent never enrolled is a 409 naming it, with no job left on its queue', async () => {
    const node = await createNode({ name: `probe-${randomSuffix(6)}` });
    const refused = await probe(node.id);
    expect(refused.status).toBe(409);
    expect((refused.body as { error: string }).error).toContain(`the agent of node ${node.id}`);
    expect((refused.body as { error: string }).error).toMatch(/never been enrolled/);
    expect(refused.tookMs).toBeLessThan(2000);
    expect(await waitingProbes(node.id)).toBe(0);
  });

  test('an unknown node is a 404', async () => {
    expect(await probe('6b1f7a3e-0000-4000-8000-000000000000')).toMatchObject({
      status: 404,
      body: { field: 'id' },
    });
  });

  test('an agent older than node probes (the job is unknown to it) is a 409 saying to update it', async () => {
    const node = await createNode({ name: `probe-${randomSuffix(6)}` });
    await linkAgent(t, node.enrolment!.secret);
    const worker = fakeAgentWorker(t, node.id, async (job) => {
      throw new Error(`unknown job ${job.name}`);
    });
    try {
      const refused = await probe(node.id);
      expect(refused.status).toBe(409);
      expect((refused.body as { error: string }).error).toMatch(/unknown job node-probe.*update it/);
    } finally {
      await worker.close();
    }
  });

  test('a linked agent that never answers: a 503 after the bound, and the job withdrawn', async () => {
    const node = await createNode({ name: `probe-${randomSuffix(6)}` });
    await linkAgent(t, node.enrolment!.secret);
    const refused = await probe(node.id);
    expect(refused.status).toBe(503);
    expect((refused.body as { error: string }).error).toContain(`the agent of node ${node.id}`);
    expect(refused.tookMs).toBeLessThan(15_000);
    expect(await waitingProbes(node.id)).toBe(0);
  }, 30_000);
});
