// A fleet of simulated agents reporting into one controller: N nodes created and enrolled through
// the API (POST /api/nodes, POST /api/agent/enrol), each with one interface and M clients (one
// device and account each) made through the API, then N WebSockets from one load process
// (bench/lib/fleet-load.js) speaking the agent link protocol: hello, then every 2 s a counter
// batch (M peers, small deltas, acknowledged) and a system sample. Measured over a window: the
// controller's CPU and RSS, PostgreSQL's CPU (backends of the bench database, and the rest of
// the server), ack latency and the system history write rate. Baseline in the same run: the same
// links sending only heartbeats.
//
// Settings (environment): BENCH_NODES (200), BENCH_CLIENTS_PER_NODE (50), BENCH_WINDOW (60 s
// measured per phase), BENCH_SETTLE (10 s before each window), BENCH_INTERVAL_MS (2000),
// BENCH_SEED=api|sql (api: clients through POST /api/clients; sql: direct inserts shaped as the
// API makes them), BENCH_USAGE=zero|history (history: every client starts with the traffic of a
// panel in operation, 100 MiB to 100 GiB, log-uniform; zero: a fresh panel's), BENCH_CREATE_CONCURRENCY (8), BENCH_WRITE=0 (print only), DATABASE_URL /
// REDIS_URL (the machine's servers).
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { cleanupScope } from './lib/cleanup.js';
import { postgresVersion } from './lib/database.js';
import { describeMachine } from './lib/machine.js';
import { apiClient, reportPanelEnd, signIn } from './lib/panel-process.js';
import {
  allProcessesCpu,
  backgroundBusy,
  cpuDelta,
  cpuTrail,
  machineBusyPercent,
  memoryOf,
  topOthers,
} from './lib/proc-stats.js';
import { codeVersion } from './lib/code-version.js';
import { redisVersion } from './lib/redis-cleanup.js';
import { fixed, markdownTable, mib, ms, percentFine as pct, textTable } from './lib/report.js';
import { publishReport, startBenchPanel } from './lib/bench-panel.js';
import { envNumber } from './lib/settings.js';
import { linkSpecs, readings, scheduledJobs, seed, startLoad } from './lib/fleet.js';

export const ID = 'agent-fleet';
export const TITLE = 'Agent fleet: 200 agents reporting every 2 s into one controller';

/** The smoke size (`npm run bench:smoke`, CI): every phase once, in seconds; nothing recorded. */
export const SMOKE = {
  BENCH_NODES: '3',
  BENCH_CLIENTS_PER_NODE: '2',
  BENCH_WINDOW: '5',
  BENCH_SETTLE: '0',
  BENCH_INTERVAL_MS: '1000',
};

export function settingsFromEnv() {
  const seed = process.env.BENCH_SEED || 'api';
  if (!['api', 'sql'].includes(seed)) throw new Error(`BENCH_SEED must be api or sql, got "${seed}"`);
  const usage = process.env.BENCH_USAGE || 'zero';
  if (!['zero', 'history'].includes(usage)) throw new Error(`BENCH_USAGE must be zero or history, got "${usage}"`);
  return {
    nodes: envNumber('BENCH_NODES', 200, 1),
    clientsPerNode: envNumber('BENCH_CLIENTS_PER_NODE', 50, 1),
    windowSeconds: envNumber('BENCH_WINDOW', 60, 5),
    settleSeconds: envNumber('BENCH_SETTLE', 10, 0),
    intervalMs: envNumber('BENCH_INTERVAL_MS', 2000, 100),
    seed,
    usage,
    createConcurrency: envNumber('BENCH_CREATE_CONCURRENCY', 8, 1),
  };
}

async function historyCounts(db) {
  const [exists] = (await db.query(`select to_regclass('system_samples') is not null as present`)).rows;
  if (!exists.present) return undefined;
  const [row] = (
    await db.query(`select count(*) filter (where tier = 2)::int as raw, count(*)::int as all from system_samples`)
  ).rows;
  return row;
}

