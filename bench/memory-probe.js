// Memory probe (not part of `npm run bench`): the real panel in a child process with the
// inspector on, clients created through POST /api/clients (PROBE_CONCURRENCY in flight), then list
// runs under load. Every PROBE_STEP clients, and after each list run, it records VmRSS/VmHWM and
// RssAnon from /proc and the panel's process.memoryUsage() over the inspector (no GC forced), plus
// the live heap after a forced GC at a few points. Prints a JSON line per sample and a markdown
// table at the end.
//
// Settings (environment): PROBE_SEED (0: clients inserted with SQL first, shaped as the API makes
// them, so the API-created ones after them each trigger a delivery of the whole node), PROBE_CLIENTS (20000), PROBE_STEP (2000), PROBE_CONCURRENCY (8),
// PROBE_LIST_SECONDS (10 per list run), PROBE_FLAGS=0 (the panel without PANEL_NODE_FLAGS and
// PANEL_MALLOC_ENV, as before docs/memory.md), PROBE_NODE_OPTIONS (more V8 flags), PROBE_PANEL_ENV (extra env for the panel, e.g.
// "MALLOC_ARENA_MAX=2"), PROBE_LABEL (a name for the run), PROBE_SNAPSHOTS=1 (heap snapshots
// via SIGUSR2 into the data directory at the start, after creation and after the list runs).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { cleanupScope } from './lib/cleanup.js';
import { createBenchDatabase, REDIS_URL } from './lib/database.js';
import { freePort } from '../dist/libs/net/free-port.js';
import { apiClient, issueApiToken, signIn, startPanelProcess } from './lib/panel-process.js';
import { dropRedisPrefix } from './lib/redis-cleanup.js';
import { envNumber } from './lib/settings.js';
import { insertClients } from './lib/sql-seed.js';

const SEED = envNumber('PROBE_SEED', 0, 0);
const CLIENTS = envNumber('PROBE_CLIENTS', 20_000, 10);
const STEP = envNumber('PROBE_STEP', 2_000, 1);
const CONCURRENCY = envNumber('PROBE_CONCURRENCY', 8, 1);
const LIST_SECONDS = envNumber('PROBE_LIST_SECONDS', 10, 1);
const LABEL = process.env.PROBE_LABEL ?? 'probe';
const PANEL_ENV = Object.fromEntries(
  (process.env.PROBE_PANEL_ENV ?? '')
    .split(/\s+/)
    .filter(Boolean)
    .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
);

function procMemory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const mib = (field) => Number(status.match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'))?.[1]) / 1024;
  return {
    rss: mib('VmRSS'),
    hwm: mib('VmHWM'),
    anon: mib('RssAnon'),
    threads: Number(status.match(/^Threads:\s+(\d+)/m)?.[1]),
  };
}

