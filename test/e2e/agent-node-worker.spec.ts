import { randomUUID } from 'node:crypto';
import { Queue, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { APPLY_JOB, nodeQueueName, type ApplyResult } from '#libs/contracts/node-queue.js';
import { PROBE_JOB, type ProbeResult } from '#libs/contracts/routing.js';
import { ApplyWorker } from '../../apps/agent/src/work/apply-worker.js';
import { REDIS_URL } from '../support/environment.js';
import { randomSuffix } from '../support/random-suffix.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Apply and probe jobs share the node's queue (`node.<id>`), and the agent's one worker takes
 * both: a probe is answered while an apply is still running, applies still never overlap, and a
 * job of a name the agent does not know fails instead of being taken for an apply. The shared
 * Redis, a prefix of this file's own.
 */

const prefix = `warren-test-worker-${randomSuffix(8)}`;
const closers: (() => Promise<unknown> | unknown)[] = [];
afterAll(async () => {
  for (const close of closers.splice(0).reverse()) await Promise.resolve(close()).catch(() => undefined);
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

const probeResult: ProbeResult = {
  ok: true,
  latencyMs: 1,
  stages: { dns: null, connect: 1, handshake: null, firstByte: null },
  errorClass: null,
  error: null,
  egressIp: null,
};

test('a probe is answered while a long apply runs; applies are handed over in order; unknown jobs fail', async () => {
  const nodeId = randomUUID();
  const name = nodeQueueName(nodeId);
  const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  closers.push(() => connection.disconnect());
  const queue = new Queue(name, { connection, prefix });
  closers.push(() => queue.close());
  // The agent's client runs BullMQ's scripts by SHA only; a plain worker loads them into Redis first
  // (the controller's job in production).
  const loaderConnection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  closers.push(() => loaderConnection.disconnect());
  const loaded: string[] = [];
  const loader = new Worker(name, async (job: Job) => loaded.push(job.name), { connection: loaderConnection, prefix });
  await queue.add('load', {});
  await waitFor('the loader to take its job', () => loaded.length > 0);
  await loader.close();

  let releaseApply!: () => void;
  const applyGate = new Promise<void>((resolve) => (releaseApply = resolve));
  const done: string[] = [];
  // What WireGuardHost.apply does: one apply at a time, in the order the worker hands them over.
  let chain: Promise<unknown> = Promise.resolve();
  const worker = new ApplyWorker(
    nodeId,
    { kind: 'redis', url: REDIS_URL, username: 'default', password: '', prefix },
    undefined,
    () => undefined,
  );
  closers.push(() => worker.stop());
  worker.start(
    (job: Job): Promise<ApplyResult> => {
      const run = chain.then(async () => {
        if (job.data.revision === 1) await applyGate;
        done.push(`apply ${job.data.revision}`);
        return { revision: job.data.revision as number, ok: true, interfaces: [], durationMs: 1 };
      });
      chain = run;
      return run;
    },
    {
      [PROBE_JOB]: async () => {
        done.push('probe');
        return probeResult;
      },
    },
  );

  await queue.add(APPLY_JOB, { nodeId, revision: 1, interfaces: [] });
  await queue.add(APPLY_JOB, { nodeId, revision: 2, interfaces: [] });
  const probe = await queue.add(PROBE_JOB, { outboundId: randomUUID() });
  const unknown = await queue.add('reboot', {});
  await waitFor('the probe answered while the first apply is held', () => done.includes('probe'));
  expect(done).not.toContain('apply 1');
  expect((await queue.getJob(probe.id!))?.returnvalue).toEqual(probeResult);
  await waitFor('the unknown job failed', async () =>
    (await queue.getJob(unknown.id!))?.failedReason?.includes('unknown job reboot'),
  );

  releaseApply();
  await waitFor('both applies done', () => done.includes('apply 2'));
  expect(done.indexOf('apply 1')).toBeLessThan(done.indexOf('apply 2'));
}, 60_000);
