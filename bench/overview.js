// The overview at scale: the real panel in a child process, 100,000 clients (each with its device
// and account) inserted with SQL as POST /api/clients makes them, statuses, traffic and handshakes
// spread, then GET /api/overview/full under load against GET /api/auth/me (the auth + framework
// floor) in the same run, rounds interleaved so both see the same machine.
//
// Settings (environment): BENCH_CLIENTS (100000), BENCH_CONNECTIONS (8), BENCH_DURATION (10) and
// BENCH_WARMUP (2) seconds per load run, BENCH_ROUNDS (3), BENCH_WRITE=0 (print only),
// DATABASE_URL / REDIS_URL (the machine's servers; a throw-away database is created and dropped).
import { cleanupScope } from './lib/cleanup.js';
import { loadFailures, measureWithCpu } from './lib/client-process.js';
import { codeVersion } from './lib/code-version.js';
import { postgresVersion } from './lib/database.js';
import { describeMachine } from './lib/machine.js';
import { apiClient, issueApiToken, reportPanelEnd, signIn } from './lib/panel-process.js';
import { backgroundBusy, cpuMsOf } from './lib/proc-stats.js';
import { redisVersion } from './lib/redis-cleanup.js';
import { fixed, latencyMs as ms, markdownTable, percent as pct, textTable } from './lib/report.js';
import { benchDatabaseClient, benchInterface, publishReport, startBenchPanel } from './lib/bench-panel.js';
import { envNumber } from './lib/settings.js';
import { insertClients } from './lib/sql-seed.js';

export const ID = 'overview-100k';
export const TITLE = 'Overview: GET /api/overview/full at 100,000 clients';

/** The smoke size (`npm run bench:smoke`, CI): every phase once, in seconds; nothing recorded. */
export const SMOKE = {
  BENCH_CLIENTS: '100',
  BENCH_DURATION: '1',
  BENCH_WARMUP: '0',
  BENCH_ROUNDS: '1',
  BENCH_CONNECTIONS: '2',
};

/** The issue's target: the overview at no less than this share of the floor's throughput. */
const TARGET_RATIO = 0.25;
/** A /14 (262,141 addresses) up to 250,000 clients, as the 100,000 runs had; a /12 beyond (1,000,000). */
const subnetFor = (clients) => (clients > 250_000 ? '10.64.0.0/12' : '10.64.0.0/14');
const GIB = 2 ** 30;
const DAY_MS = 86_400_000;

export function settingsFromEnv() {
  return {
    clients: envNumber('BENCH_CLIENTS', 100_000, 100),
    connections: envNumber('BENCH_CONNECTIONS', 8, 1),
    durationSeconds: envNumber('BENCH_DURATION', 10, 1),
    warmupSeconds: envNumber('BENCH_WARMUP', 2, 0),
    rounds: envNumber('BENCH_ROUNDS', 3, 1),
  };
}

/** Client i's creation body: a quota on 40%, a future expiry on 40%, a monthly cycle on half the quotas. */
function clientSpec(i, now) {
  const spec = { name: `client-${String(i).padStart(6, '0')}`, deviceLimit: 1 + (i % 3) };
  if (i % 5 < 2) spec.quotaBytes = [10, 50, 100, 500][i % 4] * GIB;
  if (i % 5 >= 3) spec.expiresAt = new Date(now + (1 + (i % 365)) * DAY_MS).toISOString();
  if (spec.quotaBytes && i % 2 === 0) spec.resetCycle = 'monthly';
  return spec;
}

async function seed(db, iface, total, now) {
  const subnet = subnetFor(total);
  const started = performance.now();
  for (let start = 0; start < total; start += 2000) {
    const specs = [];
    for (let i = start; i < Math.min(total, start + 2000); i++) specs.push(clientSpec(i, now));
    await insertClients(db, { iface, subnet, specs });
    if ((start + specs.length) % 20_000 === 0 || start + specs.length === total) {
      process.stderr.write(`bench: inserted ${fixed(start + specs.length)} of ${fixed(total)} clients with SQL\n`);
    }
  }
  return (performance.now() - started) / 1000;
}

/**
 * By client number: 10% disabled, 5% expired, 5% exhausted, traffic on most of the rest, and a
 * latest handshake on 60% of the devices: a third of those within the last 2 minutes (online),
 * the rest 5 minutes to 3 days ago. Then VACUUM ANALYZE.
 */