/** A minimal Chrome DevTools Protocol client over the panel's inspector. */
async function inspector(port) {
  let targets;
  for (let i = 0; i < 50 && !targets; i++) {
    try {
      targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const ws = new WebSocket(targets[0].webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  let next = 1;
  const pending = new Map();
  ws.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.id && pending.has(message.id)) {
      pending.get(message.id)(message);
      pending.delete(message.id);
    }
  };
  const send = (method, params = {}) =>
    new Promise((resolve) => {
      const id = next++;
      pending.set(id, resolve);
      ws.send(JSON.stringify({ id, method, params }));
    });
  return {
    async memoryUsage() {
      const expression = `JSON.stringify({ ...process.memoryUsage(), spaces: Object.fromEntries(process.getBuiltinModule('v8').getHeapSpaceStatistics()
        .filter((s) => s.space_size > 0).map((s) => [s.space_name, Math.round(s.space_size / 2 ** 20) + '/' + Math.round(s.space_used_size / 2 ** 20)])) })`;
      const reply = await send('Runtime.evaluate', { expression, returnByValue: true });
      const { spaces, ...usage } = JSON.parse(reply.result.result.value);
      return { ...Object.fromEntries(Object.entries(usage).map(([k, v]) => [k, v / 2 ** 20])), spaces };
    },
    gc: () => send('HeapProfiler.collectGarbage'),
    close: () => ws.close(),
  };
}

const scope = cleanupScope('the memory probe');
const samples = [];
try {
  const dataDir = mkdtempSync(join(tmpdir(), 'warren-memory-probe-'));
  scope.add('data directory', () => rmSync(dataDir, { recursive: true, force: true }));
  const queuePrefix = `wmp${randomBytes(4).toString('hex')}`;
  scope.add('redis prefix', () => dropRedisPrefix(queuePrefix));
  const database = await createBenchDatabase();
  scope.add('database', () => database.drop());
  const inspectPort = await freePort();
  const nodeOptions = [
    `--inspect=127.0.0.1:${inspectPort}`,
    '--heapsnapshot-signal=SIGUSR2',
    process.env.PROBE_NODE_OPTIONS ?? '',
  ].join(' ');
  const panel = await startPanelProcess({
    databaseUrl: database.url,
    redisUrl: REDIS_URL,
    queuePrefix,
    dataDir,
    env: { WARREN_LOCAL_AGENT: 'off', NODE_OPTIONS: nodeOptions, ...PANEL_ENV },
    tuned: process.env.PROBE_FLAGS !== '0',
  });
  scope.add('panel', () => panel.stop());
  const cdp = await inspector(inspectPort);
  scope.add('inspector', () => cdp.close());
  const api = apiClient(panel, Math.max(CONCURRENCY, 4));
  scope.add('http agent', () => api.close());

  const snapshot = async (name) => {
    if (process.env.PROBE_SNAPSHOTS !== '1') return;
    const before = new Set(readdirSync(process.cwd()).filter((f) => f.endsWith('.heapsnapshot')));
    process.kill(panel.pid, 'SIGUSR2');
    for (let i = 0; i < 600; i++) {
      await new Promise((r) => setTimeout(r, 500));
      const fresh = readdirSync(process.cwd()).filter((f) => f.endsWith('.heapsnapshot') && !before.has(f));
      if (fresh.length) {
        process.stderr.write(`probe: heap snapshot "${name}": ${fresh[0]}\n`);
        return;
      }
    }
  };
  const sample = async (phase, clients, { gc = false } = {}) => {
    const row = { label: LABEL, phase, clients, ...procMemory(panel.pid), heap: await cdp.memoryUsage() };
    if (gc) {
      await cdp.gc();
      row.heapAfterGc = await cdp.memoryUsage();
      row.rssAfterGc = procMemory(panel.pid).rss;
    }
    samples.push(row);
    console.log(JSON.stringify(row));
  };

  await signIn(api);
  api.token = await issueApiToken(api, 'memory-probe');
  const iface = await api.expect(
    201,
    api.client.POST('/api/interfaces', {
      body: {
        name: 'wgprobe',
        mode: 'standard',
        listenPort: 51998,
        subnet: '10.64.0.0/14',
        endpointHost: 'vpn.probe.example',
      },
    }),
  );
  await sample('start', 0, { gc: true });
  await snapshot('start');
  if (SEED > 0) {
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    for (let from = 0; from < SEED; from += 5000) {
      const specs = Array.from({ length: Math.min(5000, SEED - from) }, (_, k) => ({
        name: `seeded-${String(from + k).padStart(6, '0')}`,
        groups: ['retail'],
        deviceLimit: 2,
      }));
      await insertClients(db, { iface: { id: iface.id, nodeId: iface.nodeId }, subnet: '10.64.0.0/14', specs });
    }
    await db.end();
    // The sweep (every 5 s) delivers the seeded state once; wait for it before measuring.
    await new Promise((r) => setTimeout(r, 12_000));
    await sample(`seeded ${SEED} with SQL`, SEED, { gc: true });
  }

  let next = 0;
  let done = 0;
  let nextSample = STEP;
  let sampling = Promise.resolve();
  const started = performance.now();
  const worker = async () => {
    while (next < CLIENTS) {
      const i = next++;
      const body = {
        name: `client-${String(i).padStart(6, '0')}`,
        interfaceIds: [iface.id],
        groups: ['retail'],
        deviceLimit: 2,
        note: i % 3 ? '' : 'paid by card',
      };
      const response = await api.timed(() => api.client.POST('/api/clients', { body }));
      if (response.status !== 201)
        throw new Error(`POST /api/clients ${i}: ${response.status} ${JSON.stringify(response.body).slice(0, 300)}`);
      done++;
      if (done >= nextSample) {
        nextSample += STEP;
        const at = done;
        sampling = sampling.then(() => sample('create', SEED + at));
        process.stderr.write(`probe: ${at} created (${Math.round(at / ((performance.now() - started) / 1000))}/s)\n`);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  await sampling;
  await sample('created', SEED + done, { gc: true });
  await snapshot('created');

  const lists = [
    ['first page', 'clients?perPage=50'],
    ['deep page', `clients?perPage=50&page=${Math.max(1, Math.floor((SEED + done) / 50) - 1)}`],
    ['search', 'clients?perPage=50&search=client-0001'],
    ['group', 'clients?perPage=50&group=retail'],
    ['traffic', 'clients?perPage=50&sort=traffic'],
    ['me', 'auth/me'],
  ];
  for (const [name, path] of lists) {
    const result = await autocannon({
      url: `${panel.api}/${path}`,
      headers: { authorization: `Bearer ${api.token}` },
      connections: 8,
      duration: LIST_SECONDS,
    });
    process.stderr.write(`probe: ${name}: ${Math.round(result.requests.average)} req/s, non-2xx ${result.non2xx}\n`);
    await sample(
      `list: ${name} (${Math.round(result.requests.total)} requests, ${Math.round(result.requests.average)}/s)`,
      SEED + done,
    );
  }
  await sample('after lists', SEED + done, { gc: true });
  await snapshot('after lists');
  // Idle for a while: what the panel keeps when nothing happens.
  await new Promise((r) => setTimeout(r, 15_000));
  await sample('idle 15 s', SEED + done, { gc: true });

  const f = (n) => (n === undefined ? '–' : n.toFixed(0));
  console.log(
    `\n### ${LABEL}\n\n| phase | clients | RSS MiB | peak (VmHWM) | heap used | heap total | external + arrayBuffers | heap used after GC | RSS after GC |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|`,
  );
  for (const s of samples) {
    console.log(
      `| ${s.phase} | ${s.clients.toLocaleString('en-US')} | ${f(s.rss)} | ${f(s.hwm)} | ${f(s.heap.heapUsed)} | ${f(s.heap.heapTotal)} | ${f(s.heap.external + s.heap.arrayBuffers)} | ${f(s.heapAfterGc?.heapUsed)} | ${f(s.rssAfterGc)} |`,
    );
  }
} catch (error) {
  console.error(`probe FAILED: ${error?.stack ?? error}`);
  process.exitCode = 1;
} finally {
  await scope.run();
}
