// Usage history's cost (docs/clients.md, "Usage history"): what writing each client's bytes into
// its current 5-minute bucket adds to the counter batch, at 100,000 clients reporting every 2 s,
// and how fast a client's usage is read back. Two panels in turn (each on a database of its own,
// seeded the same: BENCH_NODES nodes enrolled through the API, BENCH_CLIENTS_PER_NODE clients on
// each by SQL, shaped as POST /api/clients makes them), each fed by the agent-fleet bench's load
// process (bench/lib/fleet-load.js: one WebSocket per node, a counter batch of every peer each
// interval): first with WARREN_USAGE_HISTORY=off (the baseline, in the same run; the switch exists
// for it only), then as production runs. Per window: the PostgreSQL CPU of the bench database's
// backends per acknowledged batch and per 1,000 peer updates, the batches acknowledged, the
// history's row writes, HOT share and size. Then, on the second panel, a full history (two years)
// is seeded by SQL for BENCH_HISTORY_CLIENTS clients and GET /api/clients/{id}/usage is timed
// per range (and GET /api/overview/usage).
//
// Settings (environment): BENCH_NODES (20), BENCH_CLIENTS_PER_NODE (5000), BENCH_WINDOW (60 s
// measured per panel), BENCH_SETTLE (20 s before each window), BENCH_INTERVAL_MS (2000),
// BENCH_HISTORY_CLIENTS (1000), BENCH_QUERIES (200 per range), BENCH_WRITE=0 (print only),
// DATABASE_URL / REDIS_URL (the machine's servers).
import { setTimeout as sleep } from 'node:timers/promises';
import { seed, startLoad } from './agent-fleet.js';
import { cleanupScope } from './lib/cleanup.js';
import { postgresVersion } from './lib/database.js';
import { describeMachine } from './lib/machine.js';
import { apiClient, reportPanelEnd, signIn } from './lib/panel-process.js';
import { backgroundBusy, cmdlineOf, cpuDelta, cpuMsOf, cpuMsOfProcesses, summarise } from './lib/proc-stats.js';
import { fixed, latencyMs, markdownTable, mib, ms, percent, textTable } from './lib/report.js';
import { benchDatabaseClient, publishReport, startBenchPanel } from './lib/bench-panel.js';
import { envNumber } from './lib/settings.js';
import { codeVersion } from './lib/code-version.js';

export const ID = 'usage-history';
export const TITLE = 'Usage history: 100,000 clients reporting every 2 s, and the usage query';

/** The smoke size (`npm run bench:smoke`, CI): every phase once, in seconds; nothing recorded. */
export const SMOKE = {
  BENCH_NODES: '2',
  BENCH_CLIENTS_PER_NODE: '5',
  BENCH_WINDOW: '5',
  BENCH_SETTLE: '2',
  BENCH_INTERVAL_MS: '1000',
  BENCH_HISTORY_CLIENTS: '3',
  BENCH_QUERIES: '5',
};

const IFNAME = 'wg0';
const RANGES = ['24h', '7d', '90d', '2y'];
const HISTORY_TABLES = ['client_usage_history', 'node_usage_history'];

export function settingsFromEnv() {
  return {
    nodes: envNumber('BENCH_NODES', 20, 1),
    clientsPerNode: envNumber('BENCH_CLIENTS_PER_NODE', 5000, 1),
    windowSeconds: envNumber('BENCH_WINDOW', 60, 5),
    settleSeconds: envNumber('BENCH_SETTLE', 20, 0),
    intervalMs: envNumber('BENCH_INTERVAL_MS', 2000, 100),
    historyClients: envNumber('BENCH_HISTORY_CLIENTS', 1000, 1),
    queries: envNumber('BENCH_QUERIES', 200, 1),
    // The fleet bench's seeding, by SQL (100,000 clients through the API would take an hour here).
    seed: 'sql',
    createConcurrency: 8,
    // Room for every client of a node on its interface (the fleet bench's /24 holds 253).
    subnet: '10.64.0.0/14',
  };
}

const isPostgres = (cmdline) =>
  cmdline.startsWith('postgres') || cmdline.includes('/postgres ') || cmdline.includes('bin/postgres');

