import { Redis } from 'ioredis';
import { createHash } from 'node:crypto';
import type { Job } from 'bullmq';
import type { EnrolResponse } from '#libs/contracts/agent-link.js';
import { nodeQueueName } from '#libs/contracts/node-queue.js';
import { ApplyWorker } from '../../apps/agent/src/work/apply-worker.js';
import { EvalshaOnlyRedis } from '../../apps/agent/src/work/evalsha-only-redis.js';
import { enrol } from '../support/agent-link-client.js';
import { fixtures, freshInterface } from '../support/fixtures.js';
import { startRedisServer, type TestRedisServer } from '../support/redis-server.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';
import { waitFor } from '../support/wait-for.js';

/**
 * A node's Redis user runs no Lua of its own (no EVAL, no SCRIPT LOAD, no EVALSHA of a script it
 * would need loaded), and its agent's BullMQ worker still takes its jobs through EVALSHA of the
 * scripts the controller loaded, also after Redis restarts empty. A private redis-server (the
 * restart would take the shared one from everyone), the real panel, the agent's own worker class.
 */

let redis: TestRedisServer;
let t: TestPanel;
let token: string;
const closers: (() => Promise<unknown> | unknown)[] = [];
const { createNode, createInterface, revision } = fixtures(() => ({ t, token }));

beforeAll(async () => {
  redis = await startRedisServer();
  t = await startTestPanel({ REDIS_URL: redis.url });
  token = await t.login();
}, 60_000);
afterAll(async () => {
  for (const close of closers.splice(0).reverse()) await Promise.resolve(close()).catch(() => undefined);
  await t?.stop();
  await redis?.stop();
}, 60_000);

/** A plain client logged in as the node's Redis user: what a hostile host would send. */
function loggedInAs(access: Extract<EnrolResponse['queue'], { kind: 'redis' }>): Redis {
  const client = new Redis(access.url, {
    username: access.username,
    password: access.password,
    maxRetriesPerRequest: 1,
  });
  client.on('error', () => undefined);
  closers.push(() => client.disconnect());
  return client;
}

async function refusesLua(client: Redis): Promise<void> {
  await expect(client.call('EVAL', 'return 1', '0')).rejects.toThrow(/NOPERM/);
  await expect(client.call('EVAL_RO', 'return 1', '0')).rejects.toThrow(/NOPERM/);
  await expect(client.call('SCRIPT', 'LOAD', 'return 1')).rejects.toThrow(/NOPERM/);
  await expect(client.call('FUNCTION', 'LIST')).rejects.toThrow(/NOPERM/);
  // A script someone else loaded, but not one of BullMQ's: its SHA is not allowed.
  const other = new Redis(redis.url);
  await other.script('LOAD', 'return 1');
  other.disconnect();
  await expect(client.call('EVALSHA', createHash('sha1').update('return 1').digest('hex'), '0')).rejects.toThrow(
    /NOPERM/,
  );
}

test("a node's Redis user cannot run its own Lua, while its worker takes jobs, also after Redis restarts empty", async () => {
  const node = await createNode();
  const access = (await enrol(t, node.enrolment!.secret)).queue;
  if (access.kind !== 'redis') throw new Error('expected Redis queue access');
  await refusesLua(loggedInAs(access));

  const taken: Job[] = [];
  const errors: string[] = [];
  const worker = new ApplyWorker(node.id, access, undefined, (error) => errors.push(error.message));
  closers.push(() => worker.stop());
  worker.start(async (job) => {
    taken.push(job);
    return { revision: job.data.revision, ok: true, interfaces: [], durationMs: 1 };
  });
  const first = await revision(node.id);
  await waitFor(
    'the worker to take the first apply job',
    () => taken.find((job) => job.data.revision === first),
    30_000,
  );

  await redis.restart();
  // Users and scripts come back from the controller; a change made now reaches the worker.
  await createInterface(freshInterface({ nodeId: node.id }));
  const second = await revision(node.id);
  expect(second).toBeGreaterThan(first);
  await waitFor(
    'the worker to take the apply job made after the restart',
    () => taken.find((job) => job.data.revision === second),
    60_000,
  );
  await refusesLua(loggedInAs(access));
  expect(errors.filter((message) => /NOPERM/.test(message))).toEqual([]);
  expect(taken.every((job) => job.queueName === nodeQueueName(node.id))).toBe(true);
}, 120_000);

test('the agent client sends every script as EVALSHA, so the ACL need not allow EVAL', async () => {
  // What the ACL refuses above is what ioredis sends by default on a fresh connection: EVAL.
  const monitor = new Redis(redis.url);
  closers.push(() => monitor.disconnect());
  const seen: string[] = [];
  const feed = await monitor.monitor();
  closers.push(() => feed.disconnect());
  feed.on('monitor', (_time: string, args: string[]) => seen.push(String(args[0]).toLowerCase()));
  const client = new EvalshaOnlyRedis(redis.url);
  closers.push(() => client.disconnect());
  client.defineCommand('answer', { lua: 'return 42', numberOfKeys: 0 });
  await client.script('LOAD', 'return 42');
  expect(await (client as unknown as { answer(): Promise<number> }).answer()).toBe(42);
  expect(await client.pipeline().set('k', '1').exec()).toEqual([[null, 'OK']]);
  await waitFor('the monitor to see the script run', () => seen.includes('evalsha'));
  expect(seen).not.toContain('eval');
});
