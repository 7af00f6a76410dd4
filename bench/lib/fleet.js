// The simulated fleet the fleet benches share (agent-fleet, two-controllers, usage-history, soak):
// nodes created and enrolled through the API with their clients (seed), the load process that
// speaks the agent link for all of them (startLoad: bench/lib/fleet-load.js), and the readings of
// the processes a fleet run loads (readings: the panel, the load process, PostgreSQL, Redis).
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { exitWatch } from './child.js';
import { REDIS_URL } from './database.js';
import { machineCpuTicks } from './machine.js';
import { cmdlineOf, cpuMsOf, cpuMsOfProcesses, cpuPressureMs, runQueueWaitMsOf } from './proc-stats.js';
import { insertClients } from './sql-seed.js';

const LOAD = fileURLToPath(new URL('./fleet-load.js', import.meta.url));
export const IFNAME = 'wg0';
const SUBNET = '10.66.0.0/24';

/** Runs `worker(i)` for i in [0, count) with `concurrency` in flight; fails on the first error. */
export async function pool(count, concurrency, worker) {
  let next = 0;
  let failure;
  const run = async () => {
    while (!failure && next < count) {
      const i = next++;
      try {
        await worker(i);
      } catch (error) {
        failure ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, run));
  if (failure) throw failure;
}

// ---------------------------------------------------------------------------------------------
// Seeding: nodes, enrolment, interfaces, clients.

export async function seed({ api, db, settings }) {
  const nodes = new Array(settings.nodes);
  const t0 = performance.now();
  await pool(settings.nodes, settings.createConcurrency, async (i) => {
    const created = await api.expect(
      201,
      api.client.POST('/api/nodes', {
        body: { name: `fleet-${String(i).padStart(4, '0')}`, address: `10.${100 + (i >> 8)}.${i & 255}.1` },
      }),
    );
    if (!created.enrolment?.secret)
      throw new Error(`POST /api/nodes gave no enrolment secret: ${JSON.stringify(created).slice(0, 300)}`);
    // The agent's own call: public, the secret is the only credential.
    const enrolled = await api.expect(
      200,
      api.client.POST('/api/agent/enrol', { body: { secret: created.enrolment.secret } }),
    );
    if (enrolled.nodeId !== created.id || enrolled.queue?.kind !== 'redis')
      throw new Error(
        `enrolment answered ${JSON.stringify({ ...enrolled, credential: '…', queue: enrolled.queue?.kind })}`,
      );
    const iface = await api.expect(
      201,
      api.client.POST('/api/interfaces', {
        body: {
          nodeId: created.id,
          name: IFNAME,
          listenPort: 51820,
          subnet: settings.subnet ?? SUBNET,
          endpointHost: `10.${100 + (i >> 8)}.${i & 255}.1`,
        },
      }),
    );
    nodes[i] = { id: created.id, credential: enrolled.credential, interfaceId: iface.id, queue: enrolled.queue };
  });
  const nodesSeconds = (performance.now() - t0) / 1000;

  const total = settings.nodes * settings.clientsPerNode;
  const t1 = performance.now();
  if (settings.seed === 'api') {
    let done = 0;
    let lastReport = t1;
    await pool(total, settings.createConcurrency, async (k) => {
      const node = nodes[k % settings.nodes];
      await api.expect(
        201,
        api.client.POST('/api/clients', {
          body: { name: `fleet-client-${String(k).padStart(5, '0')}`, interfaceIds: [node.interfaceId] },
        }),
      );
      done++;
      if (performance.now() - lastReport > 10_000) {
        lastReport = performance.now();
        process.stderr.write(
          `bench: ${done.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} clients (${Math.round(done / ((lastReport - t1) / 1000))}/s)\n`,
        );
      }
    });
  } else {
    await seedWithSql({ db, nodes, settings });
  }
  const clientsSeconds = (performance.now() - t1) / 1000;
  const startBytes = settings.usage === 'history' ? await seedHistory(db) : { clients: 0, accounts: 0 };

  // What each simulated agent reports on: its interface's peers, and the revision it "applied".
  const rows = (await db.query(`select a.node_id, a.public_key from accounts a order by a.node_id, a.created_at`)).rows;
  const keysByNode = new Map();
  for (const row of rows) {
    if (!keysByNode.has(row.node_id)) keysByNode.set(row.node_id, []);
    keysByNode.get(row.node_id).push(row.public_key);
  }
  const revisions = new Map(
    (await db.query('select id, desired_revision from nodes')).rows.map((r) => [r.id, Number(r.desired_revision)]),
  );
  for (const node of nodes) {
    node.keys = keysByNode.get(node.id) ?? [];
    node.appliedRevision = revisions.get(node.id);
    if (node.keys.length !== settings.clientsPerNode)
      throw new Error(`node ${node.id} has ${node.keys.length} accounts, expected ${settings.clientsPerNode}`);
  }
  return { nodes, nodesSeconds, clientsSeconds, clients: total, startBytes };
}

/**
 * The traffic of a panel in operation (BENCH_USAGE=history): each account 100 MiB to 100 GiB,
 * log-uniform, a fifth of it up; devices and clients as the sums, as counting makes them (the
 * inventory's triggers count it too). Then VACUUM ANALYZE, as autovacuum would have by then.
 * A fresh panel's clients (zero) move their list order's step with nearly every batch, which a
 * client with gigabytes behind it does once in thousands (docs/benchmarks.md). Answers the bytes
 * counted before the window (clients' and accounts' sums), which the exactly-once check takes off.
 */
async function seedHistory(db) {
  await db.query(`update accounts a set up_bytes = s.x / 5, down_bytes = s.x - s.x / 5
                    from (select id, exp(ln(104857600) + random() * ln(1000))::int8 as x from accounts) s
                   where a.id = s.id`);
  await db.query(`update devices d set up_bytes = s.up, down_bytes = s.down
                    from (select device_id, sum(up_bytes) as up, sum(down_bytes) as down from accounts group by device_id) s
                   where d.id = s.device_id`);
  await db.query(`update clients c set up_bytes = s.up, down_bytes = s.down, used_bytes = s.up + s.down
                    from (select client_id, sum(up_bytes) as up, sum(down_bytes) as down from devices group by client_id) s
                   where c.id = s.client_id`);
  await db.query('vacuum analyze accounts, devices, clients');
  const [row] = (
    await db.query(`select (select coalesce(sum(used_bytes), 0) from clients)::text as clients,
                           (select coalesce(sum(up_bytes + down_bytes), 0) from accounts)::text as accounts`)
  ).rows;
  return { clients: Number(row.clients), accounts: Number(row.accounts) };
}

/** Clients shaped exactly as POST /api/clients makes them (client, device-1, link, account), per node. */
async function seedWithSql({ db, nodes, settings }) {
  for (const [n, node] of nodes.entries()) {
    const specs = Array.from({ length: settings.clientsPerNode }, (_, j) => ({
      name: `fleet-client-${String(n * settings.clientsPerNode + j).padStart(5, '0')}`,
      deviceLimit: 0,
    }));
    await insertClients(db, {
      iface: { id: node.interfaceId, nodeId: node.id },
      subnet: settings.subnet ?? SUBNET,
      specs,
    });
  }
}

// ---------------------------------------------------------------------------------------------
// The load process.

export function startLoad() {
  const child = fork(LOAD, [], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiting = new Map();
  const { exit, exited, stop } = exitWatch(child);
  child.on('message', (message) => {
    if (message.type === 'error') {
      for (const { reject } of waiting.values()) reject(new Error(`load process: ${message.message}`));
      waiting.clear();
      return;
    }
    const waiter = waiting.get(message.type);
    if (waiter) {
      waiting.delete(message.type);
      waiter.resolve(message);
    }
  });
  exit.then(({ code, signal }) => {
    for (const { reject } of waiting.values())
      reject(new Error(`the load process exited (code ${code}, signal ${signal})`));
    waiting.clear();
  });
  const request = (message, answer, timeoutMs = 120_000) =>
    new Promise((resolve, reject) => {
      if (exited()) return reject(new Error('the load process is gone'));
      const timer = setTimeout(() => {
        waiting.delete(answer);
        reject(new Error(`the load process did not answer ${message.type} within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      waiting.set(answer, {
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      child.send(message);
    });
  return {
    pid: child.pid,
    request,
    send: (message) => child.send(message),
    stop: () =>
      stop({
        graceMs: 10_000, // links with workers close their queue connections first
        ask: () => {
          try {
            child.send({ type: 'close' });
          } catch {
            // channel closed already
          }
        },
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// Readings over a window.

const isPostgresProcess = (cmdline) =>
  cmdline.startsWith('postgres') || cmdline.includes('/postgres ') || cmdline.includes('bin/postgres');
const redisPids = (cmdline) => cmdline.startsWith('redis-server') || cmdline.includes('/redis-server');

export function readings({ panelPid, loadPid, databaseName }) {
  const postgres = cpuMsOfProcesses((cmdline) => isPostgresProcess(cmdline));
  const ours = new Map();
  const others = new Map();
  for (const [pid, ms] of postgres) {
    // Backends' titles: "postgres: <cluster>: <user> <database> <client> <state>".
    (cmdlineOf(pid).includes(` ${databaseName} `) ? ours : others).set(pid, ms);
  }
  return {
    at: performance.now(),
    panel: cpuMsOf(panelPid),
    load: cpuMsOf(loadPid),
    pgOurs: ours,
    pgOthers: others,
    redis: cpuMsOfProcesses(redisPids),
    machine: machineCpuTicks(),
    /** The panel's event loop waiting for a core, and the machine's CPU pressure (ms so far). */
    panelWait: runQueueWaitMsOf(panelPid),
    pressure: cpuPressureMs(),
  };
}

/** The controller's own scheduled queues (clients' time transitions, system history maintenance). */
const SCHEDULED_QUEUES = ['system', 'system-history'];

/** The controller's scheduled jobs that ran recently: name, id, start and end (ms since the epoch), and the worker that ran it. */
export async function scheduledJobs(prefix) {
  const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  connection.on('error', () => undefined);
  const out = [];
  try {
    for (const name of SCHEDULED_QUEUES) {
      const queue = new Queue(name, { connection, prefix, skipWaitingForReady: true });
      queue.on('error', () => undefined);
      try {
        const jobs = await queue.getJobs(['completed', 'failed'], 0, 200);
        out.push(
          ...jobs
            .filter((j) => j.processedOn && j.finishedOn)
            .map((j) => ({ name: j.name, id: j.id, start: j.processedOn, end: j.finishedOn, by: j.processedBy })),
        );
      } catch {
        // not there in this build
      } finally {
        await queue.close().catch(() => undefined);
      }
    }
  } finally {
    connection.disconnect();
  }
  return out;
}

/**
 * The load process's link specs for seeded nodes; with `answerJobs` each link also takes its
 * node's queue jobs (applies, node probes) as the agent's worker does.
 */
export function linkSpecs(nodes, { answerJobs = false } = {}) {
  return nodes.map((n) => ({
    credential: n.credential,
    ifname: IFNAME,
    keys: n.keys,
    appliedRevision: n.appliedRevision,
    ...(answerJobs ? { nodeId: n.id, queue: n.queue } : {}),
  }));
}
