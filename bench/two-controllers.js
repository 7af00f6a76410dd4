// Two controllers on one PostgreSQL and one Redis, as replicas behind a load balancer: both the
// real panel (dist, as `npm start` runs it) in processes of their own, started together on a
// fresh database. N simulated agents (bench/lib/fleet-load.js, the agent link protocol) split
// between them, every agent sending counter batches and system samples; meanwhile clients are
// created, changed and deleted through both controllers in turn (changes flowing: revisions,
// deliveries to every node's queue). Measured over a window: each controller's CPU and RSS,
// PostgreSQL's CPU, and the scheduled ticks (client time transitions every 30 s, history
// maintenance every 60 s): how many ran, which controller ran each, and whether any tick ran
// twice. Baseline in the same run: every agent and every change on controller 1, controller 2 idle.
//
// Settings (environment): BENCH_NODES (40), BENCH_CLIENTS_PER_NODE (50), BENCH_WINDOW (90 s
// measured per phase: three time-transition ticks), BENCH_INTERVAL_MS (2000), BENCH_CHANGES_PER_S
// (2), BENCH_WRITE=0 (print only), DATABASE_URL / REDIS_URL (the machine's servers).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { scheduledJobs, seed, startLoad } from './lib/fleet.js';
import { cleanupScope } from './lib/cleanup.js';
import { codeVersion } from './lib/code-version.js';
import { createBenchDatabase, postgresVersion, REDIS_URL } from './lib/database.js';
import { describeMachine } from './lib/machine.js';
import { randomHex } from './lib/netns.js';
import { apiClient, reportPanelEnd, signIn, startPanelProcess } from './lib/panel-process.js';
import { cpuMsOf, cpuMsOfProcesses, cpuTrail, memoryOf } from './lib/proc-stats.js';
import { dropRedisPrefix, redisVersion } from './lib/redis-cleanup.js';
import { fixed, markdownTable, mib, percentFine as pct, textTable } from './lib/report.js';
import { publishReport } from './lib/bench-panel.js';
import { envNumber } from './lib/settings.js';

export const ID = 'two-controllers';
export const TITLE = 'Two controllers on one database: agents split across both, changes and usage flowing';

/** The smoke size (`npm run bench:smoke`, CI): every phase once, in seconds; nothing recorded. */
export const SMOKE = { BENCH_NODES: '2', BENCH_CLIENTS_PER_NODE: '2', BENCH_WINDOW: '10', BENCH_INTERVAL_MS: '1000' };

const IFNAME = 'wg0';
const TICKS = { 'clients.time-transitions': 30_000, 'system.history-maintenance': 60_000 };

export function settingsFromEnv() {
  return {
    nodes: envNumber('BENCH_NODES', 40, 2),
    clientsPerNode: envNumber('BENCH_CLIENTS_PER_NODE', 50, 1),
    windowSeconds: envNumber('BENCH_WINDOW', 90, 10),
    intervalMs: envNumber('BENCH_INTERVAL_MS', 2000, 100),
    changesPerSecond: envNumber('BENCH_CHANGES_PER_S', 2, 0),
    seed: 'api',
    createConcurrency: 8,
  };
}

const isPostgres = (cmdline) => cmdline.startsWith('postgres') || cmdline.includes('bin/postgres');

/**
 * Changes through the controllers in turn until stopped: a client made on a node's interface,
 * then disabled, then deleted (three writes, each bumping its node's revision).
 */
function changeLoop(apis, nodes, perSecond) {
  let stopped = !perSecond;
  const counts = apis.map(() => 0);
  const failures = [];
  const done = (async () => {
    for (let k = 0; !stopped; k++) {
      const api = apis[k % apis.length];
      const node = nodes[k % nodes.length];
      try {
        const made = await api.expect(
          201,
          api.client.POST('/api/clients', { body: { name: `churn-${k}`, interfaceIds: [node.interfaceId] } }),
        );
        await api.expect(
          200,
          apis[(k + 1) % apis.length].client.PATCH('/api/clients/{id}', {
            params: { path: { id: made.id } },
            body: { enabled: false },
          }),
        );
        await api.expect(200, api.client.DELETE('/api/clients/{id}', { params: { path: { id: made.id } } }));
        counts[k % apis.length] += 3;
      } catch (error) {
        failures.push(error.message);
      }
      await sleep(1000 / perSecond);
    }
  })();
  return {
    counts,
    failures,
    stop: async () => {
      stopped = true;
      await done;
    },
  };
}

