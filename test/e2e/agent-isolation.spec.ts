import { Queue, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { applyJobId, nodeQueueName } from '#libs/contracts/node-queue.js';
import type { EnrolResponse } from '#libs/contracts/agent-link.js';
import {
  CAPABILITIES,
  closeLinks,
  enrol,
  openAs as openLinkAs,
  openLink as openLinkOf,
} from '../support/agent-link-client.js';
import { EvalshaOnlyRedis } from '../../apps/agent/src/work/evalsha-only-redis.js';
import { fixtures } from '../support/fixtures.js';
import { currentApplyJob } from '../support/node-queue.js';
import { randomSuffix } from '../support/random-suffix.js';
import { waitFor } from '../support/wait-for.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';

/**
 * What one node's agent can reach, and what it cannot: another node's queue in Redis (its jobs
 * carry that node's private keys) and another node's accounting on the agent link. Real panel,
 * real Redis with the per-node ACL users, real BullMQ on both sides, a raw WebSocket client
 * playing a (hostile) agent. Needs no root.
 */

let t: TestPanel;
let token: string;
const opened: { close(): unknown }[] = [];

const { call, createNode, createInterface, createClient, accountsOf, getClient, getNode } = fixtures(() => ({
  t,
  token,
}));

interface EnrolledNode {
  id: string;
  /** One interface, named like the other node's (names are unique per node only). */
  interfaceId: string;
  /** The one-time secret, already used. */
  enrolmentSecret: string;
  access: EnrolResponse;
}

/** Every node here gets an interface with this name: an agent naming it must still hit only its own. */
const IFNAME = `wi${randomSuffix(8)}`;

async function enrolledNode(): Promise<EnrolledNode> {
  const node = await createNode({ name: `iso-${randomSuffix(8)}`, address: '192.0.2.10' });
  const access = await enrol(t, node.enrolment!.secret);
  expect(access.queue).toMatchObject({ kind: 'redis', prefix: t.config.queuePrefix });
  const iface = await createInterface({
    nodeId: node.id,
    name: IFNAME,
    listenPort: 51820,
    subnet: '10.77.0.0/24',
    endpointHost: '192.0.2.10',
  });
  return { id: node.id, interfaceId: iface.id, enrolmentSecret: node.enrolment!.secret, access };
}

/** A Redis connection logged in as the node's own ACL user, as its agent makes it. */
function redisAs(node: EnrolledNode, options: { maxRetriesPerRequest?: number | null } = {}): Redis {
  const access = node.access.queue as Extract<EnrolResponse['queue'], { kind: 'redis' }>;
  const redis = new EvalshaOnlyRedis(access.url, {
    username: access.username,
    password: access.password,
    maxRetriesPerRequest: options.maxRetriesPerRequest === undefined ? 1 : options.maxRetriesPerRequest,
    // A refused or cut connection ends instead of retrying in the background.
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  opened.push({ close: () => closeRedis(redis) });
  return redis;
}

/** QUIT when logged in, drop it when still trying (disconnect() leaves a 2 s timer behind even on an ended one). */
async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
  else if (redis.status !== 'end') redis.disconnect();
}

async function clientWithAccount(interfaceId: string): Promise<{ clientId: string; publicKey: string }> {
  const client = await createClient({ name: `iso-${randomSuffix(8)}`, interfaceIds: [interfaceId] });
  const [account] = await accountsOf(client.id);
  return { clientId: client.id, publicKey: account.public_key };
}

async function usageOf(clientId: string): Promise<{ upBytes: number; downBytes: number; usedBytes: number }> {
  const { upBytes, downBytes, usedBytes } = await getClient(clientId);
  return { upBytes, downBytes, usedBytes };
}

async function revisionOf(nodeId: string): Promise<number> {
  return (await getNode(nodeId)).desiredRevision;
}

beforeAll(async () => {
  t = await startTestPanel();
  token = await t.login();
}, 60_000);

const openLink = (authorization?: string) => openLinkOf(t, authorization);
const openAs = (credential: string) => openLinkAs(t, credential);

afterAll(async () => {
  closeLinks();
  for (const resource of opened.splice(0).reverse()) await Promise.resolve(resource.close()).catch(() => undefined);
  await t?.stop();
}, 60_000);

describe("an agent's Redis user", () => {
  test("reaches its own node's queue and nothing of another node's", async () => {
    const a = await enrolledNode();
    const b = await enrolledNode();
    const prefix = t.config.queuePrefix;
    const adminRedis = new Redis(t.config.redisUrl!, { maxRetriesPerRequest: 1 });
    opened.push({ close: () => closeRedis(adminRedis) });
    const admin = new Queue(nodeQueueName(b.id), { connection: adminRedis, prefix });
    opened.push({ close: () => admin.close() });

    // B's apply job exists: what A must not read.
    const bJobId = applyJobId(b.id, await revisionOf(b.id));
    const bJob = await waitFor("B's apply job on its queue", async () => (await admin.getJob(bJobId)) ?? undefined);
    expect(bJob.data.interfaces[0].privateKey).toMatch(/=$/);

    const asA = redisAs(a);
    expect(await asA.ping()).toBe('PONG');

    // BullMQ on B's queue with A's login: every read and write is refused by Redis itself.
    const bQueueAsA = new Queue(nodeQueueName(b.id), { connection: asA, prefix, skipWaitingForReady: true });
    opened.push({ close: () => bQueueAsA.close() });
    await expect(bQueueAsA.getJob(bJobId)).rejects.toThrow(/NOPERM/);
    await expect(bQueueAsA.getJobs(['waiting', 'active', 'completed', 'failed', 'delayed'])).rejects.toThrow(/NOPERM/);
    await expect(bQueueAsA.getJobCounts()).rejects.toThrow(/NOPERM/);
    await expect(
      bQueueAsA.add('apply', { nodeId: b.id, revision: 999_999, interfaces: [] }, { jobId: 'forged' }),
    ).rejects.toThrow(/NOPERM/);

    // Raw commands: no key listing at all, and none of B's keys by name.
    const bKeys = await adminRedis.keys(`${prefix}:${nodeQueueName(b.id)}:*`);
    expect(bKeys.length).toBeGreaterThan(0);
    await expect(asA.keys('*')).rejects.toThrow(/NOPERM/);
    await expect(asA.scan('0', 'MATCH', '*', 'COUNT', '1000')).rejects.toThrow(/NOPERM/);
    await expect(asA.hgetall(`${prefix}:${nodeQueueName(b.id)}:${bJobId}`)).rejects.toThrow(/NOPERM/);
    await expect(asA.lrange(`${prefix}:${nodeQueueName(b.id)}:wait`, 0, -1)).rejects.toThrow(/NOPERM/);
    await expect(asA.get(`${prefix}:${nodeQueueName(b.id)}:id`)).rejects.toThrow(/NOPERM/);
    await expect(asA.del(`${prefix}:${nodeQueueName(b.id)}:meta`)).rejects.toThrow(/NOPERM/);
    // Nor anything of the panel's own queues, nor administration, nor pub/sub snooping.
    await expect(asA.get(`${prefix}:system:id`)).rejects.toThrow(/NOPERM/);
    await expect(asA.call('ACL', 'LIST')).rejects.toThrow(/NOPERM/);
    await expect(asA.call('CONFIG', 'GET', '*')).rejects.toThrow(/NOPERM/);
    await expect(asA.call('FLUSHALL')).rejects.toThrow(/NOPERM/);
    await expect(asA.call('PUBLISH', `${prefix}:events`, 'x')).rejects.toThrow(/NOPERM/);
    // A script is checked command by command: it cannot read B's keys either.
    await expect(
      asA.eval(`return redis.call('get', KEYS[1])`, 1, `${prefix}:${nodeQueueName(b.id)}:id`),
    ).rejects.toThrow(/NOPERM|permission/i);

    // A worker on B's queue with A's login gets nothing: it fails on Redis's refusal, and B's job stays put.
    const errors: string[] = [];
    const thief = new Worker(nodeQueueName(b.id), async () => ({ stolen: true }), {
      connection: redisAs(a, { maxRetriesPerRequest: null }),
      prefix,
      runRetryDelay: 200,
      skipStalledCheck: true,
    });
    thief.on('error', (error) => errors.push(error.message));
    opened.push({ close: () => thief.close(true) });
    await waitFor(
      'the thief worker to be refused',
      async () => errors.some((message) => /NOPERM/.test(message)),
      15_000,
    );
    await thief.close(true);
    expect(await (await admin.getJob(bJobId))!.getState()).toBe('waiting');

    // A's own queue works for A: a real BullMQ worker logged in as A receives A's apply job.
    const aJobId = applyJobId(a.id, await revisionOf(a.id));
    const received: Job[] = [];
    const worker = new Worker(
      nodeQueueName(a.id),
      async (job: Job) => {
        received.push(job);
        return { revision: job.data.revision, ok: true, interfaces: [], durationMs: 0 };
      },
      { connection: redisAs(a, { maxRetriesPerRequest: null }), prefix, concurrency: 1 },
    );
    opened.push({ close: () => worker.close(true) });
    await waitFor("A's worker to receive A's apply job", async () => received.find((job) => job.id === aJobId), 15_000);
    const aJob = received.find((job) => job.id === aJobId)!;
    expect(aJob.name).toBe('apply');
    expect(aJob.data).toMatchObject({ nodeId: a.id, interfaces: [{ name: IFNAME }] });
    // And the job it took is marked done in Redis, with A's login only.
    const aQueue = new Queue(nodeQueueName(a.id), { connection: adminRedis, prefix });
    opened.push({ close: () => aQueue.close() });
    await waitFor("A's job to complete", async () => (await (await aQueue.getJob(aJobId))?.getState()) === 'completed');
    await worker.close();
    expect(received.every((job) => job.data.nodeId === a.id)).toBe(true);
  }, 60_000);

  test('stops working, open connections included, when the node is enrolled again', async () => {
    const a = await enrolledNode();
    const asA = redisAs(a);
    // A key of A's own queue that is there: its apply job (A's interface changed its state).
    const ownJob = await currentApplyJob(t, a.id);
    const ownKey = `${t.config.queuePrefix}:${nodeQueueName(a.id)}:${ownJob.id}`;
    expect(await asA.exists(ownKey)).toBe(1);

    // The host is lost: the node is enrolled again, and the old login is worth nothing.
    const again = await call('POST', `nodes/${a.id}/enrolment`);
    expect(again.status).toBe(201);
    const reEnrolled = await t.call('POST', 'agent/enrol', { body: { secret: again.body.secret } });
    expect(reEnrolled.status).toBe(200);

    // The connection the lost host had open is closed, and logging in again is refused.
    await expect(asA.exists(ownKey)).rejects.toThrow(/WRONGPASS|Connection is closed|NOAUTH|max retries/i);
    const fresh = redisAs(a);
    await expect(fresh.exists(ownKey)).rejects.toThrow(/WRONGPASS|NOAUTH|max retries/i);
    // The new login works.
    const renewed = redisAs({ ...a, access: reEnrolled.body });
    expect(await renewed.exists(ownKey)).toBe(1);
  }, 60_000);
});

describe('the agent link', () => {
  test('speaks for the node of its credential only: another node cannot be reported for', async () => {
    const a = await enrolledNode();
    const b = await enrolledNode();
    const own = await clientWithAccount(a.interfaceId);
    const other = await clientWithAccount(b.interfaceId);
    const bBefore = (await call('GET', `nodes/${b.id}`)).body;

    const link = await openAs(a.access.credential);
    // A hello naming B is A's hello: the controller answers for the credential's node.
    link.socket.send(
      JSON.stringify({
        type: 'hello',
        nodeId: b.id,
        version: 'hostile',
        capabilities: CAPABILITIES,
        gaps: [],
        appliedRevision: bBefore.desiredRevision,
      }),
    );
    expect(await link.next('welcome')).toEqual({ type: 'welcome', nodeId: a.id, countersSeq: 0 });

    // Counters naming B's interface (A has one of the same name) and B's peer: recorded as A's, matching nothing.
    const forged = {
      interface: IFNAME,
      publicKey: other.publicKey,
      rxBytes: 7_000_000,
      txBytes: 9_000_000,
      lastHandshake: Date.now(),
      endpoint: '198.51.100.7:4242',
    };
    link.socket.send(JSON.stringify({ type: 'counters', nodeId: b.id, seq: 1, at: Date.now(), peers: [forged] }));
    expect(await link.next('ack')).toEqual({ type: 'ack', seq: 1 });
    // An apply result naming B's revision moves A's applied revision, not B's.
    link.socket.send(
      JSON.stringify({
        type: 'applied',
        nodeId: b.id,
        result: { revision: bBefore.desiredRevision, ok: true, interfaces: [], durationMs: 1 },
      }),
    );

    // The same link reporting A's own peer is counted: the path works, the forgery just has no target.
    const genuine = { ...forged, publicKey: own.publicKey, rxBytes: 1234, txBytes: 5678 };
    link.socket.send(JSON.stringify({ type: 'counters', seq: 2, at: Date.now(), peers: [genuine] }));
    expect(await link.next('ack')).toEqual({ type: 'ack', seq: 2 });
    expect(await usageOf(own.clientId)).toEqual({ upBytes: 1234, downBytes: 5678, usedBytes: 1234 + 5678 });

    expect(await usageOf(other.clientId)).toEqual({ upBytes: 0, downBytes: 0, usedBytes: 0 });
    const [otherAccount] = await t.query<{
      up_bytes: string;
      down_bytes: string;
      last_handshake: Date | null;
      last_endpoint: string | null;
    }>('select up_bytes, down_bytes, last_handshake, last_endpoint from accounts where public_key = $1', [
      other.publicKey,
    ]);
    expect(otherAccount).toEqual({ up_bytes: '0', down_bytes: '0', last_handshake: null, last_endpoint: null });
    const bAfter = (await call('GET', `nodes/${b.id}`)).body;
    expect(bAfter).toMatchObject({
      appliedRevision: bBefore.appliedRevision,
      agent: { state: 'enrolled', version: null },
    });
    const [bAgent] = await t.query<{ counters_seq: string }>(
      'select counters_seq from node_agents where node_id = $1',
      [b.id],
    );
    expect(bAgent.counters_seq).toBe('0');
    // Everything A said landed on A.
    const aAfter = (await call('GET', `nodes/${a.id}`)).body;
    expect(aAfter).toMatchObject({ agent: { state: 'connected', version: 'hostile' } });
    link.socket.terminate();
  }, 60_000);

  test('is refused without a valid node credential, with 401', async () => {
    const a = await enrolledNode();
    const apiToken = await call('POST', 'tokens', { name: `iso-${randomSuffix(8)}` });
    expect(apiToken.status).toBe(201);
    expect(apiToken.body.token).toMatch(/^wrn_/);

    expect(await openLink()).toEqual({ status: 401 });
    expect(await openLink('Bearer')).toEqual({ status: 401 });
    expect(await openLink(`Basic ${Buffer.from(`x:${a.access.credential}`).toString('base64')}`)).toEqual({
      status: 401,
    });
    // Well-formed but unknown, and a node credential with one character changed.
    expect(await openLink(`Bearer wnc_${randomBytes(32).toString('base64url')}`)).toEqual({ status: 401 });
    const flipped = a.access.credential.slice(0, -1) + (a.access.credential.endsWith('A') ? 'B' : 'A');
    expect(await openLink(`Bearer ${flipped}`)).toEqual({ status: 401 });
    // A panel API token or a session is not a node credential.
    expect(await openLink(`Bearer ${apiToken.body.token}`)).toEqual({ status: 401 });
    expect(await openLink(`Bearer ${token}`)).toEqual({ status: 401 });
    // Nor is the enrolment secret.
    expect(await openLink(`Bearer ${a.enrolmentSecret}`)).toEqual({ status: 401 });
    // The node's own credential is let in (the refusals above are about the credential, nothing else).
    const own = await openLink(`Bearer ${a.access.credential}`);
    expect('socket' in own).toBe(true);
  }, 60_000);

  test('refuses a credential replaced by a new enrolment, and cuts the link it had open', async () => {
    const a = await enrolledNode();
    const old = await openAs(a.access.credential);
    old.socket.send(
      JSON.stringify({ type: 'hello', version: 'old-host', capabilities: CAPABILITIES, gaps: [], appliedRevision: 0 }),
    );
    await old.next('welcome');
    let closed = false;
    old.socket.once('close', () => (closed = true));

    const again = await call('POST', `nodes/${a.id}/enrolment`);
    const reEnrolled = await t.call('POST', 'agent/enrol', { body: { secret: again.body.secret } });
    expect(reEnrolled.status).toBe(200);
    expect(reEnrolled.body.credential).not.toBe(a.access.credential);

    // The lost host's live link ends, and it cannot come back with the old credential.
    await waitFor("the lost host's link to end", async () => closed, 10_000, 20);
    expect(await openLink(`Bearer ${a.access.credential}`)).toEqual({ status: 401 });
    const renewed = await openAs(reEnrolled.body.credential);
    renewed.socket.send(
      JSON.stringify({ type: 'hello', version: 'new-host', capabilities: CAPABILITIES, gaps: [], appliedRevision: 0 }),
    );
    expect(await renewed.next('welcome')).toMatchObject({ nodeId: a.id });
    renewed.socket.terminate();
  }, 60_000);
});