async function spread(db) {
  await db.query('begin');
  await db.query(
    `create temporary table numbered on commit drop as select id, (substring(name from '^client-(\\d+)'))::int as n from clients`,
  );
  await db.query(`update clients c set status = 'disabled' from numbered x where x.id = c.id and x.n % 20 in (0, 1)`);
  await db.query(
    `update clients c set status = 'expired', expires_at = now() - (1 + x.n % 90) * interval '1 day' from numbered x where x.id = c.id and x.n % 20 = 2`,
  );
  await db.query(`update clients c set quota_bytes = case when c.quota_bytes = 0 then ${10 * GIB} else c.quota_bytes end,
                                      used_bytes = case when c.quota_bytes = 0 then ${10 * GIB} else c.quota_bytes end, status = 'exhausted'
                    from numbered x where x.id = c.id and x.n % 20 = 3`);
  await db.query(`update clients c set used_bytes = case when c.quota_bytes > 0 then least(c.quota_bytes - 1, (random() * c.quota_bytes)::bigint)
                                                         else (random() * ${200 * GIB})::bigint end
                    from numbered x where x.id = c.id and x.n % 20 > 3 and x.n % 10 < 7`);
  await db.query(
    `update clients set up_bytes = used_bytes / 5, down_bytes = used_bytes - used_bytes / 5 where used_bytes > 0`,
  );
  await db.query(`update devices d set up_bytes = c.up_bytes, down_bytes = c.down_bytes,
                         last_handshake = case when x.n % 5 = 0 then now() - (x.n % 120) * interval '1 second'
                                               else now() - interval '5 minutes' - (x.n % 4320) * interval '1 minute' end
                    from clients c join numbered x on x.id = c.id where c.id = d.client_id and x.n % 5 < 3`);
  await db.query('commit');
  for (const table of ['clients', 'devices', 'accounts', 'client_interfaces'])
    await db.query(`vacuum (analyze) ${table}`);
}

/** What the overview must say, from a scan of the tables (the online edge is far from every handshake but the newest). */
async function expectedInventory(db) {
  const [c] = (
    await db.query(`select count(*)::int as total, count(*) filter (where status = 'active')::int as active,
                                      count(*) filter (where status = 'disabled')::int as disabled, count(*) filter (where status = 'expired')::int as expired,
                                      count(*) filter (where status = 'exhausted')::int as exhausted, sum(used_bytes)::float8 as used from clients`)
  ).rows;
  const [d] = (
    await db.query(
      `select count(*)::int as total, count(*) filter (where last_handshake > now() - interval '180 seconds')::int as online from devices`,
    )
  ).rows;
  return {
    clients: { total: c.total, active: c.active, disabled: c.disabled, expired: c.expired, exhausted: c.exhausted },
    devices: d,
    usedBytes: c.used,
  };
}

function checkOverview(body, expected) {
  const inv = body?.inventory;
  if (!inv) return `no inventory: ${JSON.stringify(body).slice(0, 300)}`;
  if (JSON.stringify(inv.clients) !== JSON.stringify(expected.clients))
    return `clients ${JSON.stringify(inv.clients)}, expected ${JSON.stringify(expected.clients)}`;
  if (inv.devices.total !== expected.devices.total)
    return `devices ${inv.devices.total}, expected ${expected.devices.total}`;
  // Handshakes are a second apart near the window's edge: allow the seconds between the two readings.
  if (Math.abs(inv.devices.online - expected.devices.online) > 10 * Math.ceil(expected.devices.total / 600))
    return `online ${inv.devices.online}, expected about ${expected.devices.online}`;
  if (inv.usage.usedBytes !== expected.usedBytes)
    return `usedBytes ${inv.usage.usedBytes}, expected ${expected.usedBytes}`;
  return undefined;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];

