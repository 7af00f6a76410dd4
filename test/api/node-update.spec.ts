import { createHash } from 'node:crypto';
import { NODE_UPDATE_JOB, nodeUpdateJobSchema, type NodeUpdateJob } from '#libs/contracts/node-update.js';
import { WARREN_VERSION } from '#libs/version/warren-version.js';
import { closeLinks, enrol, helloAs } from '../support/agent-link-client.js';
import { fixtures } from '../support/fixtures.js';
import { fakeAgentWorker } from '../support/node-queue.js';
import { randomSuffix } from '../support/random-suffix.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';
import { waitFor } from '../support/wait-for.js';

/**
 * POST /api/nodes/{id}/update, the controller's half: the job it queues (the package's version
 * and SHA-256, which the agent-only download matches), how it follows the agent's answer and
 * the node's link to `done`, and its refusals. A stand-in agent answers here;
 * test/e2e/node-update.spec.ts runs real agents through their launcher.
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

const { call, createNode, createUser } = fixtures(() => ({ t, token }));

/** A node whose (stand-in) agent linked saying `version`; its credential. */
async function linkedNode(version: string) {
  const node = await createNode({ name: `upd-${randomSuffix(6)}` });
  const { credential } = await enrol(t, node.enrolment!.secret);
  const link = await helloAs(t, credential, version);
  return { node, credential, link };
}

const download = (authorization?: string) =>
  fetch(`${t.api}/agent/update/package.tgz`, { headers: authorization ? { authorization } : {} });

test("the job carries the panel's package version and checksum; the agent-only download matches it; the new version's link makes it done", async () => {
  const { node, credential, link } = await linkedNode('0.0.1');
  const jobs: NodeUpdateJob[] = [];
  const names: string[] = [];
  const worker = fakeAgentWorker(t, node.id, async (job) => {
    names.push(job.name);
    jobs.push(nodeUpdateJobSchema.parse(job.data));
    return { from: '0.0.1', to: WARREN_VERSION };
  });
  try {
    const started = await call('POST', `nodes/${node.id}/update`, { linkDeadlineSeconds: 30 });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ state: 'installing', fromVersion: '0.0.1', toVersion: WARREN_VERSION });
    await waitFor('the agent to take the job', async () => jobs.length === 1, 10_000);
    expect(names).toEqual([NODE_UPDATE_JOB]);
    expect(jobs[0]).toEqual({ version: WARREN_VERSION, sha256: started.body.sha256, linkDeadlineSeconds: 30 });

    // The package the agent fetches with its credential hashes to what the job says.
    const answer = await download(`Bearer ${credential}`);
    expect(answer.status).toBe(200);
    expect(
      createHash('sha256')
        .update(Buffer.from(await answer.arrayBuffer()))
        .digest('hex'),
    ).toBe(jobs[0].sha256);

    await waitFor('the update to wait for the restart', async () => {
      const update = await call('GET', `nodes/${node.id}/update`);
      return update.body.state === 'restarting';
    });
    link.socket.terminate();
    await helloAs(t, credential, WARREN_VERSION);
    await waitFor('the update to be done', async () => {
      const update = await call('GET', `nodes/${node.id}/update`);
      return update.body.state === 'done' && update.body.finishedAt !== null;
    });
  } finally {
    await worker.close();
  }
});

test("an agent's refusal fails the update with its reason", async () => {
  const { node } = await linkedNode('0.0.1');
  const worker = fakeAgentWorker(t, node.id, async () => {
    throw new Error('checksum mismatch: the package downloaded hashes to x, not y: nothing was switched');
  });
  try {
    expect((await call('POST', `nodes/${node.id}/update`)).status).toBe(202);
    const failed = await waitFor('the update to fail', async () => {
      const update = (await call('GET', `nodes/${node.id}/update`)).body;
      return update.state === 'failed' ? update : undefined;
    });
    expect(failed.error).toContain('checksum mismatch');
  } finally {
    await worker.close();
  }
});

describe('refusals', () => {
  test('the agent-only download needs a node credential', async () => {
    expect((await download()).status).toBe(401);
    expect((await download(`Bearer ${token}`)).status).toBe(401);
    expect((await download('Bearer wnc_notacredential')).status).toBe(401);
  });

  test('an unmanaged node and a node whose agent never linked are 409s naming them', async () => {
    const nodes = (await call('GET', 'nodes')).body as { id: string; isLocal: boolean }[];
    const local = nodes.find((node) => node.isLocal)!;
    const unmanaged = await call('POST', `nodes/${local.id}/update`);
    expect(unmanaged).toMatchObject({ status: 409, body: { field: 'id' } });
    expect(unmanaged.body.error).toMatch(/unmanaged/);
    const node = await createNode({ name: `upd-${randomSuffix(6)}` });
    const never = await call('POST', `nodes/${node.id}/update`);
    expect(never.status).toBe(409);
    expect(never.body.error).toContain(`the agent of node ${node.id}`);
  });

  test('parallel requests start one update; the others are 409s', async () => {
    const { node } = await linkedNode('0.0.1');
    const answers = await Promise.all(Array.from({ length: 5 }, () => call('POST', `nodes/${node.id}/update`)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([202, 409, 409, 409, 409]);
    expect(answers.find((answer) => answer.status === 409)!.body).toMatchObject({ field: 'id' });
  });

  test("an agent already on the panel's version is a 409", async () => {
    const { node } = await linkedNode(WARREN_VERSION);
    const same = await call('POST', `nodes/${node.id}/update`);
    expect(same.status).toBe(409);
    expect(same.body.error).toContain(`already runs ${WARREN_VERSION}`);
  });

  test('a deadline out of bounds is a 400 naming it; no update yet is a 404', async () => {
    const { node } = await linkedNode('0.0.1');
    for (const linkDeadlineSeconds of [5, 601, 'soon']) {
      const bad = await call('POST', `nodes/${node.id}/update`, { linkDeadlineSeconds });
      expect(bad).toMatchObject({ status: 400, body: { field: 'linkDeadlineSeconds' } });
    }
    expect((await call('GET', `nodes/${node.id}/update`)).status).toBe(404);
  });

  test('the owner only: an admin is refused', async () => {
    const { node } = await linkedNode('0.0.1');
    const admin = await createUser('admin');
    expect((await t.call('POST', `nodes/${node.id}/update`, { token: admin.token, body: {} })).status).toBe(403);
    expect((await t.call('GET', `nodes/${node.id}/update`, { token: admin.token })).status).toBe(403);
  });
});
