import { rmSync } from 'node:fs';
import pg from 'pg';
import { fixtures } from '../support/fixtures.js';
import { requireTools, TestNamespace } from '../support/netns.js';
import { randomSuffix } from '../support/random-suffix.js';
import { startAgent, type AgentProcess } from '../support/agent-process.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Periodic hop checks (issue 19 item 9), for real and nowhere but here: a panel with checks on
 * (WARREN_HOP_CHECKS=on, every other suite runs with them off), its node's agent (the built
 * binary) in a namespace, and an "upstream" namespace with microsocks and an HTTP server of the
 * test's own, which the probe URL names. The hop goes down when microsocks stops and comes back up
 * when it starts again, with nobody asking for a check. Needs root, microsocks, redsocks, nftables.
 */

const NODE_ADDRESS = '198.51.100.1';
const UPSTREAM = '198.51.100.2';
const SOCKS_PORT = 1080;

let nodeNs: TestNamespace | undefined;
let upstreamNs: TestNamespace | undefined;
let t: TestPanel;
let token: string;
let agent: AgentProcess | undefined;
let socks: ReturnType<TestNamespace['start']> | undefined;

const { call, createNode, getNode } = fixtures(() => ({ t, token }));

beforeAll(async () => {
  if (process.getuid?.() !== 0) throw new Error('hop-checks.spec needs root (network namespaces)');
  await requireTools(['ip', 'nft', 'microsocks', 'redsocks'], 'iproute2 nftables microsocks redsocks');
  nodeNs = await TestNamespace.create('warren-kn');
  upstreamNs = await TestNamespace.create('warren-ku');
  await nodeNs.vethTo(upstreamNs, `${NODE_ADDRESS}/24`, `${UPSTREAM}/24`);
  const server = upstreamNs.start(
    process.execPath,
    '-e',
    `require('node:http').createServer((q,s)=>{s.statusCode=204;s.end()}).listen(8080,'${UPSTREAM}',()=>console.log('listening'))`,
  );
  await waitFor('the probe target', () => server.output().includes('listening'), 10_000, 50);
  t = await startTestPanel({ WARREN_HOP_CHECKS: 'on' });
  token = await t.login();
}, 60_000);

afterAll(async () => {
  await agent?.stop().catch(() => undefined);
  await socks?.stop().catch(() => undefined);
  for (const ns of [nodeNs, upstreamNs]) await ns?.destroy().catch(() => undefined);
  if (agent) rmSync(agent.dataDir, { recursive: true, force: true });
  await t?.stop();
}, 60_000);

interface HopView {
  state: string;
  stateError: string | null;
  lastCheckAt: string | null;
  lastError: string | null;
}

test('a hop whose upstream goes down turns down by itself and comes back up; each change is recorded', async () => {
  // The probe goes to the test's own server only; the upstream is a private-range-free TEST-NET
  // address, but private targets are allowed so nothing here depends on that list.
  const settings = await call('PATCH', 'settings', {
    allowPrivateTargets: true,
    probeUrl: `http://${UPSTREAM}:8080/`,
    probeTimeoutMs: 2000,
    hopCheckIntervalSeconds: 1,
  });
  expect(settings.status).toBe(200);
  const node = await createNode({ name: `checks-${randomSuffix(6)}`, address: NODE_ADDRESS });
  agent = startAgent({
    controllerUrl: t.api.replace(/\/api$/, ''),
    enrolSecret: node.enrolment!.secret,
    netns: nodeNs!.name,
  });
  await waitFor('the agent to connect', async () => (await getNode(node.id)).agent.state === 'connected', 30_000);
  socks = upstreamNs!.start('microsocks', '-i', UPSTREAM, '-p', String(SOCKS_PORT));
  const created = await call('POST', 'outbounds', {
    nodeId: node.id,
    tag: 'checked',
    kind: 'socks',
    address: `${UPSTREAM}:${SOCKS_PORT}`,
  });
  expect(created.status).toBe(201);
  const id = (created.body as { id: string }).id;
  const hop = async () => (await call('GET', `outbounds/${id}`)).body as HopView;

  const up = await waitFor(
    'the hop checked and up',
    async () => {
      const view = await hop();
      return view.state === 'up' && view.lastCheckAt !== null && view.lastError === null && view;
    },
    60_000,
  );
  expect(up.stateError).toBeNull();

  await socks.stop();
  socks = undefined;
  const down = await waitFor(
    'the hop down after its upstream stopped',
    async () => {
      const view = await hop();
      return view.state === 'down' && view;
    },
    60_000,
  );
  expect(down.lastError).toEqual(expect.any(String));
  expect(down.stateError).toBe(down.lastError);
  const metrics = await t.call('GET', 'metrics', { token });
  expect(metrics.body as string).toContain(`warren_outbound_up{node="${node.id}",outbound="${id}"} 0`);
  expect(metrics.body as string).toMatch(/^warren_outbounds\{state="down"\} 1$/m);

  socks = upstreamNs!.start('microsocks', '-i', UPSTREAM, '-p', String(SOCKS_PORT));
  const back = await waitFor(
    'the hop up again, its old error cleared',
    async () => {
      const view = await hop();
      return view.state === 'up' && view.lastError === null && view;
    },
    60_000,
  );
  expect(new Date(back.lastCheckAt!).getTime()).toBeGreaterThan(new Date(down.lastCheckAt!).getTime());
  const again = await t.call('GET', 'metrics', { token });
  expect(again.body as string).toContain(`warren_outbound_up{node="${node.id}",outbound="${id}"} 1`);

  // Every change of health is stored with its time (for notifications to send).
  const client = new pg.Client({ connectionString: t.database.url });
  await client.connect();
  try {
    const { rows } = await client.query<{
      from_state: string | null;
      to_state: string;
      error: string | null;
      at: Date;
    }>('select from_state, to_state, error, at from outbound_transitions where outbound_id = $1 order by at', [id]);
    expect(rows.map((row) => [row.from_state, row.to_state])).toEqual([
      [null, 'up'],
      ['up', 'down'],
      ['down', 'up'],
    ]);
    expect(rows[1].error).toBe(down.lastError);
    expect(rows.every((row) => row.at instanceof Date)).toBe(true);
  } finally {
    await client.end();
  }
});
