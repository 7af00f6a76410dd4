import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { SYSTEM_QUEUE, TIME_TRANSITIONS_JOB } from '../../apps/controller/src/clients/time-transitions.scheduler.js';
import {
  HISTORY_MAINTENANCE_JOB,
  SYSTEM_HISTORY_QUEUE,
} from '../../apps/controller/src/system/history-maintenance.scheduler.js';
import { startAgent, type AgentProcess } from '../support/agent-process.js';
import { REDIS_URL } from '../support/environment.js';
import { fixtures, type Fixtures } from '../support/fixtures.js';
import { dropRedisPrefix, testQueuePrefix } from '../support/leftovers.js';
import { requireTools, TestNamespace } from '../support/netns.js';
import { randomSuffix } from '../support/random-suffix.js';
import { startPanelProcess, type PanelProcess } from '../support/spawned-process.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { endpointOf, OWNER, startTestPanel, type PanelEndpoint, type TestPanel } from '../support/test-panel.js';
import { peersOf } from '../support/tunnel-client.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Two controllers on one PostgreSQL and one Redis, as several replicas behind a load balancer
 * run: controller A in this process, controller B the built panel as a process of its own,
 * started together on an empty database. Real agents in network namespaces of the test's own,
 * one linked to each. What either controller is told reaches every agent; a re-enrolment through
 * one ends the old agent's link on the other; both answer alike; scheduled work runs once per
 * tick. Needs root (namespaces, wireguard-go).
 */

const queuePrefix = testQueuePrefix();
// Scheduled work on short periods (production: 30 s and 60 s), so its ticks come within seconds.
const TIME_TRANSITIONS_MS = 2000;
const HISTORY_MAINTENANCE_MS = 3000;
const periods = {
  WARREN_TIME_TRANSITIONS_MS: String(TIME_TRANSITIONS_MS),
  WARREN_HISTORY_MAINTENANCE_MS: String(HISTORY_MAINTENANCE_MS),
};
let database: TestDatabase;
let a: TestPanel;
let b: PanelProcess;
let viaB: PanelEndpoint;
let token: string;
const dataDirs: string[] = [];
const namespaces: TestNamespace[] = [];
const agents: AgentProcess[] = [];
const onA: Fixtures = fixtures(() => ({ t: a, token }));
const onB: Fixtures = fixtures(() => ({ t: viaB, token }));

beforeAll(async () => {
  if (process.getuid?.() !== 0) throw new Error('two-controllers.spec needs root (network namespaces, wireguard-go)');
  await requireTools(['wg', 'wireguard-go', 'ip', 'nft'], 'wireguard-tools wireguard-go iproute2 nftables');
  database = await createTestDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'warren-b-'));
  dataDirs.push(dataDir);
  // Together, on an empty database: one migrates and creates the owner, the other waits its turn.
  [a, b] = await Promise.all([
    startTestPanel({ WARREN_QUEUE_PREFIX: queuePrefix, ...periods }, { database }),
    startPanelProcess({
      WARREN_DATA_DIR: dataDir,
      DATABASE_URL: database.url,
      REDIS_URL,
      WARREN_QUEUE_PREFIX: queuePrefix,
      WARREN_ADMIN_USERNAME: OWNER.username,
      WARREN_ADMIN_PASSWORD: OWNER.password,
      WARREN_LOCAL_AGENT: 'off',
      WARREN_LOG_LEVEL: 'log',
      ...periods,
    }),
  ]);
  viaB = endpointOf(a, b.origin);
  token = await a.login();
}, 180_000);

afterAll(async () => {
  await Promise.all(agents.map((agent) => agent.stop()));
  for (const agent of agents) rmSync(agent.dataDir, { recursive: true, force: true });
  await Promise.all(namespaces.map((ns) => ns.destroy()));
  await b?.stop();
  await a?.stop();
  await dropRedisPrefix(REDIS_URL, queuePrefix);
  await database?.drop();
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
}, 120_000);