async function measure({ panels, settings, apis, nodes, queuePrefix, label }) {
  const pgBefore = cpuMsOfProcesses(isPostgres);
  const before = panels.map((p) => cpuMsOf(p.pid));
  const rss = panels.map(() => []);
  const startedAt = Date.now();
  const churn = changeLoop(apis, nodes, settings.changesPerSecond);
  process.stderr.write(`bench: ${label}: measuring ${settings.windowSeconds} s…\n`);
  // PostgreSQL's backends come and go (pools close idle connections): seen every second.
  const pg = cpuTrail(pgBefore);
  while (Date.now() - startedAt < settings.windowSeconds * 1000) {
    await sleep(1000);
    pg.see(cpuMsOfProcesses(isPostgres));
    panels.forEach((p, i) => {
      if (!p.alive()) throw new Error(`controller ${i + 1} exited during the window:\n${p.tail()}`);
      rss[i].push(memoryOf(p.pid).rss);
    });
  }
  await churn.stop();
  const elapsed = Date.now() - startedAt;
  const cpu = panels.map((p, i) => (100 * (cpuMsOf(p.pid) - before[i])) / elapsed);
  pg.see(cpuMsOfProcesses(isPostgres));
  const pgCpu = (100 * pg.total()) / elapsed;
  const jobs = (await scheduledJobs(queuePrefix)).filter((job) => job.start >= startedAt && job.name in TICKS);
  return {
    label,
    seconds: elapsed / 1000,
    cpu,
    pgCpu,
    rss: rss.map((values, i) => ({
      mean: values.reduce((s, v) => s + v, 0) / values.length,
      max: Math.max(...values),
      peak: memoryOf(panels[i].pid).peak,
    })),
    changes: churn.counts,
    changeFailures: churn.failures,
    ticks: ticksOf(jobs, panels),
  };
}

/** Per scheduled job: runs seen, ticks that ran more than once, and how many each controller ran. */
function ticksOf(jobs, panels) {
  return Object.entries(TICKS).map(([name, everyMs]) => {
    const runs = jobs.filter((job) => job.name === name);
    const ticks = runs.map((job) => Number(String(job.id).split(':').pop())).sort((a, b) => a - b);
    const twice = ticks.length - new Set(ticks).size;
    const tooClose = ticks.filter((tick, i) => i > 0 && tick - ticks[i - 1] < everyMs).length;
    const byController = panels.map((p) => runs.filter((job) => String(job.by).endsWith(` pid ${p.pid}`)).length);
    return { name, everyMs, runs: runs.length, twice: twice + tooClose, byController };
  });
}