const SLICE_MS = 10_000;
const COUNTED_TABLES = ['clients', 'devices', 'accounts'];

/** Updates, HOT updates, dead tuples and total size (with indexes) of the tables counters write. */
async function tableStats(db) {
  const rows = (
    await db.query(
      `select relname, n_tup_upd::float8 as upd, n_tup_hot_upd::float8 as hot, n_dead_tup::float8 as dead,
              pg_total_relation_size(relid)::float8 as bytes, autovacuum_count::int as autovacuums
         from pg_stat_user_tables where relname = any($1)`,
      [COUNTED_TABLES],
    )
  ).rows;
  return Object.fromEntries(rows.map((r) => [r.relname, r]));
}

/** Slow acks (over 250 ms), and how many of them were in flight while a scheduled job ran. */
function slowAcksAgainst(slow, jobs) {
  const during = new Map();
  let overlapping = 0;
  for (const ack of slow) {
    const hits = jobs.filter((j) => j.start <= ack.sentAt + ack.ms && j.end >= ack.sentAt);
    if (hits.length) overlapping++;
    for (const j of hits) during.set(j.name, (during.get(j.name) ?? 0) + 1);
  }
  const runs = new Map();
  for (const j of jobs) {
    const r = runs.get(j.name) ?? { count: 0, maxMs: 0 };
    r.count++;
    r.maxMs = Math.max(r.maxMs, j.end - j.start);
    runs.set(j.name, r);
  }
  return { count: slow.length, overlapping, during: [...during.entries()], runs: [...runs.entries()] };
}

/**
 * The panel's count of counter transactions and the batches they carried
 * (`warren_counter_commit_batches`, clients/counter-commits.ts), from GET /api/metrics.
 */
async function counterCommits(panel, api) {
  const response = await fetch(`${panel.origin}/api/metrics`, { headers: { authorization: `Bearer ${api.token}` } });
  if (!response.ok) throw new Error(`GET /api/metrics answered ${response.status}`);
  const text = await response.text();
  const read = (name) => Number(text.match(new RegExp(`^${name} (\\S+)$`, 'm'))?.[1] ?? 0);
  return {
    transactions: read('warren_counter_commit_batches_count'),
    batches: read('warren_counter_commit_batches_sum'),
  };
}

