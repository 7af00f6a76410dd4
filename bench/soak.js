// Soak: the mixed load of a working panel for BENCH_DURATION (10 minutes), watched minute by
// minute. 200 simulated agents (bench/lib/fleet.js: created and enrolled through the API, 50
// clients each) send counter batches and system samples every 2 s over the agent link and answer
// their nodes' queue jobs (applies, node probes) with the agent's own worker; beside them, at
// fixed rates (open loop: a slow answer does not slow the offered load), operators list client
// pages (first pages and cursor walks), search, create clients, reset clients' traffic and probe
// nodes. Reported per minute: requests, errors and p50/p99 per kind, ack latency of the counter
// batches, the controller's CPU, PostgreSQL's and Redis's; the controller's RSS sampled every few
// seconds with its least-squares slope over the last 5 minutes; at the end, exactly-once (clients'
// used bytes plus what the resets took away equal the bytes of the acknowledged batches).
//
// An error is any answer the kind does not expect (every kind expects its one 2xx), any 5xx, any
// socket error, any error message on an agent link and any job a worker failed.
//
// Settings (environment): BENCH_DURATION (600 s measured), BENCH_SETTLE (10 s of load before the
// window), BENCH_MINUTE (60 s: the report's slice), BENCH_SLOPE_WINDOW (300 s: RSS slope over the
// window's last this many seconds), BENCH_RSS_EVERY (5 s), BENCH_NODES (200),
// BENCH_CLIENTS_PER_NODE (50), BENCH_INTERVAL_MS (2000), BENCH_SEED=api|sql (api),
// BENCH_CREATE_CONCURRENCY (8, seeding), rates per second BENCH_LIST_RATE (10), BENCH_SEARCH_RATE
// (4), BENCH_CREATE_RATE (4), BENCH_RESET_RATE (2), BENCH_PROBE_RATE (1), BENCH_CONNECTIONS (16:
// the operators' keep-alive sockets), BENCH_WRITE=0 (print only).
import { setTimeout as sleep } from 'node:timers/promises';
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
  summarise,
  topOthers,
} from './lib/proc-stats.js';
import { codeVersion } from './lib/code-version.js';
import { redisVersion } from './lib/redis-cleanup.js';
import { fixed, markdownTable, mib, ms, percentFine as pct, textTable } from './lib/report.js';
import { benchDatabaseClient, publishReport, startBenchPanel } from './lib/bench-panel.js';
import { envNumber } from './lib/settings.js';
import { linkSpecs, readings, seed, startLoad } from './lib/fleet.js';

export const ID = 'soak';
export const TITLE = 'Soak: 10 minutes of mixed load with 200 agents reporting';

/** The smoke size (`npm run bench:smoke`, CI): every kind of request and job, a few seconds. */
export const SMOKE = {
  BENCH_NODES: '3',
  BENCH_CLIENTS_PER_NODE: '2',
  BENCH_DURATION: '10',
  BENCH_SETTLE: '2',
  BENCH_MINUTE: '5',
  BENCH_SLOPE_WINDOW: '10',
  BENCH_RSS_EVERY: '1',
  BENCH_INTERVAL_MS: '1000',
};

/** Each kind of operator request: what it sends, and the one status it expects. */
const KINDS = ['list', 'search', 'create', 'reset', 'probe'];
const EXPECTED = { list: 200, search: 200, create: 201, reset: 200, probe: 200 };
/** How many of one kind may be in flight; beyond it an offered request is counted as skipped. */
const MAX_IN_FLIGHT = 32;
/** A cursor walk goes this many pages deep, then starts again at the first page. */
const WALK_PAGES = 8;

