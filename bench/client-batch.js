// Batch create and import: the real panel in a child process on a fresh database. In one run:
// clients created one by one through POST /api/clients (a sample, extrapolated to the batch size),
// the same number created by one POST /api/clients/batch, and a wg-easy v14 wg0.json of
// BENCH_IMPORT_PEERS peers previewed and then imported through POST /api/clients/import.
//
// Each batch also reports where its time went: the panel's CPU, the CPU of its database's backends,
// and how many times PostgreSQL wrote a client row (inserts and updates, pg_stat_user_tables).
//
// Settings (environment): BENCH_BATCH (10000 clients in the batch), BENCH_BATCH_ROUNDS (3 batches,
// one after the other on the same interface; the median is the result), BENCH_ONE_BY_ONE (1000: the
// sample created one at a time, extrapolated to BENCH_BATCH), BENCH_IMPORT_PEERS (5000),
// BENCH_WRITE=0 (print only), DATABASE_URL / REDIS_URL (the machine's servers).
import { cleanupScope } from './lib/cleanup.js';
import { codeVersion } from './lib/code-version.js';
import { postgresVersion } from './lib/database.js';
import { describeMachine } from './lib/machine.js';
import { apiClient, issueApiToken, signIn } from './lib/panel-process.js';
import { backgroundBusy, cpuDelta, cpuMsOf, cpuMsOfProcesses } from './lib/proc-stats.js';
import { redisVersion } from './lib/redis-cleanup.js';
import { fixed, markdownTable, textTable } from './lib/report.js';
import { benchDatabaseClient, benchInterface, publishReport, startBenchPanel } from './lib/bench-panel.js';
import { envNumber } from './lib/settings.js';
import { wgEasyFile } from '../test/support/old-panels.js';

export const ID = 'client-batch';
export const TITLE = 'Clients: batch create of 10,000 and a 5,000-peer wg-easy import';

export const SMOKE = { BENCH_BATCH: '100', BENCH_BATCH_ROUNDS: '1', BENCH_ONE_BY_ONE: '20', BENCH_IMPORT_PEERS: '50' };

const TARGET_SECONDS = 10;

export function settingsFromEnv() {
  return {
    batch: envNumber('BENCH_BATCH', 10_000, 1),
    rounds: envNumber('BENCH_BATCH_ROUNDS', 3, 1),
    oneByOne: envNumber('BENCH_ONE_BY_ONE', 1000, 1),
    importPeers: envNumber('BENCH_IMPORT_PEERS', 5000, 1),
  };
}

const seconds = (started) => (performance.now() - started) / 1000;

export async function run({ writeDoc = true, docFile, command } = {}) {
  const settings = settingsFromEnv();
  const machine = describeMachine();
  const scope = cleanupScope('the batch and import run (stopping the panel, dropping its database)');
  try {
    const { panel, database } = await startBenchPanel(scope, { tag: 'batch', prefix: 'wbb' });
    const api = apiClient(panel, 2);
    scope.add('http agent', () => api.close());
    await signIn(api);
    api.token = await issueApiToken(api, 'bench-batch');
    const db = await benchDatabaseClient(scope, database);
    const busyBefore = await backgroundBusy();

    // One by one: the sample, sequential, each its own request and transaction.
    const single = await benchInterface(api, { name: 'wgone', listenPort: 51990, subnet: '10.80.0.0/16' });
    process.stderr.write(`bench: ${settings.oneByOne} clients one by one…\n`);
    const ownBackends = backendsOf(database);
    const singlePanelBefore = cpuMsOf(panel.pid);
    const singleDatabaseBefore = cpuMsOfProcesses(ownBackends);
    let started = performance.now();
    for (let i = 0; i < settings.oneByOne; i++) {
      await api.expect(
        201,
        api.client.POST('/api/clients', {
          body: { name: `one-${i + 1}`, interfaceIds: [single.id], quotaBytes: 2 ** 30 },
        }),
      );
    }
    const oneByOneSeconds = seconds(started);
    // CPU per client: on a shared machine a steadier comparison between builds than the rate.
    const singleCpu = {
      panelMs: (cpuMsOf(panel.pid) - singlePanelBefore) / settings.oneByOne,
      databaseMs: cpuDelta(singleDatabaseBefore, cpuMsOfProcesses(ownBackends)) / settings.oneByOne,
    };
    const perSecond = settings.oneByOne / oneByOneSeconds;

    // The batches: the same description for BENCH_BATCH clients in one request, BENCH_BATCH_ROUNDS times.
    const batchIface = await benchInterface(api, { name: 'wgbatch', listenPort: 51991, subnet: '10.81.0.0/16' });
    const batches = [];
    for (let round = 1; round <= settings.rounds; round++) {
      process.stderr.write(`bench: batch ${round} of ${settings.rounds}: ${settings.batch} clients…\n`);
      batches.push(await measureBatch(api, db, panel, database, batchIface, `batch${round}-`, settings.batch));
    }
    const batch = median(batches);

    // The import: a wg-easy v14 wg0.json, previewed, then applied.
    const importIface = await benchInterface(api, { name: 'wgimport', listenPort: 51992, subnet: '10.8.0.0/16' });
    const file = wgEasyFile(settings.importPeers, '10.8');
    const body = Buffer.from(JSON.stringify(file));
    process.stderr.write(
      `bench: importing a wg-easy file of ${settings.importPeers} peers (${fixed(body.length)} bytes)…\n`,
    );
    const importOnce = async (dryRun) => {
      const begun = performance.now();
      const answer = await api.expect(
        200,
        api.client.POST('/api/clients/import', {
          params: { query: { interfaceId: importIface.id, dryRun } },
          body,
          bodySerializer: (b) => b,
          headers: { 'content-type': 'application/octet-stream' },
        }),
      );
      return { answer, seconds: seconds(begun) };
    };
    const preview = await importOnce(true);
    const applied = await importOnce(false);
    if (applied.answer.summary.created !== settings.importPeers)
      throw new Error(`the import created ${applied.answer.summary.created}, not ${settings.importPeers}`);
    const busyAfter = await backgroundBusy();

    const results = {
      settings,
      machine,
      command,
      oneByOneSeconds,
      perSecond,
      singleCpu,
      extrapolated: settings.batch / perSecond,
      batch,
      batches,
      importBytes: body.length,
      previewSeconds: preview.seconds,
      importSeconds: applied.seconds,
      busy: [busyBefore, busyAfter],
      code: codeVersion(),
      postgres: await postgresVersion().catch(() => undefined),
      redis: await redisVersion(),
    };
    publishReport(render(results), { writeDoc, docFile, id: ID, title: TITLE });
  } finally {
    await scope.run();
  }
}

