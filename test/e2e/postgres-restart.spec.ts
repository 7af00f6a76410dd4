import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { nodeQueueName } from '#libs/contracts/node-queue.js';
import { REDIS_URL } from '../support/environment.js';
import { startAgent, type AgentProcess } from '../support/agent-process.js';
import { requireTools, TestNamespace } from '../support/netns.js';
import { restartablePanel } from '../support/panel-process-api.js';
import { startPrivatePostgres, type PrivatePostgres } from '../support/private-postgres.js';
import { randomSuffix } from '../support/random-suffix.js';
import {
  bringUpProfile,
  desiredPeersOf,
  keepSending,
  peersOf,
  pingOnce,
  usageMatchesKernel,
} from '../support/tunnel-client.js';
import { waitFor } from '../support/wait-for.js';

/**
 * PostgreSQL restarted under load (issue 27, item 6), with real parts: the built panel as a
 * process of its own on a PostgreSQL server of the test's own (private-postgres.ts: the embedded
 * cluster, restarted with `pg_ctl restart -m fast` and SIGKILLed), its queues on Redis, the built
 * agent applying in a namespace of the test's own, and a client's wireguard-go tunnel carrying
 * traffic, so counter batches are in flight when the database goes. Meanwhile lists, creates and
 * node reads are asked without pause. What must hold: while the database is away every answer is
 * a success or a deliberate 503 `{error, field}` (never a 500, never a request left hanging) and
 * readiness says not ready; afterwards the same process serves again by itself, the node
 * converges, the host's peers are the database's, every queue job ended, and the client's usage
 * equals the node's WireGuard counters to the byte. Needs root.
 */

const NODE_ADDRESS = '172.31.14.1';
const CLIENT_ADDRESS = '172.31.14.2';
const TUNNEL = '10.67.0.0/24';
const GATEWAY = '10.67.0.1';

let postgres: PrivatePostgres | undefined;
const session = restartablePanel({
  name: 'pg-restart',
  redis: true,
  postgres: async () => (postgres = await startPrivatePostgres()),
});
const call: ReturnType<typeof session>['call'] = (...args) => session().call(...args);
const query: ReturnType<typeof session>['query'] = (...args) => session().query(...args);

let nodeNs: TestNamespace | undefined;
let clientNs: TestNamespace | undefined;
let workDir = '';
let agent: AgentProcess | undefined;
let traffic: ReturnType<typeof keepSending> | undefined;
let nodeId = '';
let interfaceId = '';
let ifname = '';
const client = { id: '', publicKey: '', profile: '', ifname: '' };

beforeAll(async () => {
  if (process.getuid?.() !== 0) throw new Error('postgres-restart.spec needs root (network namespaces, wireguard-go)');
  await requireTools(['wg', 'wg-quick', 'wireguard-go', 'ip', 'ping'], 'wireguard-tools wireguard-go iproute2');
  workDir = mkdtempSync(join(tmpdir(), 'warren-pg-restart-'));
  nodeNs = await TestNamespace.create('warren-pn');
  clientNs = await TestNamespace.create('warren-pc');
  await nodeNs.vethTo(clientNs, `${NODE_ADDRESS}/24`, `${CLIENT_ADDRESS}/24`);
});
afterAll(async () => {
  // Not waited for: the namespaces' end stops the chunk under way.
  void traffic?.stop().catch(() => undefined);
  await agent?.stop();
  if (agent) rmSync(agent.dataDir, { recursive: true, force: true });
  await nodeNs?.destroy();
  await clientNs?.destroy();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
}, 60_000);

async function converged(timeoutMs = 60_000): Promise<{ desiredRevision: number; appliedRevision: number }> {
  return waitFor(
    'the node linked and in sync',
    async () => {
      const { status, body } = await call('GET', `nodes/${nodeId}`);
      return status === 200 && body.agent.state === 'connected' && body.inSync ? body : undefined;
    },
    timeoutMs,
    250,
  ).catch((error: Error) => {
    throw new Error(`${error.message}\n--- agent output\n${agent?.output().slice(-4000)}`);
  });
}

const desired = () => desiredPeersOf((sql, params) => query(sql, params), interfaceId);
const onHost = async () => (await peersOf(nodeNs!, ifname)).sort();

/** Brings the client's profile up (again) and waits for a ping through the tunnel. */
async function connectClient(): Promise<void> {
  if (client.ifname) await clientNs!.exec('ip', 'link', 'del', 'dev', client.ifname).catch(() => undefined);
  client.ifname = await bringUpProfile(clientNs!, client.profile, workDir, TUNNEL);
  await waitFor('a ping through the tunnel', () => pingOnce(clientNs!, GATEWAY), 30_000);
}

/** Traffic through the tunnel until stopped, once the panel has counted some of it. */
async function trafficCounted(): Promise<void> {
  const before = (await call('GET', `clients/${client.id}`)).body.upBytes as number;
  traffic = keepSending(clientNs!, nodeNs!, GATEWAY);
  await waitFor(
    'traffic to be counted',
    async () => (await call('GET', `clients/${client.id}`)).body.upBytes > before + 1024 * 1024,
    60_000,
    200,
  );
}

