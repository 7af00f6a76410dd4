// Usage history's cost (docs/clients.md, "Usage history"): what writing each client's bytes into
// its current 5-minute bucket adds to the counter batch at 100,000 clients, and how fast a
// client's usage is read back. Two panels at once, each on a database of its own, seeded the
// same (BENCH_NODES nodes enrolled through the API with the fleet bench's seeding, and
// BENCH_CLIENTS_PER_NODE clients on each by SQL, shaped as POST /api/clients makes them): one with
// WARREN_USAGE_HISTORY=off (the same-run baseline; the switch exists for it only), one as
// production runs. Each node's agent link gets a counter batch of every one of its peers, one
// batch at a time (sent, acknowledged, the next), in passes over every node; the two panels take
// passes in turn (the order flips every round) so load from elsewhere falls on both alike. Per
// pass: wall time per batch, and the CPU of the PostgreSQL backends of the panel's database. One
// batch at a time measures what a batch costs; the machine (2 shared cores) cannot take the full
// offer (100,000 peers every 2 s), so the cores that offer needs are extrapolated from it. Then,
// on the history panel, a full history (two years) is seeded by SQL for BENCH_HISTORY_CLIENTS
// clients and GET /api/clients/{id}/usage is timed per range (and GET /api/overview/usage).
//
// Settings (environment): BENCH_NODES (100), BENCH_CLIENTS_PER_NODE (1000), BENCH_ROUNDS (4
// passes per panel, after one warm-up pass), BENCH_INTERVAL_MS (2000: the agents' interval the
// batches stand for), BENCH_HISTORY_CLIENTS (1000), BENCH_QUERIES (200 per range), BENCH_WRITE=0
// (print only), DATABASE_URL / REDIS_URL (the machine's servers).
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { seed } from './lib/fleet.js';
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
  BENCH_ROUNDS: '1',
  BENCH_INTERVAL_MS: '1000',
  BENCH_HISTORY_CLIENTS: '3',
  BENCH_QUERIES: '5',
};

const IFNAME = 'wg0';
const RANGES = ['24h', '7d', '90d', '2y'];
const HISTORY_TABLES = ['client_usage_history', 'node_usage_history'];

export function settingsFromEnv() {
  return {
    nodes: envNumber('BENCH_NODES', 100, 1),
    clientsPerNode: envNumber('BENCH_CLIENTS_PER_NODE', 1000, 1),
    intervalMs: envNumber('BENCH_INTERVAL_MS', 2000, 100),
    rounds: envNumber('BENCH_ROUNDS', 4, 1),
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

/** A panel, seeded: its nodes, their links (one WebSocket each, spoken to one batch at a time). */
async function startSide({ label, history, settings, scope }) {
  const { panel, database } = await startBenchPanel(scope, {
    tag: `usage-${history ? 'on' : 'off'}`,
    prefix: 'wbu',
    env: { WARREN_USAGE_HISTORY: history ? 'on' : 'off' },
  });
  const api = apiClient(panel, 8);
  scope.add(`http agent ${label}`, () => api.close());
  await signIn(api);
  const db = await benchDatabaseClient(scope, database);
  process.stderr.write(
    `bench: ${label}: ${settings.nodes} nodes, ${(settings.nodes * settings.clientsPerNode).toLocaleString('en-US')} clients…\n`,
  );
  const seeded = await seed({ api, db, settings });
  await sleep(2000);
  await db.query('vacuum (analyze) accounts, devices, clients, node_agents, nodes');
  const url = `${panel.origin.replace(/^http/, 'ws')}/api/agent/link`;
  const links = [];
  for (const node of seeded.nodes) {
    const link = await openLink(url, node);
    scope.add(`link ${label}`, () => link.ws.close());
    links.push(link);
  }
  return { label, history, panel, api, db, database, links, rounds: [], batchMs: [] };
}

/** One agent link: hello, then the welcome's sequence number; `batch()` sends one and waits for its ack. */
function openLink(url, node) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, {
      headers: { authorization: `Bearer ${node.credential}` },
      perMessageDeflate: false,
    });
    const link = { ws, keys: node.keys, seq: 0, readAt: undefined, waiting: undefined };
    const timer = setTimeout(() => reject(new Error('no welcome within 60 s')), 60_000);
    ws.on('open', () =>
      ws.send(
        JSON.stringify({
          type: 'hello',
          version: 'bench-usage',
          capabilities: { root: true, wireguardKernel: true, wireguardGo: false, wg: true, nft: true, ip: true },
          gaps: [],
          appliedRevision: node.appliedRevision,
        }),
      ),
    );
    ws.on('error', (error) => reject(error));
    ws.on('message', (data) => {
      const message = JSON.parse(String(data));
      if (message.type === 'welcome') {
        clearTimeout(timer);
        link.seq = Math.max(link.seq, message.countersSeq);
        resolve(link);
      } else if (message.type === 'ack' && link.waiting && message.seq === link.seq) {
        link.waiting.resolve();
        link.waiting = undefined;
      } else if (message.type === 'error' && link.waiting) {
        link.waiting.reject(new Error(`the controller refused a batch: ${message.error}`));
        link.waiting = undefined;
      }
    });
  });
}