/**
 * One POST /api/clients/batch: its wall time, the CPU the panel and its database's backends used
 * meanwhile, the node's revision moves, and PostgreSQL's count of client rows written for it.
 */
async function measureBatch(api, db, panel, database, iface, namePrefix, count) {
  const ownBackends = backendsOf(database);
  const revisionBefore = await nodeRevision(db, iface.nodeId);
  const rowsBefore = await clientRowWrites(db);
  const panelBefore = cpuMsOf(panel.pid);
  const databaseBefore = cpuMsOfProcesses(ownBackends);
  const started = performance.now();
  const answer = await api.expect(
    201,
    api.client.POST('/api/clients/batch', {
      body: { namePrefix, count, interfaceIds: [iface.id], quotaBytes: 2 ** 30 },
    }),
  );
  const wall = seconds(started);
  const panelSeconds = (cpuMsOf(panel.pid) - panelBefore) / 1000;
  const databaseSeconds = cpuDelta(databaseBefore, cpuMsOfProcesses(ownBackends)) / 1000;
  if (answer.created !== count) throw new Error(`the batch created ${answer.created}, not ${count}`);
  const revisionsMoved = (await nodeRevision(db, iface.nodeId)) - revisionBefore;
  const rows = await clientRowWritesOnceCounted(db, rowsBefore, count);
  return { seconds: wall, panelSeconds, databaseSeconds, revisionsMoved, ...rows };
}

/** Matches the PostgreSQL backends serving the bench's database (their process titles name it). */
function backendsOf(database) {
  return (cmdline) => cmdline.startsWith('postgres:') && cmdline.includes(` ${database.name} `);
}

/**
 * PostgreSQL's cumulative inserts and updates of client rows. The panel's backend reports them
 * when it goes idle (within about 10 s in PostgreSQL 15), so the reading is retried until the
 * batch's inserts show; `undefined` updates when they never did.
 */
async function clientRowWrites(db) {
  await db.query('select pg_stat_clear_snapshot()');
  const { rows } = await db.query(
    `select n_tup_ins, n_tup_upd from pg_stat_user_tables where relname = 'clients' and schemaname = current_schema()`,
  );
  return { inserted: Number(rows[0].n_tup_ins), updated: Number(rows[0].n_tup_upd) };
}