/** A node with one interface, its agent enrolled and linked to `controllerOrigin`. */
async function nodeWithAgent(controllerOrigin: string, address: string, subnet: string) {
  const node = await onA.createNode({ name: `two-${randomSuffix(6)}`, address });
  const ifname = `wc${randomSuffix(8)}`;
  const iface = await onA.createInterface({
    nodeId: node.id,
    name: ifname,
    listenPort: 51820,
    subnet,
    endpointHost: address,
    natInterface: 'lo',
  });
  const ns = await TestNamespace.create('warren-2c');
  namespaces.push(ns);
  const agent = startAgent({ controllerUrl: controllerOrigin, enrolSecret: node.enrolment!.secret, netns: ns.name });
  agents.push(agent);
  await onA.nodeInSync(node.id, 60_000).catch((error: Error) => {
    throw new Error(`${error.message}\n--- agent output\n${agent.output().slice(-6000)}`);
  });
  return { node, iface, ifname, ns, agent };
}

const linkedTo = (node: { agent: { state: string } }) => node.agent.state;

test('one owner, one local node: the first start ran once although both controllers started together', async () => {
  expect(await a.query('select username, role from users')).toEqual([{ username: OWNER.username, role: 'owner' }]);
  expect(await a.query('select count(*)::int as n from nodes where is_local')).toEqual([{ n: 1 }]);
  // B signs in and answers with the same database.
  expect((await viaB.call('GET', 'auth/me', { token })).body).toMatchObject({
    user: { username: OWNER.username, role: 'owner' },
  });
});

test('changes made through either controller reach every agent, whichever controller it is linked to; both answer alike', async () => {
  const first = await nodeWithAgent(a.panel.origin, '172.31.21.1', '10.71.0.0/24');
  const second = await nodeWithAgent(b.origin, '172.31.22.1', '10.72.0.0/24');

  // A client on the node linked to A, made through B; one on the node linked to B, made through A.
  const throughB = await onB.createClient({ interfaceIds: [first.iface.id] });
  const throughA = await onA.createClient({ interfaceIds: [second.iface.id] });
  const keyOf = async (clientId: string) => (await onA.accountsOf(clientId))[0].public_key as string;
  await onA.nodeInSync(first.node.id);
  await onB.nodeInSync(second.node.id);
  await waitFor(
    'the client made through B on the host linked to A',
    async () => (await peersOf(first.ns, first.ifname)).join() === (await keyOf(throughB.id)),
  );
  await waitFor(
    'the client made through A on the host linked to B',
    async () => (await peersOf(second.ns, second.ifname)).join() === (await keyOf(throughA.id)),
  );

  // A change through B to a client A made, and the other way round: both hosts follow.
  expect((await viaB.call('PATCH', `clients/${throughA.id}`, { token, body: { enabled: false } })).status).toBe(200);
  expect((await a.call('DELETE', `clients/${throughB.id}`, { token })).status).toBe(200);
  await waitFor(
    'both hosts without their client',
    async () =>
      (await peersOf(second.ns, second.ifname)).length === 0 && (await peersOf(first.ns, first.ifname)).length === 0,
    30_000,
  );

  // The same answers from both, agent state included (it is the database's, not the controller's).
  const summary = (
    nodes: {
      id: string;
      name: string;
      desiredRevision: number;
      appliedRevision: number;
      inSync: boolean;
      agent: { state: string };
    }[],
  ) =>
    nodes.map((node) => ({
      id: node.id,
      name: node.name,
      desired: node.desiredRevision,
      applied: node.appliedRevision,
      inSync: node.inSync,
      agent: linkedTo(node),
    }));
  await waitFor(
    'both nodes in sync on both controllers',
    async () => {
      const [fromA, fromB] = await Promise.all([
        a.call('GET', 'nodes', { token }),
        viaB.call('GET', 'nodes', { token }),
      ]);
      const remote = (list: { isLocal: boolean }[]) => summary(list.filter((node) => !node.isLocal) as never);
      return (
        remote(fromA.body).every((node) => node.inSync && node.agent === 'connected') &&
        JSON.stringify(remote(fromA.body)) === JSON.stringify(remote(fromB.body))
      );
    },
    30_000,
  );
  for (const path of [
    'clients',
    `clients/${throughA.id}`,
    'interfaces',
    'settings',
    'routing?nodeId=' + first.node.id,
  ]) {
    const [fromA, fromB] = await Promise.all([a.call('GET', path, { token }), viaB.call('GET', path, { token })]);
    expect({ path, status: fromB.status, body: fromB.body }).toEqual({ path, status: fromA.status, body: fromA.body });
  }
  const inventory = async (endpoint: PanelEndpoint) =>
    (await endpoint.call('GET', 'overview/full', { token })).body.inventory;
  expect(await inventory(viaB)).toEqual(await inventory(a));
}, 240_000);

