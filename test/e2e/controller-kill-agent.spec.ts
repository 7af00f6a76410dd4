import { rmSync } from 'node:fs';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { nodeQueueName } from '#libs/contracts/node-queue.js';
import { REDIS_URL } from '../support/environment.js';
import { freePort } from '../../libs/net/free-port.js';
import { startAgent, type AgentProcess } from '../support/agent-process.js';
import { requireTools, TestNamespace } from '../support/netns.js';
import { restartablePanel } from '../support/panel-process-api.js';
import { randomSuffix } from '../support/random-suffix.js';
import { desiredPeersOf, peersOf } from '../support/tunnel-client.js';
import { waitFor } from '../support/wait-for.js';

/**
 * The controller SIGKILLed (no shutdown) while its node's agent applies a large delivery and while
 * a node probe waits for the agent's answer (issue 27, item 6). The panel is a process of its own
 * on a fixed port with its queues on Redis, so the agent, in a namespace of the test's own, finds
 * the restarted one where the killed one was. Needs root.
 */
let port = 0;
const session = restartablePanel({
  name: 'controller-kill',
  redis: true,
  // One port for both runs, chosen at the first start.
  env: async () => ({ WARREN_PORT: String((port ||= await freePort())) }),
});
const call: ReturnType<typeof session>['call'] = (...args) => session().call(...args);
const query: ReturnType<typeof session>['query'] = (...args) => session().query(...args);

let ns: TestNamespace | undefined;
let agent: AgentProcess | undefined;
let nodeId = '';
let interfaceId = '';
let ifname = '';

beforeAll(async () => {
  await requireTools(['wg', 'wireguard-go', 'ip'], 'wireguard-tools wireguard-go iproute2');
});
afterAll(async () => {
  await agent?.stop();
  if (agent) rmSync(agent.dataDir, { recursive: true, force: true });
  await ns?.destroy();
}, 60_000);

async function node(): Promise<{
  desiredRevision: number;
  appliedRevision: number;
  inSync: boolean;
  agent: { state: string };
}> {
  return (await call('GET', `nodes/${nodeId}`)).body;
}

async function converged(timeoutMs = 90_000): Promise<{ desiredRevision: number; appliedRevision: number }> {
  return waitFor(
    'the node linked and in sync',
    async () => {
      const now = await node();
      return now.agent.state === 'connected' && now.inSync ? now : undefined;
    },
    timeoutMs,
    250,
  ).catch((error: Error) => {
    throw new Error(`${error.message}\n--- agent output\n${agent?.output().slice(-4000)}`);
  });
}

async function addClients(count: number, devices: number): Promise<void> {
  const deviceNames = Array.from({ length: devices }, (_, i) => `d${i}`);
  for (let i = 0; i < count; i++) {
    const made = await call('POST', 'clients', {
      name: `kill-${randomSuffix(8)}`,
      interfaceIds: [interfaceId],
      deviceLimit: 0,
      deviceNames,
    });
    expect(made.status).toBe(201);
  }
}

const desired = () => desiredPeersOf((sql, params) => query(sql, params), interfaceId);
const onHost = async () => (await peersOf(ns!, ifname)).sort();

test('a node with its agent, in sync', async () => {
  const made = await call('POST', 'nodes', { name: `kill-${randomSuffix(6)}`, address: '172.31.9.1' });
  expect(made.status).toBe(201);
  nodeId = made.body.id;
  ifname = `wk${randomSuffix(8)}`;
  const iface = await call('POST', 'interfaces', {
    nodeId,
    name: ifname,
    listenPort: 51820,
    subnet: '10.69.0.0/20',
    endpointHost: '172.31.9.1',
  });
  expect(iface.status).toBe(201);
  interfaceId = iface.body.id;
  ns = await TestNamespace.create('warren-fk');
  agent = startAgent({
    controllerUrl: session().panel.origin,
    enrolSecret: made.body.enrolment.secret,
    netns: ns.name,
  });
  await addClients(10, 50);
  await converged();
  expect(await onHost()).toEqual(await desired());
}, 180_000);

test('the controller killed (SIGKILL) while the agent applies a large delivery: after the restart the node converges', async () => {
  // The agent held still while 1,000 peers more are made, so they go in one delivery; let go,
  // and the controller dies while the agent applies it (and would report it).
  process.kill(agent!.current.child.pid!, 'SIGSTOP');
  try {
    await addClients(20, 50);
  } finally {
    process.kill(agent!.current.child.pid!, 'SIGCONT');
  }
  const target = (await node()).desiredRevision;
  await waitFor('the apply under way on the host', async () => (await onHost()).length > 500, 30_000, 20);
  await session().kill();
  await session().restart();
  const after = await converged();
  expect(after.appliedRevision).toBeGreaterThanOrEqual(target);
  expect(after.appliedRevision).toBe(after.desiredRevision);
  expect(await onHost()).toEqual(await desired());
  expect(await desired()).toHaveLength(1500);
  // A change after the restart reaches the host.
  await addClients(1, 2);
  await converged();
  expect(await onHost()).toEqual(await desired());
}, 240_000);

test('the controller killed while a node probe waits for the agent: after the restart nothing is left waiting and a probe answers', async () => {
  const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  const queue = new Queue(nodeQueueName(nodeId), { connection, prefix: session().queuePrefix });
  queue.on('error', () => undefined);
  const probeJobs = async () =>
    (await queue.getJobs(['waiting', 'active', 'delayed', 'completed', 'failed'])).filter((job) =>
      job.id?.startsWith('node-probe:'),
    );
  try {
    const before = (await probeJobs()).length;
    // The agent held still, so the probe waits for it when the controller dies.
    process.kill(agent!.current.child.pid!, 'SIGSTOP');
    let asked: Promise<unknown>;
    try {
      asked = call('POST', `nodes/${nodeId}/probe`).catch(() => undefined);
      await waitFor('the probe job queued', async () => (await probeJobs()).length > before, 10_000, 20);
      await session().kill();
    } finally {
      process.kill(agent!.current.child.pid!, 'SIGCONT');
    }
    await asked;
    await session().restart();
    await converged();
    // The orphaned probe is answered by the agent or withdrawn; nothing is left waiting or running.
    await waitFor(
      'no probe job waiting or running',
      async () => (await probeJobs()).every((job) => job.finishedOn !== undefined),
      30_000,
      200,
    );
    const probe = await call('POST', `nodes/${nodeId}/probe`);
    expect(probe.status).toBe(200);
    expect(probe.body).toMatchObject({ nodeId });
  } finally {
    await queue.close();
    await connection.quit().catch(() => connection.disconnect());
  }
}, 180_000);