/** CPU ms of the PostgreSQL backends whose process title names the database. */
function databaseCpu(name) {
  const ours = new Map();
  for (const [pid, cpu] of cpuMsOfProcesses(isPostgres)) if (cmdlineOf(pid).includes(` ${name} `)) ours.set(pid, cpu);
  return ours;
}

async function tableStats(db) {
  const rows = (
    await db.query(
      `select relname, n_tup_ins::float8 as ins, n_tup_upd::float8 as upd, n_tup_hot_upd::float8 as hot,
              n_live_tup::float8 as live, pg_total_relation_size(relid)::float8 as bytes
         from pg_stat_user_tables where relname = any($1)`,
      [[...HISTORY_TABLES, 'clients', 'accounts']],
    )
  ).rows;
  return Object.fromEntries(rows.map((row) => [row.relname, row]));
}

/** One panel: started, seeded, fed for a window, measured; stopped before the next one starts. */
async function side({ label, history, settings }) {
  const scope = cleanupScope(`the usage-history run (${label})`);
  let panel;
  try {
    let database;
    ({ panel, database } = await startBenchPanel(scope, {
      tag: `usage-${history ? 'on' : 'off'}`,
      prefix: 'wbu',
      env: { WARREN_USAGE_HISTORY: history ? 'on' : 'off' },
    }));
    const api = apiClient(panel, 8);
    scope.add('http agent', () => api.close());
    await signIn(api);
    const db = await benchDatabaseClient(scope, database);
    process.stderr.write(
      `bench: ${label}: ${settings.nodes} nodes, ${(settings.nodes * settings.clientsPerNode).toLocaleString('en-US')} clients…\n`,
    );
    const seeded = await seed({ api, db, settings });
    await sleep(2000);
    await db.query('vacuum (analyze) accounts, devices, clients, node_agents, nodes');

    const load = startLoad();
    scope.add('load process', () => load.stop());
    await load.request(
      {
        type: 'start',
        url: `${panel.origin.replace(/^http/, 'ws')}/api/agent/link`,
        intervalMs: settings.intervalMs,
        links: seeded.nodes.map((n) => ({
          credential: n.credential,
          ifname: IFNAME,
          keys: n.keys,
          appliedRevision: n.appliedRevision,
        })),
      },
      'connected',
    );
    load.send({ type: 'mode', mode: 'full' });
    process.stderr.write(`bench: ${label}: settling ${settings.settleSeconds} s, then ${settings.windowSeconds} s…\n`);
    await sleep(settings.settleSeconds * 1000);
    const tablesBefore = await tableStats(db);
    const pgBefore = databaseCpu(database.name);
    const panelBefore = cpuMsOf(panel.pid);
    const started = performance.now();
    await load.request({ type: 'mark' }, 'marked');
    await sleep(settings.windowSeconds * 1000);
    const { stats } = await load.request({ type: 'report', sliceMs: 10_000 }, 'report');
    const seconds = (performance.now() - started) / 1000;
    const pgMs = cpuDelta(pgBefore, databaseCpu(database.name));
    const panelMs = cpuMsOf(panel.pid) - panelBefore;
    await sleep(1200); // table statistics are published at most once a second
    const tablesAfter = await tableStats(db);
    if (!panel.alive()) throw new Error(`the panel exited during the window:\n${panel.tail()}`);

    // Exactly once: after the links drain, the history holds what the totals hold, to the byte.
    await load.request({ type: 'drain' }, 'drained', 120_000);
    const [sums] = (
      await db.query(
        `select (select coalesce(sum(up_bytes + down_bytes), 0) from clients)::text as totals,
                (select coalesce(sum(up_bytes + down_bytes), 0) from client_usage_history)::text as clients,
                (select coalesce(sum(up_bytes + down_bytes), 0) from node_usage_history)::text as nodes`,
      )
    ).rows;
    if (history && (sums.clients !== sums.totals || sums.nodes !== sums.totals))
      throw new Error(`history ≠ totals: clients ${sums.clients}, nodes ${sums.nodes}, totals ${sums.totals}`);
    if (!history && sums.clients !== '0') throw new Error(`history written with WARREN_USAGE_HISTORY=off`);

    const acked = stats.ack.count;
    const peersPerBatch = settings.clientsPerNode;
    const tables = Object.fromEntries(
      Object.keys(tablesAfter).map((name) => {
        const a = tablesBefore[name];
        const b = tablesAfter[name];
        return [
          name,
          {
            inserts: b.ins - a.ins,
            updates: b.upd - a.upd,
            hot: b.hot - a.hot,
            live: b.live,
            bytesBefore: a.bytes,
            bytesAfter: b.bytes,
          },
        ];
      }),
    );
    const result = {
      label,
      history,
      seconds,
      acked,
      batchesPerSecond: acked / seconds,
      peerUpdatesPerSecond: (acked * peersPerBatch) / seconds,
      ack: stats.ack,
      resends: stats.resends,
      errors: stats.errors,
      pgCorePercent: (100 * pgMs) / (seconds * 1000),
      panelCorePercent: (100 * panelMs) / (seconds * 1000),
      pgMsPerBatch: acked ? pgMs / acked : undefined,
      pgMsPer1000Peers: acked ? (1000 * pgMs) / (acked * peersPerBatch) : undefined,
      tables,
      sums,
    };
    if (history) result.queries = await timeQueries({ api, db, settings });
    return result;
  } catch (error) {
    if (panel) await reportPanelEnd(panel, 300);
    throw error;
  } finally {
    await scope.run();
  }
}