export async function run({ writeDoc = true, docFile, command } = {}) {
  const settings = settingsFromEnv();
  const machine = describeMachine();
  const scope = cleanupScope('the two-controller run');
  const panels = [];
  try {
    const database = await createBenchDatabase();
    scope.add(`drop database ${database.name}`, () => database.drop());
    const queuePrefix = `wb2c${randomHex(8)}`;
    scope.add(`Redis keys of ${queuePrefix}`, () => dropRedisPrefix(queuePrefix));
    const start = async (i) => {
      const dataDir = mkdtempSync(join(tmpdir(), `warren-bench-2c-${i}-`));
      scope.add(`data directory ${i}`, () => rmSync(dataDir, { recursive: true, force: true }));
      const panel = await startPanelProcess({
        databaseUrl: database.url,
        redisUrl: REDIS_URL,
        queuePrefix,
        dataDir,
        env: { WARREN_LOCAL_AGENT: 'off' },
      });
      scope.add(`controller ${i}`, () => panel.stop());
      return panel;
    };
    process.stderr.write('bench: starting two controllers together on a fresh database…\n');
    panels.push(...(await Promise.all([start(1), start(2)])));
    const apis = panels.map((panel) => apiClient(panel, settings.createConcurrency));
    for (const api of apis) {
      scope.add('http agent', () => api.close());
      await signIn(api);
    }
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    scope.add('database client', () => db.end());

    process.stderr.write(`bench: ${settings.nodes} nodes with ${settings.clientsPerNode} clients each…\n`);
    const seeded = await seed({ api: apis[0], db, settings });
    await sleep(3000);
    const linkUrl = (panel) => `${panel.origin.replace(/^http/, 'ws')}/api/agent/link`;
    /** One phase: a load process with the agents linked as `controllerOf` says, changes through `through`. */
    const phase = async (label, controllerOf, through) => {
      const load = startLoad();
      try {
        await load.request(
          {
            type: 'start',
            url: linkUrl(panels[0]),
            intervalMs: settings.intervalMs,
            links: seeded.nodes.map((n, i) => ({
              credential: n.credential,
              ifname: IFNAME,
              keys: n.keys,
              appliedRevision: n.appliedRevision,
              url: linkUrl(panels[controllerOf(i)]),
            })),
          },
          'connected',
        );
        load.send({ type: 'mode', mode: 'full' });
        await sleep(10_000);
        await load.request({ type: 'mark' }, 'marked');
        const measured = await measure({ panels, settings, apis: through, nodes: seeded.nodes, queuePrefix, label });
        const { stats } = await load.request({ type: 'report', sliceMs: 10_000 }, 'report');
        const { totals } = await load.request({ type: 'drain' }, 'drained', 60_000);
        const [linked] = (await db.query(`select count(*) filter (where connected)::int as n from node_agents`)).rows;
        return {
          ...measured,
          stats,
          totals,
          linked: linked.n,
          agents: panels.map((_, k) => seeded.nodes.filter((__, i) => controllerOf(i) === k).length),
        };
      } finally {
        await load.stop();
      }
    };
    const alone = await phase('baseline: every agent and change on controller 1 (controller 2 idle)', () => 0, [
      apis[0],
    ]);
    const split = await phase('two controllers: agents split, changes through both', (i) => i % 2, apis);
    const [counted] = (await db.query(`select coalesce(sum(used_bytes), 0)::text as used from clients`)).rows;

    const report = render({
      settings,
      machine,
      command,
      phases: [alone, split],
      counted: Number(counted.used),
      versions: {
        postgres: await postgresVersion().catch(() => undefined),
        redis: await redisVersion(),
        code: codeVersion(),
      },
    });
    publishReport(report, { writeDoc, docFile, id: ID, title: TITLE });
    return { alone, split };
  } catch (error) {
    for (const panel of panels) await reportPanelEnd(panel, 300);
    throw error;
  } finally {
    await scope.run();
  }
}