/** Every peer of the link moved (a few hundred KB each): one batch, acknowledged. */
function sendBatch(link, intervalMs) {
  const at = (link.readAt ?? Date.now() - intervalMs) + intervalMs;
  const since = link.readAt ?? at - intervalMs;
  link.readAt = at;
  link.seq++;
  const peers = link.keys.map((publicKey, i) => ({
    interface: IFNAME,
    publicKey,
    rxBytes: 1_000 + ((i * 7919 + link.seq * 104_729) % 200_000),
    txBytes: 5_000 + ((i * 15_485_863 + link.seq * 32_452_843) % 1_000_000),
    lastHandshake: Date.now() - 30_000,
    endpoint: `203.0.113.${(i % 250) + 1}:${40000 + (i % 20000)}`,
  }));
  return new Promise((resolve, reject) => {
    link.waiting = { resolve, reject };
    link.ws.send(JSON.stringify({ type: 'counters', seq: link.seq, at, since, peers }));
  });
}

/** One pass over a side's links, one batch at a time: wall time per batch, and the database's CPU. */
async function pass(side, settings) {
  const pgBefore = databaseCpu(side.database.name);
  const panelBefore = cpuMsOf(side.panel.pid);
  const started = performance.now();
  for (const link of side.links) {
    const t0 = performance.now();
    await sendBatch(link, settings.intervalMs);
    side.batchMs.push(performance.now() - t0);
  }
  return {
    seconds: (performance.now() - started) / 1000,
    pgMs: cpuDelta(pgBefore, databaseCpu(side.database.name)),
    panelMs: cpuMsOf(side.panel.pid) - panelBefore,
    batches: side.links.length,
  };
}

async function historySums(db) {
  const [sums] = (
    await db.query(
      `select (select coalesce(sum(up_bytes + down_bytes), 0) from clients)::text as totals,
              (select coalesce(sum(up_bytes + down_bytes), 0) from client_usage_history)::text as clients,
              (select coalesce(sum(up_bytes + down_bytes), 0) from node_usage_history)::text as nodes`,
    )
  ).rows;
  return sums;
}

