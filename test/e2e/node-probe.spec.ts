import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { cpus, release } from 'node:os';
import { WARREN_VERSION } from '#libs/version/warren-version.js';
import { startAgent, type AgentProcess } from '../support/agent-process.js';
import { fixtures } from '../support/fixtures.js';
import { requireTools, TestNamespace } from '../support/netns.js';
import { randomSuffix } from '../support/random-suffix.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';
import { waitFor } from '../support/wait-for.js';

/**
 * POST /api/nodes/{id}/probe against the real agent (the built binary, in a namespace of the
 * test's own): the answer comes back over the node's queue with the agent's version and the
 * host's facts as the host's own tools print them; once the agent stops, the probe is a 409
 * naming the node, at once. Needs root (network namespaces), wg and nft.
 */

let ns: TestNamespace | undefined;
let t: TestPanel;
let token: string;
let agent: AgentProcess | undefined;

const { call, createNode, getNode } = fixtures(() => ({ t, token }));

beforeAll(async () => {
  if (process.getuid?.() !== 0) throw new Error('node-probe.spec needs root (network namespaces)');
  await requireTools(['ip', 'wg', 'nft'], 'iproute2 wireguard-tools nftables');
  ns = await TestNamespace.create('warren-np');
  t = await startTestPanel();
  token = await t.login();
}, 60_000);

afterAll(async () => {
  await agent?.stop().catch(() => undefined);
  await ns?.destroy().catch(() => undefined);
  if (agent) rmSync(agent.dataDir, { recursive: true, force: true });
  await t?.stop();
}, 60_000);

/** The first line a tool prints for --version, as the agent reports it. */
const versionLine = (program: string) =>
  execFileSync(program, ['--version'], { encoding: 'utf8' })
    .split('\n')
    .map((line) => line.trim())
    .find(Boolean);

test("a linked agent answers with its version and its host's facts; stopped, the probe is a 409 at once", async () => {
  const node = await createNode({ name: `probed-${randomSuffix(6)}` });
  agent = startAgent({
    controllerUrl: t.api.replace(/\/api$/, ''),
    enrolSecret: node.enrolment!.secret,
    netns: ns!.name,
  });
  await waitFor('the agent to connect', async () => (await getNode(node.id)).agent.state === 'connected', 30_000);

  const started = Date.now();
  const answered = await call('POST', `nodes/${node.id}/probe`);
  const tookMs = Date.now() - started;
  expect(answered.status).toBe(200);
  const body = answered.body as {
    roundTripMs: number;
    clockOffsetMs: number;
    host: {
      cpus: number;
      memoryTotalBytes: number;
      memoryAvailableBytes: number;
      uptimeSeconds: number;
      load: number[];
    };
  };
  expect(answered.body).toMatchObject({
    nodeId: node.id,
    nodeName: node.name,
    agentVersion: WARREN_VERSION,
    panelVersion: WARREN_VERSION,
    versionSkew: 'same',
    versionWarning: null,
    host: { kernel: release(), cpus: expect.any(Number) },
    wireguard: {
      implementation: expect.stringMatching(/^(kernel|wireguard-go)$/),
      tools: versionLine('wg'),
    },
    nft: versionLine('nft'),
  });
  // The agent runs on this host: the same CPUs, a memory figure and load it could have read here.
  expect(body.host.cpus).toBeGreaterThanOrEqual(1);
  expect(body.host.cpus).toBeLessThanOrEqual(cpus().length);
  expect(body.host.memoryAvailableBytes).toBeLessThanOrEqual(body.host.memoryTotalBytes);
  expect(body.host.uptimeSeconds).toBeGreaterThan(0);
  expect(body.host.load).toHaveLength(3);
  // Timed by the panel, inside the request; one clock here, so the offset is the round trip at most.
  expect(body.roundTripMs).toBeGreaterThan(0);
  expect(body.roundTripMs).toBeLessThanOrEqual(tookMs);
  expect(Math.abs(body.clockOffsetMs)).toBeLessThanOrEqual(body.roundTripMs);

  await agent.stop();
  await waitFor(
    'the agent to be disconnected',
    async () => (await getNode(node.id)).agent.state === 'disconnected',
    30_000,
  );
  const stoppedAt = Date.now();
  const refused = await call('POST', `nodes/${node.id}/probe`);
  expect(refused.status).toBe(409);
  expect((refused.body as { error: string }).error).toContain(`the agent of node ${node.id}`);
  expect(Date.now() - stoppedAt).toBeLessThan(2000);
}, 90_000);