export async function run({ writeDoc = true, docFile, command } = {}) {
  const settings = settingsFromEnv();
  const machine = describeMachine();
  const now = Date.now();
  const id = settings.clients === 100_000 ? ID : `overview-${settings.clients}`;
  const title =
    settings.clients === 100_000 ? TITLE : `Overview: GET /api/overview/full at ${fixed(settings.clients)} clients`;
  const background = await backgroundBusy();
  const scope = cleanupScope('the overview run (stopping the panel, dropping its database)');
  let panel;
  try {
    let database;
    ({ panel, database } = await startBenchPanel(scope, { tag: 'overview', prefix: 'wbo' }));
    const api = apiClient(panel, 4);
    scope.add('http agent', () => api.close());
    await signIn(api);
    api.token = await issueApiToken(api, 'bench-overview');
    const db = await benchDatabaseClient(scope, database);
    // A kept database (BENCH_REUSE_DATABASE, e.g. the clients bench's) is measured as it is.
    let seedSeconds = 0;
    if (!database.reused) {
      const iface = await benchInterface(api, { listenPort: 51999, subnet: subnetFor(settings.clients) });
      seedSeconds = await seed(db, { id: iface.id, nodeId: iface.nodeId }, settings.clients, now);
      process.stderr.write('bench: spreading statuses, traffic and handshakes with SQL, then VACUUM ANALYZE…\n');
      await spread(db);
    }
    // The seeding's deltas are folded by the panel's own 10-second job: measure the steady state.
    const foldStarted = performance.now();
    for (;;) {
      const [{ n }] = (await db.query('select count(*)::int as n from inventory_deltas')).rows;
      if (n === 0) break;
      if (performance.now() - foldStarted > 120_000)
        throw new Error(`${n} inventory deltas still unfolded after 2 minutes`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const expected = await expectedInventory(db);
    const first = await api.timed(() => api.client.GET('/api/overview/full'));
    if (first.status !== 200)
      throw new Error(`GET /api/overview/full answered ${first.status}: ${JSON.stringify(first.body).slice(0, 300)}`);
    const problem = checkOverview(first.body, expected);
    if (problem) throw new Error(`GET /api/overview/full: ${problem}`);
    const sizes = (
      await db.query(`select pg_size_pretty(pg_database_size(current_database())) as database,
                                          (select count(*) from inventory_counts)::int as count_rows`)
    ).rows[0];

    const targets = [
      { key: 'floor', label: 'floor: GET /api/auth/me', path: 'auth/me' },
      { key: 'overview', label: 'GET /api/overview/full', path: 'overview/full' },
    ];
    const runs = { floor: [], overview: [] };
    const problems = [];
    for (let round = 1; round <= settings.rounds; round++) {
      for (const target of targets) {
        process.stderr.write(
          `bench: round ${round}/${settings.rounds}, ${target.label}: ${settings.warmupSeconds}s warm-up + ${settings.durationSeconds}s at ${settings.connections} connections…\n`,
        );
        const result = await measureWithCpu(
          {
            url: `${panel.api}/${target.path}`,
            headers: { authorization: `Bearer ${api.token}` },
            connections: settings.connections,
            pipelining: 1,
            warmupSeconds: settings.warmupSeconds,
            durationSeconds: settings.durationSeconds,
          },
          { serverCpuMs: () => cpuMsOf(panel.pid) },
        );
        problems.push(...loadFailures(`${target.label} (round ${round})`, result));
        runs[target.key].push(result);
      }
    }
    if (problems.length) throw new Error(`responses other than 200 during the benchmark:\n  ${problems.join('\n  ')}`);
    if (!panel.alive()) throw new Error(`the panel exited during the benchmark:\n${panel.tail()}`);

    const report = render({
      settings,
      machine,
      command,
      title,
      background,
      targets,
      runs,
      seedSeconds,
      reused: Boolean(database.reused),
      expected,
      inventory: first.body.inventory,
      sizes,
      code: codeVersion(),
      postgres: await postgresVersion().catch(() => undefined),
      redis: await redisVersion(),
    });
    publishReport(report, { writeDoc, docFile, id, title });
    return { runs };
  } catch (error) {
    if (panel) await reportPanelEnd(panel);
    throw error;
  } finally {
    await scope.run();
  }
}

function render({
  settings,
  machine,
  command,
  title,
  background,
  targets,
  runs,
  seedSeconds,
  reused,
  expected,
  inventory,
  sizes,
  code,
  postgres,
  redis,
}) {
  const pick = (key, f) => median(runs[key].map(f));
  const rate = (key) => pick(key, (r) => r.requestsPerSecond);
  const ratios = runs.overview.map((r, i) => r.requestsPerSecond / runs.floor[i].requestsPerSecond);
  const ratio = median(ratios);
  const met = ratio >= TARGET_RATIO;
  const header = [
    'request',
    'requests/s (median round)',
    'rounds',
    'ratio to floor',
    'p50',
    'p99',
    'panel CPU',
    'rest (PostgreSQL…)',
    'CPU per request (panel + rest)',
  ];
  const row = (t) => {
    const rs = runs[t.key];
    const perRequest = (r) =>
      r.cpu.rest === undefined ? undefined : (10 * (r.cpu.server + r.cpu.rest)) / r.requestsPerSecond;
    return [
      t.label,
      fixed(rate(t.key)),
      rs.map((r) => fixed(r.requestsPerSecond)).join(' / '),
      t.key === 'floor' ? '1' : `${fixed(100 * ratio, 0)}% (${ratios.map((x) => `${fixed(100 * x, 0)}%`).join(' / ')})`,
      ms(pick(t.key, (r) => r.latency.p50)),
      ms(pick(t.key, (r) => r.latency.p99)),
      pct(pick(t.key, (r) => r.cpu.server)),
      pct(pick(t.key, (r) => r.cpu.rest ?? 0)),
      ms(pick(t.key, (r) => perRequest(r) ?? 0)),
    ];
  };
  const verdict = `${fixed(100 * ratio, 0)}% of the floor (target ≥ ${fixed(100 * TARGET_RATIO, 0)}%): ${met ? 'met' : 'MISSED'}`;
  const text = [
    `GET /api/overview/full at ${fixed(settings.clients)} clients, ${settings.connections} connections, ${settings.rounds} interleaved rounds of ${settings.durationSeconds} s:`,
    textTable(header, targets.map(row)),
    '',
    verdict,
    `Other processes kept the machine ${pct(background)} busy (of ${machine.cores * 100}%) before the run`,
  ].join('\n');
  const envShown = `BENCH_CLIENTS=${settings.clients} BENCH_CONNECTIONS=${settings.connections} BENCH_DURATION=${settings.durationSeconds} BENCH_WARMUP=${settings.warmupSeconds} BENCH_ROUNDS=${settings.rounds}`;
  const markdown = `
## ${title}

The real panel (\`node dist/apps/controller/src/main.js\` with the flags \`npm start\` uses) in a child process ${reused ? `on the database the clients bench kept (BENCH_REUSE_DATABASE: ${fixed(settings.clients)} clients, one interface, statuses and traffic spread, no handshakes)` : `on a fresh database: one interface on the local node (no agent), ${fixed(settings.clients)} clients inserted with SQL exactly as \`POST /api/clients\` makes them (client, device, interface link, account with keys and address; ${fixed(seedSeconds, 1)} s), then spread by SQL: 10% disabled, 5% expired, 5% exhausted, traffic on most of the rest, a handshake on 60% of the devices (a third of those within the last 2 minutes)`}. The seeding's counter deltas were folded by the panel's own job before measuring. Then \`GET /api/overview/full\` and the floor \`GET /api/auth/me\` (auth guard, NestJS, fastify, one PostgreSQL look-up) under load with the same API token, in interleaved rounds so both see the same machine.

- Command: \`BENCH_ONLY=overview ${command ?? 'node bench/run.js'}\` (${envShown})
- Date: ${new Date().toISOString()}; code: ${code}
- Machine: ${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB RAM, ${machine.platform}; shared with other engineers' test runs (the ratio, not the absolute rate, is what carries over): other processes kept it ${pct(background)} busy (of ${machine.cores * 100}%) in the 3 s before the run
- Software: Node ${machine.node}, PostgreSQL ${postgres ?? 'unknown'} and Redis ${redis ?? 'unknown'} on the same machine; plain HTTP, \`WARREN_LOG_LEVEL=error\`
- Data: database ${sizes.database}; inventory_counts ${fixed(sizes.count_rows)} rows. The first answer was checked against a scan of the tables: clients ${JSON.stringify(expected.clients)}, devices ${fixed(expected.devices.total)} (online ${fixed(inventory.devices.online)}, scan ${fixed(expected.devices.online)}), usedBytes ${fixed(expected.usedBytes)}

autocannon in a child process, ${settings.connections} connections, pipelining 1, ${settings.warmupSeconds} s warm-up then ${settings.durationSeconds} s measured per run; every response was a 200 (the run fails otherwise). Figures are the median over the rounds (each round's rate listed); the ratio is taken round by round (overview ÷ the floor run just before it), then its median.

${markdownTable(header, targets.map(row))}

**${verdict}.**
`;
  return { text, markdown };
}