async function measureWindow({ db, panel, api, load, database, settings, label, queuePrefix }) {
  await sleep(settings.settleSeconds * 1000);
  const commitsBefore = await counterCommits(panel, api);
  const tablesBefore = await tableStats(db);
  const everyoneBefore = allProcessesCpu();
  const before = readings({ panelPid: panel.pid, loadPid: load.pid, databaseName: database.name });
  const historyBefore = await historyCounts(db);
  const [usageBefore] = (await db.query(`select coalesce(sum(used_bytes), 0)::float8 as used from clients`)).rows;
  await load.request({ type: 'mark' }, 'marked');
  const rss = [];
  const started = performance.now();
  process.stderr.write(`bench: ${label}: measuring ${settings.windowSeconds} s…\n`);
  const slices = [];
  let sliceMark = before;
  // PostgreSQL's backends come and go (pools close idle connections): seen every second.
  const pgOurs = cpuTrail(before.pgOurs);
  const pgOthers = cpuTrail(before.pgOthers);
  let sliceMarkPg = 0;
  while (performance.now() - started < settings.windowSeconds * 1000) {
    await sleep(1000);
    if (!panel.alive()) throw new Error(`the panel exited during the window:\n${panel.tail()}`);
    rss.push(memoryOf(panel.pid).rss);
    const now = readings({ panelPid: panel.pid, loadPid: load.pid, databaseName: database.name });
    pgOurs.see(now.pgOurs);
    pgOthers.see(now.pgOthers);
    if (now.at - sliceMark.at >= SLICE_MS - 500) {
      const span = now.at - sliceMark.at;
      slices.push({
        panel: (100 * (now.panel - sliceMark.panel)) / span,
        pgOurs: (100 * (pgOurs.total() - sliceMarkPg)) / span,
      });
      sliceMark = now;
      sliceMarkPg = pgOurs.total();
    }
  }
  const { stats } = await load.request({ type: 'report', sliceMs: SLICE_MS }, 'report');
  const commitsAfter = await counterCommits(panel, api);
  const scheduled = await scheduledJobs(queuePrefix);
  const after = readings({ panelPid: panel.pid, loadPid: load.pid, databaseName: database.name });
  const everyoneAfter = allProcessesCpu();
  const ours = new Set([
    panel.pid,
    load.pid,
    process.pid,
    ...after.pgOurs.keys(),
    ...after.pgOthers.keys(),
    ...after.redis.keys(),
  ]);
  const others = topOthers(everyoneBefore, everyoneAfter, after.at - before.at, ours);
  await sleep(1200); // PostgreSQL publishes table statistics at most once a second
  const tablesAfter = await tableStats(db);
  const historyAfter = await historyCounts(db);
  const [usageAfter] = (await db.query(`select coalesce(sum(used_bytes), 0)::float8 as used from clients`)).rows;
  const elapsedMs = after.at - before.at;
  const share = (ms) => (100 * ms) / elapsedMs;
  const machineBusy = machineBusyPercent(before.machine, after.machine);
  const memory = memoryOf(panel.pid);
  const seconds = elapsedMs / 1000;
  return {
    label,
    seconds,
    cpu: {
      panel: share(after.panel - before.panel),
      load: share(after.load - before.load),
      pgOurs: share((pgOurs.see(after.pgOurs), pgOurs.total())),
      pgOthers: share((pgOthers.see(after.pgOthers), pgOthers.total())),
      redis: share(cpuDelta(before.redis, after.redis)),
      machine: machineBusy,
    },
    rss: {
      mean: rss.reduce((s, v) => s + v, 0) / rss.length,
      max: Math.max(...rss),
      peak: memory.peak,
      end: memory.rss,
    },
    history:
      historyBefore && historyAfter
        ? {
            rawPerSecond: (historyAfter.raw - historyBefore.raw) / seconds,
            allPerSecond: (historyAfter.all - historyBefore.all) / seconds,
            rawTotal: historyAfter.raw,
          }
        : undefined,
    usedBytesPerSecond: (usageAfter.used - usageBefore.used) / seconds,
    commits: {
      transactions: commitsAfter.transactions - commitsBefore.transactions,
      batches: commitsAfter.batches - commitsBefore.batches,
    },
    slices,
    others,
    slowAcks: slowAcksAgainst(stats.slow, scheduled),
    tables: Object.fromEntries(
      COUNTED_TABLES.map((t) => {
        const a = tablesBefore[t];
        const b = tablesAfter[t];
        return [
          t,
          {
            updates: b.upd - a.upd,
            hot: b.hot - a.hot,
            deadAfter: b.dead,
            bytesBefore: a.bytes,
            bytesAfter: b.bytes,
            autovacuums: b.autovacuums - a.autovacuums,
          },
        ];
      }),
    ),
    load: stats,
  };
}

// ---------------------------------------------------------------------------------------------