/**
 * A full history for some clients (every tier as long as it is kept, written by SQL as the folds
 * would), then GET /api/clients/{id}/usage per range for clients picked at random among them, one
 * request at a time, and GET /api/overview/usage.
 */
async function timeQueries({ api, db, settings }) {
  const ids = (await db.query(`select id from clients order by id limit $1`, [settings.historyClients])).rows.map(
    (row) => row.id,
  );
  const t0 = performance.now();
  for (const [tier, span, step] of [
    [300, '48 hours', '5 minutes'],
    [3600, '90 days', '1 hour'],
    [86400, '730 days', '1 day'],
  ]) {
    await db.query(
      `insert into client_usage_history (client_id, tier, at, up_bytes, down_bytes)
       select c, $2, g, (random() * 1e6)::bigint, (random() * 1e7)::bigint
         from unnest($1::uuid[]) c,
              generate_series(date_trunc('day', now() - interval '${span}'), now() - interval '${step}', interval '${step}') g
       on conflict do nothing`,
      [ids, tier],
    );
  }
  await db.query('vacuum (analyze) client_usage_history');
  const [{ rows }] = (await db.query(`select count(*)::float8 as rows from client_usage_history`)).rows;
  const seedSeconds = (performance.now() - t0) / 1000;
  const timings = {};
  for (const range of [...RANGES, 'overview 24h', 'overview 2y']) {
    const samples = [];
    for (let i = 0; i < settings.queries; i++) {
      const id = ids[Math.floor(Math.random() * ids.length)];
      const overview = range.startsWith('overview');
      const started = performance.now();
      const { response } = overview
        ? await api.client.GET('/api/overview/usage', { params: { query: { range: range.split(' ')[1] } } })
        : await api.client.GET('/api/clients/{id}/usage', { params: { path: { id }, query: { range } } });
      samples.push(performance.now() - started);
      if (response.status !== 200) throw new Error(`usage ${range} answered ${response.status}`);
    }
    timings[range] = summarise(samples);
  }
  return { rows, seedSeconds, timings };
}

export async function run({ writeDoc = true, docFile, command } = {}) {
  const settings = settingsFromEnv();
  const machine = describeMachine();
  const background = await backgroundBusy();
  const off = await side({ label: 'history off (baseline)', history: false, settings });
  const on = await side({ label: 'history on', history: true, settings });
  const report = render({
    settings,
    machine,
    command,
    off,
    on,
    background,
    postgres: await postgresVersion().catch(() => undefined),
    code: codeVersion(),
  });
  publishReport(report, { writeDoc, docFile, id: ID, title: TITLE });
  return { off, on };
}