export function settingsFromEnv() {
  const seedMode = process.env.BENCH_SEED || 'api';
  if (!['api', 'sql'].includes(seedMode)) throw new Error(`BENCH_SEED must be api or sql, got "${seedMode}"`);
  const rate = (name, fallback) => envNumber(name, fallback, 0, { integer: false });
  const durationSeconds = envNumber('BENCH_DURATION', 600, 5);
  return {
    durationSeconds,
    settleSeconds: envNumber('BENCH_SETTLE', 10, 0),
    minuteSeconds: envNumber('BENCH_MINUTE', 60, 1),
    slopeSeconds: Math.min(durationSeconds, envNumber('BENCH_SLOPE_WINDOW', 300, 2)),
    rssEverySeconds: envNumber('BENCH_RSS_EVERY', 5, 1),
    nodes: envNumber('BENCH_NODES', 200, 1),
    clientsPerNode: envNumber('BENCH_CLIENTS_PER_NODE', 50, 1),
    intervalMs: envNumber('BENCH_INTERVAL_MS', 2000, 100),
    seed: seedMode,
    createConcurrency: envNumber('BENCH_CREATE_CONCURRENCY', 8, 1),
    connections: envNumber('BENCH_CONNECTIONS', 16, 1),
    rates: {
      list: rate('BENCH_LIST_RATE', 10),
      search: rate('BENCH_SEARCH_RATE', 4),
      create: rate('BENCH_CREATE_RATE', 4),
      reset: rate('BENCH_RESET_RATE', 2),
      probe: rate('BENCH_PROBE_RATE', 1),
    },
  };
}

/** Least-squares slope of (t seconds, y) points, per minute; undefined below two points. */
export function slopePerMinute(points) {
  if (points.length < 2) return undefined;
  const n = points.length;
  const mt = points.reduce((s, p) => s + p.t, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.t - mt) * (p.y - my);
    den += (p.t - mt) ** 2;
  }
  return den === 0 ? undefined : (num / den) * 60;
}

/** Per cent of `span` ms that a counter (ms so far) moved by between two readings; undefined without one. */
const share = (before, after, span) =>
  before === undefined || after === undefined ? undefined : (100 * (after - before)) / span;

// ---------------------------------------------------------------------------------------------
// The operators: open-loop request streams, one per kind.