export async function run({ writeDoc = true, docFile, command } = {}) {
  const settings = settingsFromEnv();
  const machine = describeMachine();
  const background = await backgroundBusy();
  const scope = cleanupScope('the fleet run');
  let panel;
  try {
    // No local agent: it would apply on this host; the fleet is all remote nodes.
    let database, queuePrefix;
    ({ panel, database, queuePrefix } = await startBenchPanel(scope, { tag: 'fleet', prefix: 'wbf' }));
    const api = apiClient(panel, settings.createConcurrency);
    scope.add('http agent', () => api.close());
    await signIn(api);
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    scope.add('database client', () => db.end());
    const memoryAtStart = memoryOf(panel.pid);

    process.stderr.write(
      `bench: creating and enrolling ${settings.nodes} nodes, then ${(settings.nodes * settings.clientsPerNode).toLocaleString('en-US')} clients (${settings.seed})…\n`,
    );
    const seeded = await seed({ api, db, settings });
    process.stderr.write(
      `bench: seeded in ${Math.round(seeded.nodesSeconds + seeded.clientsSeconds)} s; waiting for deliveries to settle…\n`,
    );
    // Every node's revision moved with each client: let the controller enqueue its jobs (nobody
    // takes them: these agents are simulated) before the links come up.
    await sleep(3000);
    await db.query('vacuum (analyze) accounts, devices, clients, node_agents, nodes');
    const memorySeeded = memoryOf(panel.pid);

    const load = startLoad();
    scope.add('load process', () => load.stop());
    const url = `${panel.origin.replace(/^http/, 'ws')}/api/agent/link`;
    process.stderr.write(`bench: opening ${settings.nodes} agent links…\n`);
    const connected = await load.request(
      {
        type: 'start',
        url,
        intervalMs: settings.intervalMs,
        links: linkSpecs(seeded.nodes),
      },
      'connected',
    );
    const [{ connected: liveCount }] = (
      await db.query(`select count(*) filter (where connected)::int as connected from node_agents`)
    ).rows;

    load.send({ type: 'mode', mode: 'heartbeat' });
    const baseline = await measureWindow({
      db,
      panel,
      api,
      load,
      database,
      settings,
      queuePrefix,
      label: 'baseline: heartbeats only',
    });
    load.send({ type: 'mode', mode: 'full' });
    const full = await measureWindow({
      db,
      panel,
      api,
      load,
      database,
      settings,
      queuePrefix,
      label: 'counters + system samples',
    });
    const { totals } = await load.request({ type: 'drain' }, 'drained', 60_000);
    const [counted] = (
      await db.query(
        `select coalesce(sum(used_bytes), 0)::text as used, coalesce(sum(up_bytes + down_bytes), 0)::text as accounts from clients`,
      )
    ).rows;
    const [accountsSum] = (
      await db.query(`select coalesce(sum(up_bytes + down_bytes), 0)::text as bytes from accounts`)
    ).rows;
    const [seqs] = (await db.query(`select coalesce(sum(counters_seq), 0)::int as seqs from node_agents`)).rows;
    if (!panel.alive()) throw new Error(`the panel exited during the benchmark:\n${panel.tail()}`);

    const report = render({
      settings,
      machine,
      command,
      seeded,
      connected,
      liveCount,
      baseline,
      full,
      totals,
      counted: {
        // What the window's batches added: the bytes seeded before it (BENCH_USAGE=history) taken off.
        clients: Number(counted.used) - seeded.startBytes.clients,
        accounts: Number(accountsSum.bytes) - seeded.startBytes.accounts,
        seqs: seqs.seqs,
      },
      memory: { start: memoryAtStart, seeded: memorySeeded, end: memoryOf(panel.pid) },
      background,
      versions: {
        postgres: await postgresVersion().catch(() => undefined),
        redis: await redisVersion(),
        code: codeVersion(),
      },
    });
    publishReport(report, { writeDoc, docFile, id: ID, title: TITLE });
    return { baseline, full };
  } catch (error) {
    if (panel) await reportPanelEnd(panel, 300);
    throw error;
  } finally {
    await scope.run();
  }
}

// ---------------------------------------------------------------------------------------------
// Report.