async function clientRowWritesOnceCounted(db, before, count) {
  const deadline = performance.now() + 20_000;
  for (;;) {
    const now = await clientRowWrites(db);
    if (now.inserted - before.inserted >= count)
      return { rowsInserted: now.inserted - before.inserted, rowsUpdated: now.updated - before.updated };
    if (performance.now() > deadline) return { rowsInserted: now.inserted - before.inserted, rowsUpdated: undefined };
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** The batch of median wall time. */
function median(batches) {
  const sorted = [...batches].sort((a, b) => a.seconds - b.seconds);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

async function nodeRevision(db, nodeId) {
  const { rows } = await db.query('select desired_revision from nodes where id = $1', [nodeId]);
  return Number(rows[0].desired_revision);
}

function render(r) {
  const { settings: s } = r;
  const batchSeconds = r.batch.seconds;
  const met = batchSeconds < TARGET_SECONDS;
  const header = ['what', 'clients', 'time', 'clients/s'];
  const rows = [
    [
      `POST /api/clients one by one (sample)`,
      fixed(s.oneByOne),
      `${fixed(r.oneByOneSeconds, 2)} s`,
      fixed(r.perSecond),
    ],
    [`… extrapolated to ${fixed(s.batch)}`, fixed(s.batch), `${fixed(r.extrapolated, 1)} s`, fixed(r.perSecond)],
    [
      `POST /api/clients/batch (one request; median of ${s.rounds})`,
      fixed(s.batch),
      `${fixed(batchSeconds, 2)} s`,
      fixed(s.batch / batchSeconds),
    ],
    [
      `POST /api/clients/import?dryRun=true (wg-easy v14, preview)`,
      fixed(s.importPeers),
      `${fixed(r.previewSeconds, 2)} s`,
      fixed(s.importPeers / r.previewSeconds),
    ],
    [
      `POST /api/clients/import (wg-easy v14, apply)`,
      fixed(s.importPeers),
      `${fixed(r.importSeconds, 2)} s`,
      fixed(s.importPeers / r.importSeconds),
    ],
  ];
  const verdict = `batch of ${fixed(s.batch)} in ${fixed(batchSeconds, 2)} s (median of ${s.rounds}; target < ${TARGET_SECONDS} s${s.batch === 10_000 ? '' : ' at 10,000'}): ${met ? 'met' : 'MISSED'}; ${fixed(r.extrapolated / batchSeconds, 0)}× the one-by-one rate; the node's revision moved ${r.batches.map((b) => b.revisionsMoved).join(', ')} time(s) for the batches`;
  const splitHeader = [
    'batch',
    'wall',
    'panel CPU',
    'database CPU (its backends)',
    'neither (waits, other processes)',
    'client rows inserted',
    'client rows updated',
  ];
  const splitRows = r.batches.map((b, index) => [
    `${index + 1} of ${s.rounds}`,
    `${fixed(b.seconds, 2)} s`,
    `${fixed(b.panelSeconds, 2)} s`,
    `${fixed(b.databaseSeconds, 2)} s`,
    `${fixed(Math.max(0, b.seconds - b.panelSeconds - b.databaseSeconds), 2)} s`,
    fixed(b.rowsInserted),
    b.rowsUpdated === undefined ? 'not reported in 20 s' : fixed(b.rowsUpdated),
  ]);
  const busy = `other processes kept the machine ${fixed(r.busy[0], 0)}% busy before the run and ${fixed(r.busy[1], 0)}% after it`;
  const single = `one by one, CPU per client: panel ${fixed(r.singleCpu.panelMs, 2)} ms, database backends ${fixed(r.singleCpu.databaseMs, 2)} ms`;
  const text = [textTable(header, rows), '', verdict, '', textTable(splitHeader, splitRows), single, busy].join('\n');
  const markdown = `
## ${TITLE}

The real panel (\`node dist/apps/controller/src/main.js\` with the flags \`npm start\` uses) in a child process on a fresh database, no agent; an API token. Each step on an interface of its own on the local node, each client with one device (one account). The one-by-one rate is a sample of ${fixed(s.oneByOne)} sequential \`POST /api/clients\` calls, extrapolated to ${fixed(s.batch)}: the same description the batch then creates in one \`POST /api/clients/batch\`, ${fixed(s.rounds)} time(s) one after the other on the same interface (the median is the result). The import is a generated wg-easy v14 \`wg0.json\` of ${fixed(s.importPeers)} peers (${fixed(r.importBytes)} bytes; keys, preshared keys and addresses kept), previewed (\`dryRun=true\`) and then applied.

- Command: \`BENCH_ONLY=client-batch ${r.command ?? 'node bench/run.js'}\` (BENCH_BATCH=${s.batch} BENCH_ONE_BY_ONE=${s.oneByOne} BENCH_IMPORT_PEERS=${s.importPeers})
- Date: ${new Date().toISOString()}; code: ${r.code}
- Machine: ${r.machine.cpuModel}, ${r.machine.cores} cores, ${r.machine.memoryGiB} GiB RAM, ${r.machine.platform}; shared with other engineers' work: ${busy}
- Software: Node ${r.machine.node}, PostgreSQL ${r.postgres ?? 'unknown'} and Redis ${r.redis ?? 'unknown'} on the same machine; plain HTTP

${markdownTable(header, rows)}

**${verdict}.**

Where each batch's time went: the panel's CPU (its process, the key worker included), the CPU of the PostgreSQL backends of the bench's database, and the rest of the wall time (waiting for a core the other processes held, or for I/O). Client rows written are PostgreSQL's own count (\`pg_stat_user_tables\`): one insert per client, and any update of a client row during the batch.

${markdownTable(splitHeader, splitRows)}

The one-by-one sample's CPU per client (a steadier figure than its rate when other processes take the cores): the panel ${fixed(r.singleCpu.panelMs, 2)} ms, the database's backends ${fixed(r.singleCpu.databaseMs, 2)} ms.

The baseline ran in the same run on the same machine, so the ratio carries over where the absolute times do not${Math.max(...r.busy) >= 50 ? ": with other processes keeping the cores busy, every step here is slower than on a quiet machine (the clients-100k section's one-by-one rate against this one's shows by how much)" : ''}.
`;
  return { text, markdown };
}