function operators({ api, seeded, settings, startedAt }) {
  const minuteMs = settings.minuteSeconds * 1000;
  const minutes = []; // minute index → kind → { ms: [], errors, errorTexts: Map, skipped }
  const inFlight = Object.fromEntries(KINDS.map((k) => [k, 0]));
  const resets = { previousUsedBytes: 0, count: 0 };
  const fleetClients = seeded.clientIds;
  let walk = { cursor: undefined, depth: 0 };
  let created = 0;
  const pending = new Set();

  const bucket = (at, kind) => {
    const m = Math.max(0, Math.floor((at - startedAt()) / minuteMs));
    minutes[m] ??= Object.fromEntries(KINDS.map((k) => [k, { ms: [], errors: 0, errorTexts: new Map(), skipped: 0 }]));
    return minutes[m][kind];
  };
  const pick = (list) => list[Math.floor(Math.random() * list.length)];

  const requests = {
    list: async () => {
      const query = { perPage: 25, ...(walk.cursor ? { cursor: walk.cursor } : {}) };
      const answer = await api.timed(() => api.client.GET('/api/clients', { params: { query } }));
      if (answer.status === 200) {
        walk =
          answer.body.nextCursor && walk.depth < WALK_PAGES
            ? { cursor: answer.body.nextCursor, depth: walk.depth + 1 }
            : { cursor: undefined, depth: 0 };
      }
      return answer;
    },
    search: () => {
      // A name fragment that matches a handful of the fleet's clients ("fleet-client-0123" …).
      const digits = String(Math.floor(Math.random() * Math.max(1, seeded.clients / 10))).padStart(4, '0');
      return api.timed(() =>
        api.client.GET('/api/clients', { params: { query: { search: `client-${digits}`, perPage: 25 } } }),
      );
    },
    create: () => {
      const node = pick(seeded.nodes);
      const name = `soak-client-${String(created++).padStart(6, '0')}`;
      return api.timed(() => api.client.POST('/api/clients', { body: { name, interfaceIds: [node.interfaceId] } }));
    },
    reset: async () => {
      const id = pick(fleetClients);
      const answer = await api.timed(() => api.client.POST('/api/clients/{id}/reset', { params: { path: { id } } }));
      if (answer.status === 200) {
        resets.count++;
        resets.previousUsedBytes += Number(answer.body.previous.usedBytes);
      }
      return answer;
    },
    probe: async () => {
      const node = pick(seeded.nodes);
      return api.timed(() => api.client.POST('/api/nodes/{id}/probe', { params: { path: { id: node.id } } }));
    },
  };

  const fire = (kind) => {
    const sentAt = performance.now();
    if (inFlight[kind] >= MAX_IN_FLIGHT) {
      bucket(sentAt, kind).skipped++;
      return;
    }
    inFlight[kind]++;
    const done = requests[kind]()
      .then(
        (answer) => {
          const b = bucket(sentAt, kind);
          if (answer.status === EXPECTED[kind]) b.ms.push(answer.ms);
          else {
            b.errors++;
            const text = `${answer.status} ${JSON.stringify(answer.body?.error ?? answer.body).slice(0, 160)}`;
            b.errorTexts.set(text, (b.errorTexts.get(text) ?? 0) + 1);
          }
        },
        (error) => {
          const b = bucket(sentAt, kind);
          b.errors++;
          const text = `socket: ${error?.code ?? error?.message ?? error}`;
          b.errorTexts.set(text, (b.errorTexts.get(text) ?? 0) + 1);
        },
      )
      .finally(() => {
        inFlight[kind]--;
        pending.delete(done);
      });
    pending.add(done);
  };

  // Each kind on its own timer at its rate, phases spread so they do not all fire at one instant.
  const timers = [];
  for (const [i, kind] of KINDS.entries()) {
    const rate = settings.rates[kind];
    if (!(rate > 0)) continue;
    const every = 1000 / rate;
    timers.push(
      setTimeout(
        () => {
          fire(kind);
          timers.push(setInterval(() => fire(kind), every));
        },
        (i * every) / KINDS.length,
      ),
    );
  }
  return {
    minutes,
    resets,
    created: () => created,
    /** Stops offering requests and waits for those in flight. */
    async stop() {
      for (const t of timers) {
        clearTimeout(t);
        clearInterval(t);
      }
      await Promise.all([...pending]);
    },
  };
}

// ---------------------------------------------------------------------------------------------