function render({
  settings,
  machine,
  command,
  seeded,
  connected,
  liveCount,
  baseline,
  full,
  totals,
  counted,
  memory,
  versions,
  background,
}) {
  const N = settings.nodes;
  const M = settings.clientsPerNode;
  const rest = (w) =>
    w.cpu.machine === undefined
      ? undefined
      : Math.max(0, w.cpu.machine - w.cpu.panel - w.cpu.load - w.cpu.pgOurs - w.cpu.pgOthers - w.cpu.redis);
  const header = [
    'phase',
    'messages/s sent',
    'controller CPU',
    'PostgreSQL: bench DB backends',
    'PostgreSQL: rest of server',
    'Redis',
    'load process',
    'rest of machine',
    'controller RSS mean / max',
    'ack p50',
    'ack p99',
    'ack max',
    'history rows/s (raw)',
  ];
  const row = (w) => {
    const l = w.load;
    const messages = (l.heartbeats + l.batches + l.resends + l.systems) / l.seconds;
    return [
      w.label,
      fixed(messages),
      pct(w.cpu.panel),
      pct(w.cpu.pgOurs),
      pct(w.cpu.pgOthers),
      pct(w.cpu.redis),
      pct(w.cpu.load),
      pct(rest(w)),
      `${mib(w.rss.mean)} / ${mib(w.rss.max)}`,
      l.ack.count ? ms(l.ack.p50) : '–',
      l.ack.count ? ms(l.ack.p99) : '–',
      l.ack.count ? ms(l.ack.max) : '–',
      w.history ? fixed(w.history.rawPerSecond, 1) : 'no table',
    ];
  };
  const rows = [row(baseline), row(full)];
  const delta = (key) => full.cpu[key] - baseline.cpu[key];
  const l = full.load;
  const batchesPerSecond = l.batches / l.seconds;
  const peerUpdatesPerSecond = l.peers / l.seconds;
  const controllerMsPerBatch = ((full.cpu.panel - baseline.cpu.panel) * 10) / batchesPerSecond; // % of a core → ms per s / batches per s
  const pgMsPerBatch = ((full.cpu.pgOurs - baseline.cpu.pgOurs) * 10) / batchesPerSecond;
  const expectedRaw = N / (settings.intervalMs / 1000);
  const lost = totals.bytes - counted.clients;
  const plain = (table) => table.map((r) => r.map((c) => String(c).replace(/\*\*/g, '')));
  const sliceHeader = [
    'seconds into the window',
    'acks',
    'ack p50',
    'ack p99',
    'ack max',
    'controller CPU',
    'PostgreSQL: bench DB backends',
  ];
  const sliceRows = full.load.slices.slice(0, Math.floor((settings.windowSeconds * 1000) / SLICE_MS)).map((a, k) => {
    const c = full.slices[k];
    return [
      `${(k * SLICE_MS) / 1000}–${((k + 1) * SLICE_MS) / 1000}`,
      fixed(a.count),
      ms(a.p50),
      ms(a.p99),
      ms(a.max),
      c ? pct(c.panel) : '–',
      c ? pct(c.pgOurs) : '–',
    ];
  });
  const MB = 2 ** 20;
  const tableHeader = [
    'table',
    'row updates/s',
    'of them HOT',
    'size with indexes before → after',
    'dead rows after',
    'autovacuum runs',
  ];
  const tableRows = COUNTED_TABLES.map((t) => {
    const x = full.tables[t];
    return [
      t,
      fixed(x.updates / full.seconds),
      x.updates ? pct((100 * x.hot) / x.updates) : '–',
      `${fixed(x.bytesBefore / MB, 1)} → ${fixed(x.bytesAfter / MB, 1)} MiB`,
      fixed(x.deadAfter),
      fixed(x.autovacuums),
    ];
  });

  const text = [
    `Seeded: ${N} nodes created + enrolled + 1 interface each in ${fixed(seeded.nodesSeconds, 1)} s; ${fixed(seeded.clients)} clients (${settings.seed}) in ${fixed(seeded.clientsSeconds, 1)} s. ${N} links up in ${fixed(connected.ms / 1000, 1)} s (${liveCount} marked connected).`,
    textTable(header, plain(rows)),
    '',
    'Counters phase, slice by slice:',
    textTable(sliceHeader, plain(sliceRows)),
    '',
    'Tables the counters write, over the counters window:',
    textTable(tableHeader, plain(tableRows)),
    '',
    `Counter batches: ${fixed(batchesPerSecond, 1)}/s (${fixed(peerUpdatesPerSecond)} peer updates/s) in ${fixed(full.commits.transactions / full.seconds, 1)} transactions/s, resent unacknowledged ${l.resends}, errors ${l.errors}${l.errorTexts.length ? ` (${l.errorTexts.map(([t, n]) => `${n}× ${t}`).join('; ')})` : ''}; links open at the end ${l.open}/${N}${l.fatal ? `; ${l.fatal}` : ''}`,
    `Added by counters: controller ${pct(delta('panel'))} of a core (${ms(controllerMsPerBatch)} per batch), PostgreSQL bench backends ${pct(delta('pgOurs'))} (${ms(pgMsPerBatch)} per batch)`,
    `Slow acks (> 250 ms) in the counters window: ${full.slowAcks.count}, of them ${full.slowAcks.overlapping} in flight while a scheduled system job ran (${full.slowAcks.during.map(([n, c]) => `${n}: ${c}`).join(', ') || 'none'}); scheduled job runs seen: ${full.slowAcks.runs.map(([n, r]) => `${n} ×${r.count}, longest ${ms(r.maxMs)}`).join('; ') || 'none'}`,
    `History: ${full.history ? `${fixed(full.history.rawPerSecond, 1)} raw rows/s (expected ${fixed(expectedRaw)}/s), all tiers ${fixed(full.history.allPerSecond, 1)}/s` : 'system_samples table not present'}`,
    `Other processes: ${[baseline, full].map((w) => `${w.label}: ${w.others.map(([l, p]) => `${l} ${pct(p)}`).join(', ') || 'none'}`).join('; ')}`,
    `Controller RSS: after start ${mib(memory.start.rss)}, after seeding ${mib(memory.seeded.rss)}, at the end ${mib(memory.end.rss)} (peak ${mib(memory.end.peak)}); machine busy before the run ${pct(background)}`,
    `Exactly once: acknowledged batches carried ${fixed(totals.bytes)} bytes; clients' used_bytes sum ${fixed(counted.clients)} (accounts ${fixed(counted.accounts)}); difference ${fixed(lost)}${totals.unacked ? `; ${totals.unacked} batches never acknowledged` : ''}`,
  ].join('\n');

  const envShown = `BENCH_NODES=${N} BENCH_CLIENTS_PER_NODE=${M} BENCH_WINDOW=${settings.windowSeconds} BENCH_SETTLE=${settings.settleSeconds} BENCH_INTERVAL_MS=${settings.intervalMs} BENCH_SEED=${settings.seed} BENCH_USAGE=${settings.usage} BENCH_CREATE_CONCURRENCY=${settings.createConcurrency}`;
  const markdown = `
## ${TITLE}

${fixed(N)} simulated agents, each one WebSocket to the real panel's agent link (\`dist/apps/controller/src/main.js\` in a child process, Redis queues, fresh database, \`WARREN_LOCAL_AGENT=off\`), all from one load process (\`bench/lib/fleet-load.js\`, the \`ws\` package, its own event loop). Every node was created with \`POST /api/nodes\` and enrolled with its one-time secret through \`POST /api/agent/enrol\` (so each has its node credential and its Redis ACL user), and has one interface with ${fixed(M)} clients (one device and one account each), ${settings.seed === 'api' ? `all ${fixed(seeded.clients)} created through \`POST /api/clients\`` : `${fixed(seeded.clients)} inserted with SQL shaped as \`POST /api/clients\` makes them (BENCH_SEED=sql)`}${settings.usage === 'history' ? ', each starting with the traffic of a panel in operation (BENCH_USAGE=history: 100 MiB to 100 GiB per client, log-uniform, then VACUUM ANALYZE)' : ', each starting at 0 bytes (a fresh panel)'}: counter batches update real accounts, devices and clients.