function render({ settings, machine, command, off, on, background, postgres, code }) {
  const clients = settings.nodes * settings.clientsPerNode;
  const added = (a, b) =>
    a === undefined || b === undefined ? '–' : `${a >= b ? '+' : ''}${fixed((a / b - 1) * 100, 1)}%`;
  const header = ['', 'history off (baseline)', 'history on', 'added'];
  const rows = [
    [
      'batches acknowledged per second',
      fixed(off.batchesPerSecond, 1),
      fixed(on.batchesPerSecond, 1),
      added(on.batchesPerSecond, off.batchesPerSecond),
    ],
    [
      'peer updates per second',
      fixed(off.peerUpdatesPerSecond, 0),
      fixed(on.peerUpdatesPerSecond, 0),
      added(on.peerUpdatesPerSecond, off.peerUpdatesPerSecond),
    ],
    [
      'PostgreSQL (bench database backends), % of a core',
      percent(off.pgCorePercent),
      percent(on.pgCorePercent),
      added(on.pgCorePercent, off.pgCorePercent),
    ],
    [
      '**PostgreSQL CPU per batch**',
      `**${ms(off.pgMsPerBatch)}**`,
      `**${ms(on.pgMsPerBatch)}**`,
      `**${added(on.pgMsPerBatch, off.pgMsPerBatch)}**`,
    ],
    [
      'PostgreSQL CPU per 1,000 peer updates',
      ms(off.pgMsPer1000Peers),
      ms(on.pgMsPer1000Peers),
      added(on.pgMsPer1000Peers, off.pgMsPer1000Peers),
    ],
    [
      'controller, % of a core',
      percent(off.panelCorePercent),
      percent(on.panelCorePercent),
      added(on.panelCorePercent, off.panelCorePercent),
    ],
    [
      'ack p50 / p99',
      `${latencyMs(off.ack.p50)} / ${latencyMs(off.ack.p99)}`,
      `${latencyMs(on.ack.p50)} / ${latencyMs(on.ack.p99)}`,
      '',
    ],
    ['batches sent again (no ack within an interval)', fixed(off.resends), fixed(on.resends), ''],
  ];
  const h = on.tables.client_usage_history;
  const n = on.tables.node_usage_history;
  const writesPerSecond = (h.inserts + h.updates) / on.seconds;
  const bytesPerRow = h.live ? h.bytesAfter / h.live : undefined;
  // Every client reporting all the time gets one new 5-minute row per bucket: two per 10 minutes
  // (plus the hourly rows the fold writes, one per client per hour); the updates in between are
  // HOT or pruned. The bytes per row are what the table holds per live row at the window's end.
  const rowsPer10Min = clients * 2 + clients / 6;
  const growth10Min = bytesPerRow === undefined ? undefined : (rowsPer10Min * bytesPerRow) / 2 ** 20;
  const historyRows = [
    [
      'client_usage_history',
      fixed(h.inserts / on.seconds, 1),
      fixed(h.updates / on.seconds, 0),
      percent(h.updates ? (100 * h.hot) / h.updates : undefined),
      `${mib(h.bytesBefore / 2 ** 20, 1)} → ${mib(h.bytesAfter / 2 ** 20, 1)}`,
      fixed(h.live),
    ],
    [
      'node_usage_history',
      fixed(n.inserts / on.seconds, 2),
      fixed(n.updates / on.seconds, 1),
      percent(n.updates ? (100 * n.hot) / n.updates : undefined),
      `${mib(n.bytesBefore / 2 ** 20, 2)} → ${mib(n.bytesAfter / 2 ** 20, 2)}`,
      fixed(n.live),
    ],
  ];
  const q = on.queries;
  const queryRows = Object.entries(q.timings).map(([range, s]) => [
    range.startsWith('overview')
      ? `GET /api/overview/usage?range=${range.split(' ')[1]}`
      : `GET /api/clients/{id}/usage?range=${range}`,
    fixed(s.count),
    latencyMs(s.p50),
    latencyMs(s.p99),
    latencyMs(s.max),
  ]);
  const env = `BENCH_NODES=${settings.nodes} BENCH_CLIENTS_PER_NODE=${settings.clientsPerNode} BENCH_WINDOW=${settings.windowSeconds} BENCH_SETTLE=${settings.settleSeconds} BENCH_INTERVAL_MS=${settings.intervalMs} BENCH_HISTORY_CLIENTS=${settings.historyClients} BENCH_QUERIES=${settings.queries}`;
  const markdown = `## ${TITLE}

Command: \`BENCH_ONLY=usage-history ${env} ${command ?? 'npm run bench'}\`.
Machine: ${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.platform}, Node ${machine.node}; PostgreSQL ${postgres ?? '?'} (the machine's, shared). Code: ${code ?? '?'}.
**Load**: ${percent(background)} of a core was busy in the 3 s before the run with nothing of the bench running (other engineers' test suites share these 2 cores); every figure below was measured under that load, and the panel, PostgreSQL, Redis and the load process share the same 2 cores.

${fixed(clients)} clients (${settings.nodes} nodes enrolled through the API, ${fixed(settings.clientsPerNode)} clients each seeded by SQL as \`POST /api/clients\` makes them), one simulated agent per node (\`bench/lib/fleet-load.js\`) sending a counter batch of every peer every ${fixed(settings.intervalMs / 1000)} s (a new batch once the last was acknowledged, else the same one again, as the agent's spool does). Two panels in turn, each on a database of its own: first with \`WARREN_USAGE_HISTORY=off\` (the baseline, same run, same seeding; the switch exists for it only), then as production runs. ${settings.settleSeconds} s to settle, then ${settings.windowSeconds} s measured each. PostgreSQL CPU is that of the backends whose process title names the bench database (\`/proc/<pid>/stat\`).

${markdownTable(header, rows)}

What the history writes, over the window with history on (\`pg_stat_user_tables\`): one upsert per reporting client per batch into its current 5-minute row (an insert when the bucket opens, an update after), and one per node:

${markdownTable(['table', 'inserts/s', 'updates/s', 'of them HOT', 'size with indexes, window start → end', 'rows at the end'], historyRows)}

- Row writes into the history: **${fixed(writesPerSecond, 0)} rows/s** (inserts and in-place updates of the current bucket); new rows only when a bucket opens.
- **Growth over 10 minutes, extrapolated** from this ${fixed(on.seconds, 0)} s window (a 10-minute run at this size does not fit this session's machine time): every reporting client gets two 5-minute rows per 10 minutes and one hourly row per hour from the fold, ${fixed(rowsPer10Min)} rows at ${bytesPerRow === undefined ? '–' : fixed(bytesPerRow, 0)} bytes per row with indexes as measured at the end of the window: **≈ ${growth10Min === undefined ? '–' : mib(growth10Min, 0)} per 10 minutes**. The updates in between are HOT (no index entries) and their old versions are pruned within the page (fillfactor 60), so they do not grow the table beyond what the share above that is not HOT costs.
- Exactly once: after the links drained, the clients' totals, the sum of \`client_usage_history\` and the sum of \`node_usage_history\` are ${on.sums.totals} bytes each: **equal, to the byte**.
- Both panels reached ${fixed(off.peerUpdatesPerSecond, 0)} and ${fixed(on.peerUpdatesPerSecond, 0)} peer updates per second of the ${fixed(clients / (settings.intervalMs / 1000), 0)} offered: where that is below the offer, PostgreSQL on this shared machine is the limit (batches wait for their ack and are sent again, as agents do), and the CPU per 1,000 peer updates is the figure to compare. At the full offer that is ${on.pgMsPer1000Peers === undefined ? '–' : fixed((on.pgMsPer1000Peers * clients) / (settings.intervalMs / 1000) / 1000 / 1000, 1)} cores of PostgreSQL with the history, ${off.pgMsPer1000Peers === undefined ? '–' : fixed((off.pgMsPer1000Peers * clients) / (settings.intervalMs / 1000) / 1000 / 1000, 1)} without (extrapolated from the CPU per peer update measured here).

The usage query, on the history-on panel after the window: a full history (48 h of 5-minute rows, 90 days of hourly, two years of daily) seeded by SQL for ${fixed(settings.historyClients)} clients (${fixed(q.rows)} rows in the table, ${fixed(q.seedSeconds, 0)} s), then ${fixed(settings.queries)} requests per range, one at a time, for clients picked at random (HTTP from the bench process, an API token):

${markdownTable(['request', 'n', 'p50', 'p99', 'max'], queryRows)}
`;
  const text = [
    TITLE,
    textTable(
      header,
      rows.map((row) => row.map((cell) => cell.replaceAll('**', ''))),
    ),
    textTable(['table', 'inserts/s', 'updates/s', 'HOT', 'size', 'rows'], historyRows),
    `history row writes ${fixed(writesPerSecond, 0)}/s; growth per 10 min ≈ ${growth10Min === undefined ? '–' : mib(growth10Min, 0)} (extrapolated)`,
    textTable(['request', 'n', 'p50', 'p99', 'max'], queryRows),
  ].join('\n\n');
  return { markdown, text, result: { off, on } };
}