test('re-enrolling a node through B ends its old agent’s link on A', async () => {
  const { node, agent } = await nodeWithAgent(a.panel.origin, '172.31.23.1', '10.73.0.0/24');
  const linksBefore = agent.output().split('linked to the controller').length;

  // The node is re-enrolled through B (a lost host replaced): the new secret exchanged there.
  const enrolment = await viaB.call('POST', `nodes/${node.id}/enrolment`, { token });
  expect(enrolment.status).toBe(201);
  const enrolled = await viaB.call('POST', 'agent/enrol', { body: { secret: enrolment.body.secret } });
  expect(enrolled.status).toBe(200);

  // A hears of it and ends the link that used the old credential; the old agent cannot link again.
  await waitFor(
    'the old agent’s link on A ended',
    async () => linkedTo(await onA.getNode(node.id)) !== 'connected',
    30_000,
  );
  await waitFor(
    'the old agent refused when it tries again',
    () => agent.output().includes('refused the link: HTTP 401'),
    60_000,
  );
  expect(linkedTo(await onB.getNode(node.id))).not.toBe('connected');
  expect(agent.output().split('linked to the controller').length).toBe(linksBefore);
}, 180_000);

test('scheduled work runs once per tick across both controllers', async () => {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  const runs = async (queueName: string, jobName: string) => {
    const queue = new Queue(queueName, { connection: redis, prefix: queuePrefix });
    try {
      const jobs = await queue.getJobs(['completed', 'failed', 'active'], 0, 1000);
      return jobs.filter((job) => job.name === jobName);
    } finally {
      await queue.close();
    }
  };
  try {
    // Several ticks of each (both controllers' workers competing for them).
    const ticksOf = (queue: string, job: string, count: number) =>
      waitFor(
        `${count} ticks of ${job}`,
        async () => {
          const jobs = await runs(queue, job);
          return jobs.length >= count ? jobs : undefined;
        },
        60_000,
        500,
      );
    const transitions = await ticksOf(SYSTEM_QUEUE, TIME_TRANSITIONS_JOB, 3);
    const history = await ticksOf(SYSTEM_HISTORY_QUEUE, HISTORY_MAINTENANCE_JOB, 2);

    const workers = new RegExp(`^controller .+ pid (${process.pid}|${b.pid})$`);
    for (const [jobs, everyMs] of [
      [transitions, TIME_TRANSITIONS_MS],
      [history, HISTORY_MAINTENANCE_MS],
    ] as const) {
      // One job per tick: the ticks (the scheduler's times, in the job ids) are a period apart.
      const ticks = jobs.map((job) => Number(job.id!.split(':').pop())).sort((x, y) => x - y);
      expect(new Set(ticks).size).toBe(ticks.length);
      for (let i = 1; i < ticks.length; i++) expect(ticks[i] - ticks[i - 1]).toBeGreaterThanOrEqual(everyMs);
      for (const job of jobs) expect(job.processedBy).toMatch(workers);
    }
  } finally {
    redis.disconnect();
  }
}, 240_000);