/**
 * Stops the traffic and silences the tunnel for good (a last ping, whose reply from the node is
 * the last packet, then the client's interface goes before it owes a keepalive), then waits until
 * the client's usage equals the node's counters to the byte.
 */
async function usageExact(): Promise<void> {
  await traffic!.stop();
  traffic = undefined;
  expect(await pingOnce(clientNs!, GATEWAY)).toBe(true);
  await clientNs!.exec('ip', 'link', 'del', 'dev', client.ifname);
  await usageMatchesKernel({
    ns: nodeNs!,
    ifname,
    publicKey: client.publicKey,
    readUsage: async () => (await call('GET', `clients/${client.id}`)).body,
    what: 'the client usage to equal the node counters',
    timeoutMs: 30_000,
    context: () => `--- agent output\n${agent?.output().slice(-4000)}`,
  });
}

/** One answer of the load, or how the request failed without one (refused, reset, timed out). */
interface Outcome {
  what: string;
  status?: number;
  body?: unknown;
  failure?: string;
}

/** No request is left hanging: one that has no answer in this long is a failure of its own. */
const REQUEST_TIMEOUT_MS = 15_000;

async function ask(what: string, method: string, path: string, body?: unknown): Promise<Outcome> {
  try {
    const response = await fetch(`${session().panel.origin}/api/${path}`, {
      method,
      headers: {
        authorization: `Bearer ${await token()}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: kept as text, and the check below says so
    }
    return { what, status: response.status, body: parsed };
  } catch (error) {
    return { what, failure: (error as Error).message };
  }
}

/** The owner's session token, signed in once (before any fault). */
let ownerToken = '';
async function token(): Promise<string> {
  if (!ownerToken) {
    const response = await fetch(`${session().panel.origin}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'owner', password: 'owner-password-123' }),
    });
    ownerToken = ((await response.json()) as { token: string }).token;
  }
  return ownerToken;
}

/**
 * Lists, creates and node reads, a few at a time and without pause, until stopped; every outcome
 * is kept. `served()` counts the successes so far, to wait for the panel serving again.
 */
function apiLoad(): { served(): number; stop(): Promise<Outcome[]> } {
  const outcomes: Outcome[] = [];
  let stopping = false;
  const worker = async (next: () => Promise<Outcome>) => {
    while (!stopping) {
      const outcome = await next();
      outcomes.push(outcome);
      // A refusal comes back at once; a breath between them keeps the log readable and the CPU free.
      if (outcome.status !== undefined && outcome.status >= 500) await new Promise((r) => setTimeout(r, 20));
    }
  };
  const workers = [
    worker(() => ask('list', 'GET', 'clients?perPage=50')),
    worker(() => ask('list page 2', 'GET', 'clients?perPage=20&page=2')),
    worker(() =>
      ask('create', 'POST', 'clients', {
        name: `pg-${randomSuffix(8)}`,
        interfaceIds: [interfaceId],
        deviceNames: ['d0'],
      }),
    ),
    worker(() => ask('node', 'GET', `nodes/${nodeId}`)),
  ];
  return {
    served: () => outcomes.filter((o) => o.status !== undefined && o.status < 300).length,
    async stop() {
      stopping = true;
      await Promise.all(workers);
      return outcomes;
    },
  };
}

/** Every answer a success, or a deliberate 503 `{error, field}` naming the database; no 500, no stack, no hang. */
function expectOnlyDeliberate(outcomes: Outcome[]): void {
  const wrong = outcomes.filter((o) => {
    if (o.failure !== undefined) return true;
    if (o.status! < 300) return false;
    const body = o.body as { error?: unknown; field?: unknown; stack?: unknown };
    return (
      o.status !== 503 ||
      typeof body?.error !== 'string' ||
      !/database/.test(body.error) ||
      body.field !== '' ||
      'stack' in body
    );
  });
  expect(wrong.slice(0, 5)).toEqual([]);
}

/** What the panel logged of counter batches it could not record (the agent sends them again). */
const refusedBatches = () => {
  const { stdout, stderr } = session().panel.spawned;
  return `${stdout}\n${stderr}`.split('\n').filter((line) => /handling counters failed/.test(line)).length;
};

/** Every job on the node's queue ended: completed, or failed with a reason. Nothing waits or runs. */
async function jobsEnded(): Promise<void> {
  const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  const queue = new Queue(nodeQueueName(nodeId), { connection, prefix: session().queuePrefix });
  queue.on('error', () => undefined);
  try {
    await waitFor(
      'every job on the node’s queue ended',
      async () => {
        const jobs = await queue.getJobs(['waiting', 'active', 'delayed', 'prioritized', 'completed', 'failed']);
        return jobs.every((job) => job.finishedOn !== undefined && (job.returnvalue !== null || !!job.failedReason));
      },
      30_000,
      250,
    );
  } finally {
    await queue.close();
    await connection.quit().catch(() => connection.disconnect());
  }
}

