// The audit write's cost: what recording a change (docs/audit.md: for a client, one entry written in
// the change's own transaction) adds to client creation's CPU per request. Two panels in child
// processes, each on its own database: one as production runs (the audit log on), one with
// WARREN_AUDIT=off, the same run's baseline. They create clients in alternating rounds (the order
// flips every round), so load from elsewhere on the machine falls on both alike; each round reads
// the panel process's CPU and that of the PostgreSQL backends serving its database.
//
// Settings (environment): BENCH_ROUNDS (10), BENCH_PER_ROUND (200 clients per panel per round),
// BENCH_CREATE_CONCURRENCY (4), BENCH_WARMUP (100 clients per panel before measuring),
// BENCH_WRITE=0 (print only), DATABASE_URL / REDIS_URL (the machine's servers).
import pg from 'pg';
import { cleanupScope } from './lib/cleanup.js';
import { postgresVersion } from './lib/database.js';
import { describeMachine } from './lib/machine.js';
import { apiClient, issueApiToken, reportPanelEnd, signIn } from './lib/panel-process.js';
import { cpuDelta, cpuMsOf, cpuMsOfProcesses } from './lib/proc-stats.js';
import { fixed, markdownTable, textTable } from './lib/report.js';
import { benchInterface, publishReport, startBenchPanel } from './lib/bench-panel.js';
import { envNumber } from './lib/settings.js';

export const ID = 'audit-write';
export const TITLE = 'Audit write: what recording a change adds to client creation';

/** The smoke size (`npm run bench:smoke`, CI): every phase once, in seconds; nothing recorded. */
export const SMOKE = { BENCH_ROUNDS: '1', BENCH_PER_ROUND: '10', BENCH_WARMUP: '2' };

/** The issue's bound: the audit write adds at most this much to creation's CPU per request. */
const TARGET_OVERHEAD = 0.1;

export function settingsFromEnv() {
  return {
    rounds: envNumber('BENCH_ROUNDS', 10, 1),
    perRound: envNumber('BENCH_PER_ROUND', 200, 1),
    concurrency: envNumber('BENCH_CREATE_CONCURRENCY', 4, 1),
    warmup: envNumber('BENCH_WARMUP', 100, 0),
  };
}