export async function run({ writeDoc = true, docFile, command } = {}) {
  const settings = settingsFromEnv();
  const machine = describeMachine();
  const background = await backgroundBusy();
  const scope = cleanupScope('the soak');
  let panel;
  try {
    let database;
    ({ panel, database } = await startBenchPanel(scope, { tag: 'soak', prefix: 'wbs' }));
    const seedApi = apiClient(panel, settings.createConcurrency);
    scope.add('seeding http agent', () => seedApi.close());
    await signIn(seedApi);
    const db = await benchDatabaseClient(scope, database);
    const memoryAtStart = memoryOf(panel.pid);

    process.stderr.write(
      `bench: creating and enrolling ${settings.nodes} nodes, then ${fixed(settings.nodes * settings.clientsPerNode)} clients (${settings.seed})…\n`,
    );
    const seeded = await seed({ api: seedApi, db, settings });
    seeded.clientIds = (await db.query('select id from clients')).rows.map((r) => r.id);
    await db.query('vacuum (analyze) accounts, devices, clients, node_agents, nodes');
    const memorySeeded = memoryOf(panel.pid);

    const load = startLoad();
    scope.add('load process', () => load.stop());
    process.stderr.write(`bench: opening ${settings.nodes} agent links with their queue workers…\n`);
    const connected = await load.request(
      {
        type: 'start',
        url: `${panel.origin.replace(/^http/, 'ws')}/api/agent/link`,
        intervalMs: settings.intervalMs,
        links: linkSpecs(seeded.nodes, { answerJobs: true }),
      },
      'connected',
    );
    load.send({ type: 'mode', mode: 'full' });

    const api = apiClient(panel, settings.connections);
    scope.add('operators http agent', () => api.close());
    api.token = seedApi.token;
    let windowStart = performance.now() + settings.settleSeconds * 1000;
    const ops = operators({ api, seeded, settings, startedAt: () => windowStart });
    scope.add('operators', () => ops.stop());
    process.stderr.write(`bench: ${settings.settleSeconds} s of load to settle…\n`);
    await sleep(settings.settleSeconds * 1000);

    // The window: readings every minute, RSS every few seconds.
    await load.request({ type: 'mark' }, 'marked');
    const everyoneBefore = allProcessesCpu();
    const first = readings({ panelPid: panel.pid, loadPid: load.pid, databaseName: database.name });
    windowStart = first.at;
    const machineMinutes = [];
    const rss = [];
    let mark = first;
    // PostgreSQL's backends come and go (pools close idle connections): seen every second.
    const pgOurs = cpuTrail(first.pgOurs);
    const pgOthers = cpuTrail(first.pgOthers);
    let markPg = { ours: 0, others: 0 };
    let nextRss = 0;
    process.stderr.write(`bench: soaking for ${settings.durationSeconds} s…\n`);
    const endAt = windowStart + settings.durationSeconds * 1000;
    while (performance.now() < endAt) {
      await sleep(Math.min(1000, Math.max(0, endAt - performance.now())));
      if (!panel.alive()) throw new Error(`the panel exited during the soak:\n${panel.tail()}`);
      const t = (performance.now() - windowStart) / 1000;
      if (t >= nextRss) {
        rss.push({ t, y: memoryOf(panel.pid).rss });
        nextRss += settings.rssEverySeconds;
      }
      const boundary = windowStart + (machineMinutes.length + 1) * settings.minuteSeconds * 1000;
      const now = readings({ panelPid: panel.pid, loadPid: load.pid, databaseName: database.name });
      pgOurs.see(now.pgOurs);
      pgOthers.see(now.pgOthers);
      if (now.at >= boundary - 250 || now.at >= endAt) {
        const span = now.at - mark.at;
        const pgNow = { ours: pgOurs.total(), others: pgOthers.total() };
        machineMinutes.push({
          panel: (100 * (now.panel - mark.panel)) / span,
          pgOurs: (100 * (pgNow.ours - markPg.ours)) / span,
          pgOthers: (100 * (pgNow.others - markPg.others)) / span,
          redis: (100 * cpuDelta(mark.redis, now.redis)) / span,
          load: (100 * (now.load - mark.load)) / span,
          machine: machineBusyPercent(mark.machine, now.machine),
          panelWait: share(mark.panelWait, now.panelWait, span),
          pressure: share(mark.pressure, now.pressure, span),
          rss: memoryOf(panel.pid).rss,
        });
        mark = now;
        markPg = pgNow;
        const m = machineMinutes.length;
        process.stderr.write(
          `bench: minute ${m}: controller ${pct(machineMinutes[m - 1].panel)}, RSS ${mib(machineMinutes[m - 1].rss)}\n`,
        );
      }
    }
    const last = readings({ panelPid: panel.pid, loadPid: load.pid, databaseName: database.name });
    const everyoneAfter = allProcessesCpu();
    const { stats } = await load.request({ type: 'report', sliceMs: settings.minuteSeconds * 1000 }, 'report');
    await ops.stop();
    const { totals } = await load.request({ type: 'drain' }, 'drained', 60_000);
    const [counted] = (
      await db.query(`select coalesce(sum(used_bytes), 0)::text as used, count(*)::int as clients from clients`)
    ).rows;
    if (!panel.alive()) throw new Error(`the panel exited during the soak:\n${panel.tail()}`);
    const ours = new Set([
      panel.pid,
      load.pid,
      process.pid,
      ...last.pgOurs.keys(),
      ...last.pgOthers.keys(),
      ...last.redis.keys(),
    ]);
    const span = last.at - first.at;
    const whole = {
      panel: (100 * (last.panel - first.panel)) / span,
      pgOurs: (100 * (pgOurs.see(last.pgOurs), pgOurs.total())) / span,
      pgOthers: (100 * (pgOthers.see(last.pgOthers), pgOthers.total())) / span,
      redis: (100 * cpuDelta(first.redis, last.redis)) / span,
      load: (100 * (last.load - first.load)) / span,
      machine: machineBusyPercent(first.machine, last.machine),
      panelWait: share(first.panelWait, last.panelWait, span),
      pressure: share(first.pressure, last.pressure, span),
      others: topOthers(everyoneBefore, everyoneAfter, span, ours),
    };

    const report = render({
      settings,
      machine,
      command,
      seeded,
      connected,
      minutes: ops.minutes.slice(0, machineMinutes.length),
      machineMinutes,
      whole,
      rss,
      fleet: stats,
      totals,
      resets: ops.resets,
      created: ops.created(),
      counted: { used: Number(counted.used), clients: counted.clients },
      memory: { start: memoryAtStart, seeded: memorySeeded, end: memoryOf(panel.pid) },
      background,
      versions: {
        postgres: await postgresVersion().catch(() => undefined),
        redis: await redisVersion(),
        code: codeVersion(),
      },
    });
    publishReport(report, { writeDoc, docFile, id: ID, title: TITLE });
    if (report.failures.length) throw new Error(`the soak found errors: ${report.failures.join('; ')}`);
    return report;
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
  minutes,
  machineMinutes,
  whole,
  rss,
  fleet,
  totals,
  resets,
  created,
  counted,
  memory,
  background,
  versions,
}) {
  const M = settings.minuteSeconds;
  const perKind = KINDS.filter((k) => settings.rates[k] > 0);
  const stat = (m, kind) => {
    const b = minutes[m]?.[kind];
    return b ? { ...summarise(b.ms), errors: b.errors, skipped: b.skipped } : { count: 0, errors: 0, skipped: 0 };
  };
  const header = [
    'minute',
    ...perKind.map((k) => `${k} n / err / p50 / p99`),
    'acks n / p50 / p99',
    'controller CPU',
    'PostgreSQL: bench DB',
    'PostgreSQL: rest',
    'Redis',
    'rest of machine',
    'CPU pressure',
    'controller waiting for a core',
    'controller RSS',
  ];
  const rest = (c) =>
    c.machine === undefined ? undefined : Math.max(0, c.machine - c.panel - c.load - c.pgOurs - c.pgOthers - c.redis);
  const cell = (s) => `${fixed(s.count)} / ${s.errors ? `**${s.errors}**` : 0} / ${ms(s.p50)} / ${ms(s.p99)}`;
  const rows = machineMinutes.map((c, m) => {
    const acks = fleet.slices[m];
    return [
      `${m * M}–${(m + 1) * M} s`,
      ...perKind.map((k) => cell(stat(m, k))),
      acks ? `${fixed(acks.count)} / ${ms(acks.p50)} / ${ms(acks.p99)}` : '–',
      pct(c.panel),
      pct(c.pgOurs),
      pct(c.pgOthers),
      pct(c.redis),
      pct(rest(c)),
      pct(c.pressure),
      pct(c.panelWait),
      mib(c.rss),
    ];
  });

  // Totals over the window, per kind; p99 stability: the last slice's p99 over the first's.
  const all = Object.fromEntries(
    perKind.map((k) => {
      const values = minutes.flatMap((m) => m?.[k]?.ms ?? []);
      const errors = minutes.reduce((s, m) => s + (m?.[k]?.errors ?? 0), 0);
      const skipped = minutes.reduce((s, m) => s + (m?.[k]?.skipped ?? 0), 0);
      const texts = new Map();
      for (const m of minutes) for (const [t, n] of m?.[k]?.errorTexts ?? []) texts.set(t, (texts.get(t) ?? 0) + n);
      const firstP99 = stat(0, k).p99;
      const lastP99 = stat(machineMinutes.length - 1, k).p99;
      return [k, { ...summarise(values), errors, skipped, texts: [...texts], ratio: lastP99 / firstP99 }];
    }),
  );
  const ackFirst = fleet.slices[0]?.p99;
  const ackLast = fleet.slices[machineMinutes.length - 1]?.p99;
  const totalErrors = perKind.reduce((s, k) => s + all[k].errors, 0);
  const totalSkipped = perKind.reduce((s, k) => s + all[k].skipped, 0);
  const jobFailures = Object.values(fleet.jobs.failed).reduce((s, n) => s + n, 0);

  const slopeFrom = settings.durationSeconds - settings.slopeSeconds;
  const slopePoints = rss.filter((p) => p.t >= slopeFrom);
  const slope = slopePerMinute(slopePoints);
  const slopeAll = slopePerMinute(rss);
  const rssValues = slopePoints.map((p) => p.y);
  const expected = totals.bytes;
  const accounted = counted.used + resets.previousUsedBytes;
  const difference = expected - accounted;

  const failures = [];
  if (totalErrors) failures.push(`${totalErrors} operator requests failed`);
  if (fleet.errors) failures.push(`${fleet.errors} error messages on agent links`);
  if (jobFailures) failures.push(`${jobFailures} queue jobs failed in the simulated agents`);
  if (fleet.fatal) failures.push(fleet.fatal);
  if (difference !== 0) failures.push(`exactly-once: a difference of ${difference} bytes`);
  if (totals.unacked) failures.push(`${totals.unacked} batches not acknowledged 30 s after the links stopped`);

  const kindRows = perKind.map((k) => {
    const a = all[k];
    return [
      k,
      fixed(settings.rates[k], 1),
      fixed(a.count),
      a.errors ? `**${fixed(a.errors)}**` : '0',
      fixed(a.skipped),
      ms(a.p50),
      ms(a.p99),
      ms(a.max),
      Number.isFinite(a.ratio) ? fixed(a.ratio, 2) : '–',
    ];
  });
  const kindHeader = [
    'kind',
    'offered/s',
    'answered',
    'errors',
    'skipped (32 in flight)',
    'p50',
    'p99',
    'max',
    'p99 last ÷ first minute',
  ];
  const plain = (table) => table.map((r) => r.map((c) => String(c).replace(/\*\*/g, '')));
  const jobsLine = `answered ${Object.entries(fleet.jobs.answered)
    .map(([n, c]) => `${n} ${fixed(c)}`)
    .join(
      ', ',
    )}; failed ${jobFailures}; worker errors ${fleet.jobs.workerErrors}${fleet.jobs.workerErrorTexts.length ? ` (${fleet.jobs.workerErrorTexts.map(([t, n]) => `${n}× ${t}`).join('; ')})` : ''}`;
  const errorTexts = perKind
    .flatMap((k) => all[k].texts.map(([t, n]) => `${k}: ${n}× ${t}`))
    .concat(fleet.errorTexts.map(([t, n]) => `agent link: ${n}× ${t}`));
  const othersText = whole.others.map(([l, p]) => `${l} ${pct(p)}`).join(', ') || 'none above 1%';
  const exactly = `acknowledged batches carried ${fixed(expected)} bytes; clients' used_bytes sum ${fixed(counted.used)} + ${fixed(resets.previousUsedBytes)} taken by ${fixed(resets.count)} resets = ${fixed(accounted)}; difference ${fixed(difference)}${totals.unacked ? `; ${totals.unacked} batches never acknowledged` : ''}`;
  const verdict = failures.length ? `**${failures.join('; ')}**` : '**0 errors**';

  const text = [
    `Seeded ${fixed(settings.nodes)} nodes + ${fixed(seeded.clients)} clients (${settings.seed}) in ${fixed(seeded.nodesSeconds + seeded.clientsSeconds, 1)} s; links and workers up in ${fixed(connected.ms / 1000, 1)} s`,
    textTable(kindHeader, plain(kindRows)),
    '',
    textTable(header, plain(rows)),
    '',
    `Errors: ${totalErrors} (skipped offers ${totalSkipped})${errorTexts.length ? `: ${errorTexts.join('; ')}` : ''}`,
    `Counter batches: ${fixed(fleet.batches)} sent, resent ${fleet.resends}, link errors ${fleet.errors}, links open ${fleet.open}/${settings.nodes}; ack p99 last ÷ first minute ${fixed(ackLast / ackFirst, 2)}`,
    `Agent jobs: ${jobsLine}`,
    `Controller RSS slope over the last ${settings.slopeSeconds} s: ${fixed(slope, 2)} MiB/min (whole window ${fixed(slopeAll, 2)} MiB/min; ${rssValues.length} samples, ${mib(Math.min(...rssValues))}–${mib(Math.max(...rssValues))})`,
    `Exactly once: ${exactly}`,
    `Whole window: controller ${pct(whole.panel)}, PostgreSQL bench DB ${pct(whole.pgOurs)}, rest ${pct(whole.pgOthers)}, Redis ${pct(whole.redis)}, load ${pct(whole.load)}; machine busy ${pct(whole.machine)}, before the run ${pct(background)}; CPU pressure ${pct(whole.pressure)}, controller waiting for a core ${pct(whole.panelWait)}; other processes: ${othersText}`,
    `Verdict: ${verdict.replace(/\*\*/g, '')}`,
  ].join('\n');

  const rateText = perKind.map((k) => `${k} ${fixed(settings.rates[k], 1)}/s`).join(', ');
  const envShown = `BENCH_DURATION=${settings.durationSeconds} BENCH_NODES=${settings.nodes} BENCH_CLIENTS_PER_NODE=${settings.clientsPerNode} BENCH_INTERVAL_MS=${settings.intervalMs} BENCH_SEED=${settings.seed} BENCH_LIST_RATE=${settings.rates.list} BENCH_SEARCH_RATE=${settings.rates.search} BENCH_CREATE_RATE=${settings.rates.create} BENCH_RESET_RATE=${settings.rates.reset} BENCH_PROBE_RATE=${settings.rates.probe}`;
  const markdown = `
## ${TITLE}

The real panel (\`dist/apps/controller/src/main.js\` in a child process, as \`npm start\` runs it; Redis queues, fresh database, \`WARREN_LOCAL_AGENT=off\`) under everything at once for ${fixed(settings.durationSeconds / 60, 1)} minutes. ${fixed(settings.nodes)} nodes created and enrolled through the API, one interface and ${fixed(settings.clientsPerNode)} clients each (${fixed(seeded.clients)} clients, ${settings.seed === 'api' ? 'through `POST /api/clients`' : 'inserted with SQL shaped as `POST /api/clients` makes them'}); ${fixed(settings.nodes)} simulated agents (\`bench/lib/fleet-load.js\`, one process) on the agent link send a counter batch of ${fixed(settings.clientsPerNode)} peers and a system sample every ${fixed(settings.intervalMs / 1000)} s, and each answers its node's queue jobs with the agent's own worker (\`apps/agent/src/work/apply-worker.ts\` as its node's Redis user): applies at once (interfaces up, \`applied\` sent), node probes with host facts. Beside them, operators at fixed rates (open loop, ${settings.connections} keep-alive connections): ${rateText}. \`list\` is \`GET /api/clients?perPage=25\`, the first page then its cursor up to ${WALK_PAGES} pages deep; \`search\` a name fragment matching about ten clients; \`create\` \`POST /api/clients\` on a random node's interface (every one a new revision and an apply for that node's agent); \`reset\` \`POST /api/clients/{id}/reset\` of a random reporting client; \`probe\` \`POST /api/nodes/{id}/probe\` of a random node, answered through its queue. ${settings.settleSeconds} s of load before the window.

- Command: \`${command ?? 'node bench/run.js'}\` with \`BENCH_ONLY=${ID}\` (${envShown})
- Date: ${new Date().toISOString()}
- Machine: ${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB RAM, ${machine.platform}
- Software: Node ${machine.node}, PostgreSQL ${versions.postgres ?? 'unknown'} and Redis ${versions.redis ?? 'unknown'} on the same machine; plain HTTP/WebSocket, \`WARREN_LOG_LEVEL=error\`
- Code: ${versions.code}
- Seeding: ${fixed(seeded.nodesSeconds + seeded.clientsSeconds, 1)} s; links with their workers up in ${fixed(connected.ms / 1000, 1)} s

### Results

${verdict}. An error is an answer other than the kind's one expected status, any 5xx, any socket error, an error message on an agent link or a queue job a simulated agent failed; an offer beyond ${MAX_IN_FLIGHT} requests of one kind in flight is skipped and counted. Over the ${fixed(settings.durationSeconds)} s window:

${markdownTable(kindHeader, kindRows)}

${errorTexts.length ? `Errors: ${errorTexts.map((t) => `\`${t}\``).join('; ')}.\n\n` : ''}Minute by minute (requests by when they were sent; acks by when they arrived; CPU in per cent of one core, the machine has ${machine.cores * 100}%; RSS at the minute's end):

${markdownTable(header, rows)}

- **p99 stable?** The last minute's p99 over the first's, per kind, in the table above; counter acks: ${fixed(ackLast / ackFirst, 2)} (${ms(ackFirst)} → ${ms(ackLast)}).
- **Controller RSS** (VmRSS every ${settings.rssEverySeconds} s): least-squares slope over the last ${fixed(settings.slopeSeconds / 60, 1)} minutes **${fixed(slope, 2)} MiB/min** (${rssValues.length} samples, ${mib(Math.min(...rssValues))} to ${mib(Math.max(...rssValues))}); over the whole window ${fixed(slopeAll, 2)} MiB/min. After start ${mib(memory.start.rss)}, after seeding ${mib(memory.seeded.rss)}, at the end ${mib(memory.end.rss)} (peak ${mib(memory.end.peak)}).
- **Counter batches**: ${fixed(fleet.batches)} sent in the window, ${fleet.resends} sent again for want of an ack within ${fixed(settings.intervalMs / 1000)} s, ${fleet.errors} error messages, ${fleet.open} of ${fixed(settings.nodes)} links open at the end; acks p50 ${ms(fleet.ack.p50)}, p99 ${ms(fleet.ack.p99)}, max ${ms(fleet.ack.max)}.
- **Agent jobs** (since the links came up): ${jobsLine}. ${fixed(created)} clients created in all (${fixed(counted.clients)} in the database at the end).
- **Exactly once**: after the window the operators stopped, the links stopped and waited for every pending ack; ${exactly}: ${difference === 0 && !totals.unacked ? '**equal, to the byte**' : '**not equal**'}.
- **Whole window**: controller ${pct(whole.panel)} of a core, PostgreSQL backends of the bench database ${pct(whole.pgOurs)}, the rest of PostgreSQL ${pct(whole.pgOthers)}, Redis ${pct(whole.redis)}, the load process ${pct(whole.load)}.

How busy the machine was with other work: ${pct(background)} of a core before the run, with nothing of the soak running; over the window the whole machine was ${pct(whole.machine)} busy (of ${machine.cores * 100}%), and the biggest long-running processes not the soak's were ${othersText} (other engineers' work sharing these ${machine.cores} cores; processes that ended within the window, such as test runs and builds, show only in "rest of machine"; "PostgreSQL: rest" includes their databases' backends). **CPU pressure** (\`/proc/pressure/cpu\`, "some": the share of the time at least one runnable task waited for a core) was ${pct(whole.pressure)} over the window, and the controller's event loop (its main thread, \`/proc/<pid>/schedstat\`) spent ${pct(whole.panelWait)} of the window runnable but waiting for a core${whole.panelWait !== undefined && whole.panel > 0 ? `, ${fixed(whole.panelWait / whole.panel, 1)}× the time it ran` : ''}. ${whole.pressure !== undefined && whole.pressure > 50 ? "**The machine was saturated**: latencies and the counter path's backlog here measure the machine's queue for a core as much as the panel; the error count, the exactly-once check and the controller's RSS hold regardless." : 'The machine had cores to spare for most of the window.'}
`;
  return { text, markdown, failures };
}