Each link says hello (claiming the node's current revision, so no apply is due), then on its own timer, spread evenly over the ${fixed(settings.intervalMs / 1000)} s interval, sends what \`apps/agent\` sends: a \`counters\` batch (${fixed(M)} peers with small deltas, the sequence number one higher than the last acknowledged; a batch not acknowledged by the next tick is sent again, as the agent's spool does) and a \`system\` sample (a realistic \`SystemSample\`, values drifting). **Baseline in the same run, on the same ${fixed(N)} links**: a \`heartbeat\` every ${fixed(settings.intervalMs / 1000)} s instead. Each phase gets ${settings.settleSeconds} s to settle, then ${settings.windowSeconds} s measured.

- Command: \`${command ?? 'node bench/run.js'}\` with \`BENCH_ONLY=${ID}\` (${envShown})
- Date: ${new Date().toISOString()}
- Machine: ${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB RAM, ${machine.platform}
- Software: Node ${machine.node}, PostgreSQL ${versions.postgres ?? 'unknown'} and Redis ${versions.redis ?? 'unknown'} on the same machine (TCP to 127.0.0.1, default server settings); plain HTTP/WebSocket (\`WARREN_TLS=off\`), \`WARREN_LOG_LEVEL=error\`
- Code: ${versions.code}
- Seeding: ${fixed(N)} nodes created, enrolled and given an interface through the API in ${fixed(seeded.nodesSeconds, 1)} s; ${fixed(seeded.clients)} clients in ${fixed(seeded.clientsSeconds, 1)} s (${fixed(seeded.clients / seeded.clientsSeconds)}/s, ${settings.createConcurrency} in flight); all ${fixed(N)} links connected (hello → welcome) in ${fixed(connected.ms / 1000, 1)} s, ${liveCount} nodes marked connected.

### Results

CPU columns are per cent of one core over the window (the machine has ${machine.cores * 100}%), from \`/proc/<pid>/stat\` (utime + stime): the panel process; the PostgreSQL backends whose process title names the bench database; every other PostgreSQL process (WAL writer, checkpointer, autovacuum, other databases' backends); the whole Redis server; the load process; and the rest of the machine's busy time (\`/proc/stat\`: the kernel's loopback work and anything unrelated on the box; ${pct(background)} of a core was busy in the 3 s before the run, with nothing of the bench running). RSS is the panel's VmRSS sampled every second. Ack latency is from sending a counter batch to its \`ack\`, in the load process. History rows are the rows of tier 2 (raw samples) added to \`system_samples\` per second, counted in SQL at both ends of the window.

${markdownTable(header, rows)}

- **Counters**: ${fixed(batchesPerSecond, 1)} batches/s, ${fixed(peerUpdatesPerSecond)} peer updates/s (each one an account, its device and its client updated), in ${fixed(full.commits.transactions / full.seconds, 1)} transactions/s (${fixed(full.commits.transactions ? full.commits.batches / full.commits.transactions : 0, 1)} batches each on average: several nodes' batches arriving together share one, clients/counter-commits.ts); ${l.resends} batches sent again for want of an ack within ${fixed(settings.intervalMs / 1000)} s; ${l.errors} error answers${l.errorTexts.length ? ` (${l.errorTexts.map(([t, n]) => `${n}× "${t}"`).join('; ')})` : ''}; ${l.open} of ${fixed(N)} links open at the end.
- **Slow acks** (over 250 ms) in the counters window: ${fixed(full.slowAcks.count)}${full.slowAcks.count ? `, of them ${fixed(full.slowAcks.overlapping)} in flight while one of the controller's scheduled jobs ran (${full.slowAcks.during.map(([n, c]) => `${n}: ${fixed(c)}`).join(', ') || 'none'})` : ''}. Scheduled job runs seen in the queue store: ${full.slowAcks.runs.map(([n, r]) => `\`${n}\` ×${r.count}, longest ${ms(r.maxMs)}`).join('; ') || 'none'}.
- **What the counters add** over the heartbeat baseline: controller ${pct(delta('panel'))} of a core (${ms(controllerMsPerBatch)} of CPU per batch of ${fixed(M)} peers, system sample included), PostgreSQL backends of the bench database ${pct(delta('pgOurs'))} (${ms(pgMsPerBatch)} per batch), rest of PostgreSQL ${pct(delta('pgOthers'))}.
- **History**: ${full.history ? `${fixed(full.history.rawPerSecond, 1)} raw rows/s written (${fixed(expectedRaw)}/s expected: ${fixed(N)} agents every ${fixed(settings.intervalMs / 1000)} s), ${fixed(full.history.allPerSecond, 1)} rows/s over all tiers; during the heartbeat baseline ${fixed(baseline.history.rawPerSecond, 1)} raw rows/s (the controller's own sampler).` : 'the system_samples table did not exist in this build: no history write rate.'}
- **Exactly once**: after the window the links stopped and waited for every pending ack; acknowledged batches carried ${fixed(totals.bytes)} bytes in all, and the clients' \`used_bytes\` sum to ${fixed(counted.clients)} (accounts: ${fixed(counted.accounts)}): ${lost === 0 && counted.accounts === totals.bytes ? '**equal, to the byte**' : `**a difference of ${fixed(lost)} bytes**`}${totals.unacked ? `; ${totals.unacked} batches were never acknowledged` : ''}.