function render({ settings, machine, command, phases, counted, versions }) {
  const header = [
    'phase',
    'controller',
    'agents linked',
    'changes made through it',
    'CPU (of one core)',
    'RSS mean / max / peak',
    'PostgreSQL CPU (all)',
    'ack p50 / p99',
  ];
  const rows = phases.flatMap((p) =>
    p.cpu.map((cpu, i) => [
      i === 0 ? p.label : '',
      `controller ${i + 1}`,
      fixed(p.agents[i]),
      fixed(p.changes[i] ?? 0),
      pct(cpu),
      `${mib(p.rss[i].mean)} / ${mib(p.rss[i].max)} / ${mib(p.rss[i].peak)}`,
      i === 0 ? pct(p.pgCpu) : '',
      i === 0 ? `${fixed(p.stats.ack.p50, 1)} / ${fixed(p.stats.ack.p99, 1)} ms` : '',
    ]),
  );
  const tickHeader = [
    'phase',
    'scheduled job',
    'every',
    'runs in the window',
    'by controller 1 / 2',
    'ticks that ran twice',
  ];
  const tickRows = phases.flatMap((p) =>
    p.ticks.map((t, k) => [
      k === 0 ? p.label : '',
      `\`${t.name}\``,
      `${t.everyMs / 1000} s`,
      fixed(t.runs),
      t.byController.join(' / '),
      `**${t.twice}**`,
    ]),
  );
  const bytes = phases.reduce((sum, p) => sum + p.totals.bytes, 0);
  const lost = bytes - counted;
  const failures = phases.flatMap((p) => p.changeFailures);
  const plain = (table) => table.map((r) => r.map((c) => String(c).replaceAll('*', '').replaceAll('`', '')));
  const text = [
    textTable(header, plain(rows)),
    '',
    textTable(tickHeader, plain(tickRows)),
    `Links connected at the end of each phase: ${phases.map((p) => `${p.linked}/${settings.nodes}`).join(', ')}; change failures ${failures.length}`,
    `Exactly once: acknowledged ${fixed(bytes)} bytes over both phases, clients' used_bytes ${fixed(counted)}, difference ${fixed(lost)}`,
  ].join('\n');
  const markdown = `
## ${TITLE}

Two controllers (\`dist/apps/controller/src/main.js\`, each a process of its own with the launchers' flags, \`WARREN_LOCAL_AGENT=off\`) started together on one fresh database and one Redis key prefix. ${fixed(settings.nodes)} nodes made and enrolled through the API, ${fixed(settings.clientsPerNode)} clients each; then ${fixed(settings.nodes)} simulated agents (\`bench/lib/fleet-load.js\`, the agent link protocol), each sending a counter batch and a system sample every ${settings.intervalMs / 1000} s. During each ${settings.windowSeconds} s window clients were made, disabled and deleted (~${settings.changesPerSecond} rounds/s), so every change moves a node's revision and is delivered to its queue by whichever controller hears of it. **Baseline in the same run**: every agent linked to controller 1 and every change made through it, controller 2 running idle; then the agents linked **every other one to controller 2** and the changes made through both in turn (the disable through the other controller than the create).

- Command: \`${command ?? 'node bench/run.js'}\` with \`BENCH_ONLY=${ID}\` (BENCH_NODES=${settings.nodes} BENCH_CLIENTS_PER_NODE=${settings.clientsPerNode} BENCH_WINDOW=${settings.windowSeconds} BENCH_INTERVAL_MS=${settings.intervalMs} BENCH_CHANGES_PER_S=${settings.changesPerSecond})
- Date: ${new Date().toISOString()}
- Machine: ${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB RAM; Node ${machine.node}, PostgreSQL ${versions.postgres ?? 'unknown'}, Redis ${versions.redis ?? 'unknown'}, all on this machine (shared with whatever else runs there)
- Code: ${versions.code}

${markdownTable(header, rows)}

Scheduled work in each window (BullMQ job schedulers that both controllers upsert under one id; a tick is the scheduler's time in the job id, \`processedBy\` names the controller's worker; "ran twice" counts a tick with two jobs or two jobs closer than the period):

${markdownTable(tickHeader, tickRows)}

- Links connected at the end of each phase: ${phases.map((p) => `${p.linked} of ${settings.nodes}`).join(', ')}; ${failures.length} failed changes${failures.length ? ` (${failures.slice(0, 3).join('; ')})` : ''}.
- Exactly once across both controllers: acknowledged batches carried ${fixed(bytes)} bytes over both phases; the clients' \`used_bytes\` sum to ${fixed(counted)}: ${lost === 0 ? '**equal, to the byte**' : `**a difference of ${fixed(lost)} bytes**`}.
- The correctness side (real agents in namespaces, a re-enrolment through one controller ending the link on the other, equal answers, one run per tick) is tested in \`test/e2e/two-controllers.spec.ts\`.
`;
  return { text, markdown };
}