function summariseSide(side, settings, tablesBefore, tablesAfter) {
  const sum = (key) => side.rounds.reduce((total, round) => total + round[key], 0);
  const seconds = sum('seconds');
  const batches = sum('batches');
  const peers = batches * settings.clientsPerNode;
  const pgMs = sum('pgMs');
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
  return {
    label: side.label,
    history: side.history,
    seconds,
    acked: batches,
    batchesPerSecond: batches / seconds,
    peerUpdatesPerSecond: peers / seconds,
    ack: summarise(side.batchMs),
    resends: 0,
    pgCorePercent: (100 * pgMs) / (seconds * 1000),
    panelCorePercent: (100 * sum('panelMs')) / (seconds * 1000),
    pgMsPerBatch: pgMs / batches,
    pgMsPer1000Peers: (1000 * pgMs) / peers,
    tables,
  };
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
  const scope = cleanupScope('the usage-history run (stopping the panels, dropping their databases)');
  const sides = [];
  try {
    sides.push(await startSide({ label: 'history off (baseline)', history: false, settings, scope }));
    sides.push(await startSide({ label: 'history on', history: true, settings, scope }));
    // A warm-up pass each: the first batch of a bucket inserts its rows, the rest update them.
    for (const side of sides) await pass(side, settings);
    for (const side of sides) side.batchMs = [];
    const before = await Promise.all(sides.map((side) => tableStats(side.db)));
    for (let round = 0; round < settings.rounds; round++) {
      for (const side of round % 2 === 0 ? sides : [...sides].reverse()) side.rounds.push(await pass(side, settings));
      process.stderr.write(`bench: round ${round + 1}/${settings.rounds}\r`);
    }
    process.stderr.write('\n');
    await sleep(1200); // table statistics are published at most once a second
    const after = await Promise.all(sides.map((side) => tableStats(side.db)));
    const [off, on] = sides.map((side, i) => summariseSide(side, settings, before[i], after[i]));
    // Exactly once: the history holds what the totals hold, to the byte; none with it off.
    off.sums = await historySums(sides[0].db);
    on.sums = await historySums(sides[1].db);
    if (off.sums.clients !== '0') throw new Error('history written with WARREN_USAGE_HISTORY=off');
    if (on.sums.clients !== on.sums.totals || on.sums.nodes !== on.sums.totals)
      throw new Error(`history ≠ totals: ${JSON.stringify(on.sums)}`);
    on.queries = await timeQueries({ api: sides[1].api, db: sides[1].db, settings });
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
  } catch (error) {
    for (const side of sides) await reportPanelEnd(side.panel, 300);
    throw error;
  } finally {
    await scope.run();
  }
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
      'one batch, sent to acknowledged: p50 / p99',
      `${latencyMs(off.ack.p50)} / ${latencyMs(off.ack.p99)}`,
      `${latencyMs(on.ack.p50)} / ${latencyMs(on.ack.p99)}`,
      '',
    ],
  ];
  const h = on.tables.client_usage_history;
  const n = on.tables.node_usage_history;
  const writesPerSecond = (h.inserts + h.updates) / on.seconds;
  const bytesPerRow = h.live ? h.bytesAfter / h.live : undefined;
  // Every client reporting all the time gets one new 5-minute row per bucket: two per 10 minutes
  // (plus the hourly rows the fold writes, one per client per hour); the updates in between are
  // HOT or pruned. The bytes per row are what the table holds per live row at the end.
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
  const env = `BENCH_NODES=${settings.nodes} BENCH_CLIENTS_PER_NODE=${settings.clientsPerNode} BENCH_ROUNDS=${settings.rounds} BENCH_INTERVAL_MS=${settings.intervalMs} BENCH_HISTORY_CLIENTS=${settings.historyClients} BENCH_QUERIES=${settings.queries}`;
  const markdown = `## ${TITLE}

Command: \`BENCH_ONLY=usage-history ${env} ${command ?? 'npm run bench'}\`.
Machine: ${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.platform}, Node ${machine.node}; PostgreSQL ${postgres ?? '?'} (the machine's, shared). Code: ${code ?? '?'}.
**Load**: ${percent(background)} of a core was busy in the 3 s before the run with nothing of the bench running (other engineers' test suites share these 2 cores); every figure below was measured under that load, and the panel, PostgreSQL, Redis and the load process share the same 2 cores.

${fixed(clients)} clients (${settings.nodes} nodes enrolled through the API, ${fixed(settings.clientsPerNode)} clients each seeded by SQL as \`POST /api/clients\` makes them), on each of two panels at once (each on a database of its own): one with \`WARREN_USAGE_HISTORY=off\` (the same-run baseline; the switch exists for it only), one as production runs. Each node's agent link (a WebSocket speaking the agent protocol) gets a counter batch of all ${fixed(settings.clientsPerNode)} of its peers with bytes moved (\`since\` ${fixed(settings.intervalMs / 1000)} s before \`at\`, as an agent reporting every ${fixed(settings.intervalMs / 1000)} s sends), **one batch at a time**: sent, acknowledged, then the next node's. After one warm-up pass over every node each (it opens the 5-minute rows: inserts), ${settings.rounds} measured passes per panel, the panels taking turns (the order flips every round) so that load from elsewhere falls on both alike. PostgreSQL CPU is that of the backends whose process title names the bench database (\`/proc/<pid>/stat\`).

${markdownTable(header, rows)}

What the history writes, over the measured passes with history on (\`pg_stat_user_tables\`): one upsert per reporting client per batch into its current 5-minute row (an insert when the bucket opens, an update after), and one per node:

${markdownTable(['table', 'inserts/s', 'updates/s', 'of them HOT', 'size with indexes, first → last pass', 'rows at the end'], historyRows)}

- Row writes into the history: **${fixed(writesPerSecond, 0)} rows/s** (inserts and in-place updates of the current bucket); new rows only when a bucket opens.
- **Growth over 10 minutes, extrapolated** (a 10-minute run at the full offer does not fit this machine): every reporting client gets two 5-minute rows per 10 minutes and one hourly row per hour from the fold, ${fixed(rowsPer10Min)} rows at ${bytesPerRow === undefined ? '–' : fixed(bytesPerRow, 0)} bytes per row with indexes as measured at the end of the passes: **≈ ${growth10Min === undefined ? '–' : mib(growth10Min, 0)} per 10 minutes**. The updates in between are HOT (no index entries) and their old versions are pruned within the page (fillfactor 60), so they do not grow the table beyond what the share above that is not HOT costs.
- Exactly once: after the passes, the clients' totals, the sum of \`client_usage_history\` and the sum of \`node_usage_history\` are ${on.sums.totals} bytes each: **equal, to the byte**.
- **At the full offer** (${fixed(clients)} clients every ${fixed(settings.intervalMs / 1000)} s: ${fixed(clients / (settings.intervalMs / 1000), 0)} peer updates per second) the counter batches need, at the CPU per 1,000 peer updates measured here, ${on.pgMsPer1000Peers === undefined ? '–' : fixed((on.pgMsPer1000Peers * clients) / (settings.intervalMs / 1000) / 1e6, 2)} cores of PostgreSQL with the history and ${off.pgMsPer1000Peers === undefined ? '–' : fixed((off.pgMsPer1000Peers * clients) / (settings.intervalMs / 1000) / 1e6, 2)} without: extrapolated, since one batch at a time on this shared 2-core machine reaches ${fixed(on.peerUpdatesPerSecond, 0)} peer updates per second (history on) and ${fixed(off.peerUpdatesPerSecond, 0)} (off).

The usage query, on the history-on panel after the passes: a full history (48 h of 5-minute rows, 90 days of hourly, two years of daily) seeded by SQL for ${fixed(settings.historyClients)} clients (${fixed(q.rows)} rows in the table, ${fixed(q.seedSeconds, 0)} s), then ${fixed(settings.queries)} requests per range, one at a time, for clients picked at random (HTTP from the bench process, an API token):

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