/** After a fault: the node converges, the host's peers are the database's, jobs ended, usage exact. */
async function recovered(): Promise<void> {
  const after = await converged();
  expect(after.appliedRevision).toBe(after.desiredRevision);
  expect(await onHost()).toEqual(await desired());
  await jobsEnded();
  await usageExact();
  // A change after the fault reaches the host.
  const made = await call('POST', 'clients', { name: `after-${randomSuffix(6)}`, interfaceIds: [interfaceId] });
  expect(made.status).toBe(201);
  await converged();
  expect(await onHost()).toEqual(await desired());
}

test('a node with its agent and a client whose tunnel carries counted traffic', async () => {
  const made = await call('POST', 'nodes', { name: `pg-${randomSuffix(6)}`, address: NODE_ADDRESS });
  expect(made.status).toBe(201);
  nodeId = made.body.id;
  ifname = `wp${randomSuffix(8)}`;
  const iface = await call('POST', 'interfaces', {
    nodeId,
    name: ifname,
    listenPort: 51820,
    subnet: TUNNEL,
    endpointHost: NODE_ADDRESS,
  });
  expect(iface.status).toBe(201);
  interfaceId = iface.body.id;
  agent = startAgent({
    controllerUrl: session().panel.origin,
    enrolSecret: made.body.enrolment.secret,
    netns: nodeNs!.name,
  });
  await converged();

  const created = await call('POST', 'clients', { name: `tunnel-${randomSuffix(6)}`, interfaceIds: [interfaceId] });
  expect(created.status).toBe(201);
  client.id = created.body.id;
  [{ public_key: client.publicKey }] = await query<{ public_key: string }>(
    'select a.public_key from accounts a join devices d on d.id = a.device_id where d.client_id = $1',
    [client.id],
  );
  await waitFor('the peer on the node', async () => (await onHost()).includes(client.publicKey));
  client.profile = (await call('GET', `clients/${client.id}/configs`)).body.devices[0].profiles[0].body;
  await connectClient();
  await token();
}, 120_000);

test('PostgreSQL restarted fast (pg_ctl restart -m fast) under load: only 2xx and 503, and the panel recovers by itself', async () => {
  await trafficCounted();
  const load = apiLoad();
  await waitFor('the load served', () => load.served() > 10, 20_000, 50);
  const panelPid = session().panel.pid;
  await postgres!.restartFast();
  const servedBefore = load.served();
  await waitFor('the load served again', () => load.served() > servedBefore + 20, 60_000, 100);
  expectOnlyDeliberate(await load.stop());
  expect(session().panel.pid).toBe(panelPid);
  expect(session().panel.spawned.child.exitCode).toBeNull();
  expect((await call('GET', 'health/ready')).status).toBe(200);
  await recovered();
}, 150_000);

test('PostgreSQL killed (SIGKILL) and started again: 503 and not ready while it is down, then crash recovery and exact usage', async () => {
  await connectClient();
  await trafficCounted();
  const load = apiLoad();
  await waitFor('the load served', () => load.served() > 10, 20_000, 50);
  const refusedBefore = refusedBatches();
  await postgres!.kill();
  try {
    // While it is down: readiness says so, every route answers a deliberate 503, and a counter batch is refused (not lost).
    const ready = await call('GET', 'health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ status: 'not ready', database: { ok: false } });
    expect(await call('GET', 'health')).toMatchObject({ status: 200 });
    for (const [method, path, body] of [
      ['GET', 'clients?perPage=50', undefined],
      ['POST', 'clients', { name: `down-${randomSuffix(6)}`, interfaceIds: [interfaceId] }],
      ['GET', `nodes/${nodeId}`, undefined],
    ] as const) {
      const answer = await ask(path, method, path, body);
      expect(answer).toMatchObject({ status: 503, body: { error: expect.stringMatching(/database/), field: '' } });
    }
    await waitFor(
      'a counter batch refused while the database is down',
      () => refusedBatches() > refusedBefore,
      20_000,
    ).catch((error: Error) => {
      const panel = session().panel.spawned;
      throw new Error(
        `${error.message}\n--- panel output\n${(panel.stdout + panel.stderr).slice(-4000)}\n--- agent output\n${agent?.output().slice(-3000)}`,
      );
    });
  } finally {
    if (!postgres!.postmaster()) await postgres!.start();
  }
  await waitFor('ready again', async () => (await call('GET', 'health/ready')).status === 200, 60_000, 200);
  const servedBefore = load.served();
  await waitFor('the load served again', () => load.served() > servedBefore + 20, 60_000, 100);
  expectOnlyDeliberate(await load.stop());
  expect(session().panel.spawned.child.exitCode).toBeNull();
  await recovered();
}, 150_000);