The counters window slice by slice (acks by when they arrived; CPU per cent of one core over each slice):

${markdownTable(sliceHeader, sliceRows)}

What the counters do to the tables they update, over the counters window (\`pg_stat_user_tables\`, \`pg_total_relation_size\`). An update is HOT (no index entries written) only when no indexed column changes and the page has room; of what a batch changes, only \`clients.used_step\` and \`remaining_step\` are indexed (for the list's traffic and remaining orders), and they move when a client's total crosses a sixteenth of a doubling: often for a client near zero (BENCH_USAGE=zero), rarely for one with gigabytes behind it:

${markdownTable(tableHeader, tableRows)}

Controller memory (VmRSS; VmHWM is the peak so far): after start ${mib(memory.start.rss)}; after seeding ${mib(memory.seeded.rss)}; at the end ${mib(memory.end.rss)} (peak ${mib(memory.end.peak)}).

How honest these numbers are:
- "Rest of machine" is not the bench's: the biggest other processes over the windows were ${[baseline, full].map((w) => `${w.label}: ${w.others.map(([l, p]) => `\`${l}\` ${pct(p)}`).join(', ') || 'none above 1%'}`).join('; ')} (other work sharing this machine; its processes that ended within a window are not listed).
- ${background !== undefined && background > 20 ? `**The machine was not quiet**: ${pct(background)} of a core was busy before the run with nothing of the bench running (other work on the box, e.g. test suites, shows in "rest of machine" and in "PostgreSQL: rest of server"). The controller's and the bench database's own CPU are measured per process and hold regardless; ack latencies are pessimistic.` : `The machine was quiet before the run (${background === undefined ? '–' : pct(background)} of a core busy).`}
- Everything shares ${machine.cores} cores: the panel, PostgreSQL, Redis and the load process (${pct(full.cpu.load)} of a core for ${fixed(N)} links in the counters phase). On a deployment the database has cores of its own and the agents are elsewhere, so the controller would have more room; the ack latency includes waiting for a core.
- Deltas are small and no client has a quota or expiry, so no batch changes a client's status (no revision bumps, no apply jobs): this is the steady-state cost of accounting, not of enforcement. Each batch covers all ${fixed(M)} peers of its node, about 1 in 17 idle with zero bytes (the agent leaves a peer that did not move out of its batch, so its batches are no larger than these).
- PostgreSQL CPU is attributed by process title, every backend seen each second: one that ends within the window (a pool closing an idle connection) counts what it spent until last seen. Redis is the whole server (nothing else of the bench uses it in the window).
- Loopback only, no TLS: real agents pay TLS and network round trips, which lengthen each ack but cost the controller little CPU.
`;
  return { text, markdown };
}