/** Creates `count` clients with `concurrency` in flight; every answer must be a 201. */
async function createClients(side, count, concurrency) {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = side.made++;
      next += 1;
      await side.api.expect(
        201,
        side.api.client.POST('/api/clients', {
          body: { name: `bench-audit-${i}`, note: 'audit bench', quotaBytes: 10 * 2 ** 30, interfaceIds: [side.iface] },
        }),
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

/** One measured round of one panel: CPU ms per created client, of the panel and of its database's backends. */
async function measureRound(side, settings) {
  const ownBackends = (cmdline) => cmdline.startsWith('postgres:') && cmdline.includes(` ${side.database.name} `);
  const panelBefore = cpuMsOf(side.panel.pid);
  const dbBefore = cpuMsOfProcesses(ownBackends);
  const started = performance.now();
  await createClients(side, settings.perRound, settings.concurrency);
  const seconds = (performance.now() - started) / 1000;
  const panelMs = cpuMsOf(side.panel.pid) - panelBefore;
  const dbMs = cpuDelta(dbBefore, cpuMsOfProcesses(ownBackends));
  return {
    panel: panelMs / settings.perRound,
    database: dbMs / settings.perRound,
    total: (panelMs + dbMs) / settings.perRound,
    rate: settings.perRound / seconds,
  };
}

async function startSide(label, audit, scope) {
  const { panel, database } = await startBenchPanel(scope, {
    tag: `audit-${label}`,
    prefix: 'wba',
    env: { WARREN_AUDIT: audit ? 'on' : 'off' },
  });
  const api = apiClient(panel, 8);
  scope.add(`http agent ${label}`, () => api.close());
  await signIn(api);
  api.token = await issueApiToken(api, `bench-audit-${label}`);
  const iface = await benchInterface(api, { name: 'wgaudit', listenPort: 51998, subnet: '10.80.0.0/14' });
  return { label, audit, panel, api, database, iface: iface.id, made: 0, rounds: [] };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

export async function run({ writeDoc = true, docFile, command } = {}) {
  const settings = settingsFromEnv();
  const machine = describeMachine();
  const scope = cleanupScope('the audit run (stopping the panels, dropping their databases)');
  const sides = [];
  try {
    process.stderr.write('bench: starting two panels (audit on, audit off)…\n');
    sides.push(await startSide('on', true, scope), await startSide('off', false, scope));
    for (const side of sides) await createClients(side, settings.warmup, settings.concurrency);
    for (let round = 0; round < settings.rounds; round++) {
      for (const side of round % 2 === 0 ? sides : [...sides].reverse())
        side.rounds.push(await measureRound(side, settings));
      process.stderr.write(`bench: round ${round + 1}/${settings.rounds}\r`);
    }
    process.stderr.write('\n');
    // The log holds exactly one entry per creation on the panel that records, none on the other
    // (but the one saying it started with the log off).
    const counts = {};
    for (const side of sides) {
      const db = new pg.Client({ connectionString: side.database.url });
      await db.connect();
      try {
        const [row] = (
          await db.query(
            `select count(*) filter (where action = 'clients.create' and outcome = 'success')::int as created,
                    count(*)::int as entries from audit_entries`,
          )
        ).rows;
        counts[side.label] = row;
      } finally {
        await db.end();
      }
    }
    const [on, off] = sides;
    if (counts.on.created !== on.made)
      throw new Error(`the recording panel has ${counts.on.created} creation entries for ${on.made} creations`);
    if (counts.off.entries !== 1)
      throw new Error(`the panel with the log off has ${counts.off.entries} entries, not 1`);
    const report = render({
      settings,
      machine,
      command,
      on,
      off,
      postgres: await postgresVersion().catch(() => undefined),
    });
    publishReport(report, { writeDoc, docFile, id: ID, title: TITLE });
    return report.result;
  } catch (error) {
    for (const side of sides) await reportPanelEnd(side.panel);
    throw error;
  } finally {
    await scope.run();
  }
}

function render({ settings, machine, command, on, off, postgres }) {
  const of = (side, key) => median(side.rounds.map((round) => round[key]));
  const result = {};
  for (const key of ['panel', 'database', 'total', 'rate']) result[key] = { on: of(on, key), off: of(off, key) };
  const overhead = (key) => result[key].on / result[key].off - 1;
  const pct = (n) => `${n >= 0 ? '+' : ''}${fixed(n * 100, 1)}%`;
  const header = ['CPU per created client (median of rounds)', 'audit on', 'audit off (baseline)', 'added'];
  const rows = [
    ['panel process', `${fixed(result.panel.on, 2)} ms`, `${fixed(result.panel.off, 2)} ms`, pct(overhead('panel'))],
    [
      'PostgreSQL backends of its database',
      `${fixed(result.database.on, 2)} ms`,
      `${fixed(result.database.off, 2)} ms`,
      pct(overhead('database')),
    ],
    [
      '**both**',
      `**${fixed(result.total.on, 2)} ms**`,
      `**${fixed(result.total.off, 2)} ms**`,
      `**${pct(overhead('total'))}**`,
    ],
    ['clients created per second', fixed(result.rate.on, 0), fixed(result.rate.off, 0), pct(overhead('rate'))],
  ];
  const verdict = overhead('total') <= TARGET_OVERHEAD ? 'pass' : '**FAIL**';
  const roundRows = on.rounds.map((round, i) => [
    String(i + 1),
    `${fixed(round.total, 2)} ms`,
    `${fixed(off.rounds[i].total, 2)} ms`,
    pct(round.total / off.rounds[i].total - 1),
  ]);
  result.overhead = overhead('total');
  const markdown = `## ${TITLE}

Command: \`BENCH_ONLY=audit BENCH_ROUNDS=${settings.rounds} BENCH_PER_ROUND=${settings.perRound} BENCH_WARMUP=${settings.warmup} ${command ?? 'npm run bench'}\`; ${settings.rounds} rounds of ${fixed(settings.perRound)} clients per panel, ${settings.concurrency} requests in flight, after ${fixed(settings.warmup)} warm-up creations each.
Machine: ${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.platform}, Node ${machine.node}; PostgreSQL ${postgres ?? '?'} (the machine's, shared).

Two panels in child processes, each on a database of its own, create clients through \`POST /api/clients\` (one device on one interface, with an API token) in alternating rounds (the order flips every round): one records every request in the audit log as production does, the other runs with \`WARREN_AUDIT=off\` (the setting exists for this baseline only; such a panel writes one \`audit.off\` entry at start). Each round reads the CPU time of the panel process and of the PostgreSQL backends whose command line names its database, divided by the clients it made. The recording panel's log holds exactly one \`clients.create\` entry per creation (checked after the run).

${markdownTable(header, rows)}

Target: the audit write adds at most ${TARGET_OVERHEAD * 100}% to creation's CPU per request (both columns): **${verdict}** (${pct(overhead('total'))}).

On a shared machine single rounds move by more than the audit costs (the per-round table below); the medians of interleaved rounds are the figure, and a quiet machine gives a tighter one.

What it costs: two statements per recorded request on the panel's prepared-statement pool (an insert of the pending entry before the handler runs, an update settling it after), plus computing the changed fields (the body's fields masked and, for a change to an existing target, its state before). A change to an existing target (PATCH, PUT, DELETE) also reads the target once before the handler, which a creation does not.

<details><summary>Per round (both processes)</summary>

${markdownTable(['round', 'audit on', 'audit off', 'added'], roundRows)}

</details>`;
  const text = [
    textTable(
      header,
      rows.map((row) => row.map((cell) => String(cell).replaceAll('**', ''))),
    ),
    `target ≤ ${TARGET_OVERHEAD * 100}%: ${verdict.replaceAll('*', '')}`,
  ].join('\n');
  return { markdown, text, result };
}
