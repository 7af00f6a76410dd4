// A reseller's client list at scale: the real panel in a child process, 100,000 clients inserted
// with SQL as the panel makes them, 10,000 of them (every tenth) a reseller's own; then the
// reseller's first client page (GET /api/clients?perPage=50, newest first, their scope applied in
// the query) under load, against GET /api/auth/me (the auth + framework floor) with the same
// reseller's API token, rounds interleaved so both see the same machine.
//
// Settings (environment): BENCH_CLIENTS (100000), BENCH_RESELLER_SHARE (10: every tenth client is
// the reseller's), BENCH_CONNECTIONS (8), BENCH_DURATION (10) and BENCH_WARMUP (2) seconds per
// load run, BENCH_ROUNDS (3), BENCH_WRITE=0 (print only), DATABASE_URL / REDIS_URL (the machine's
// servers; a throw-away database is created and dropped).
import { cleanupScope } from './lib/cleanup.js';
import { loadFailures, measureWithCpu } from './lib/client-process.js';
import { codeVersion } from './lib/code-version.js';
import { postgresVersion } from './lib/database.js';
import { describeMachine } from './lib/machine.js';
import { apiClient, issueApiToken, reportPanelEnd, signIn } from './lib/panel-process.js';
import { cpuMsOf } from './lib/proc-stats.js';
import { redisVersion } from './lib/redis-cleanup.js';
import { fixed, latencyMs as ms, markdownTable, percent as pct, textTable } from './lib/report.js';
import { envNumber } from './lib/settings.js';
import { insertClients } from './lib/sql-seed.js';
import { benchDatabaseClient, benchInterface, publishReport, startBenchPanel } from './lib/bench-panel.js';

export const ID = 'reseller-list-100k';
export const TITLE = "Resellers: a reseller's first client page, 10,000 of 100,000 clients";

/** The smoke size (`npm run bench:smoke`, CI): every phase once, in seconds; nothing recorded. */
export const SMOKE = {
  BENCH_CLIENTS: '100',
  BENCH_DURATION: '1',
  BENCH_WARMUP: '0',
  BENCH_ROUNDS: '1',
  BENCH_CONNECTIONS: '2',
};

/** The issue's target (issue 22 item 9): the page at no less than this share of the floor's throughput. */
const TARGET_RATIO = 0.15;
const SUBNET = '10.64.0.0/14';
const PER_PAGE = 50;
const RESELLER = { username: 'bench-reseller', password: 'bench-reseller-password' };

export function settingsFromEnv() {
  return {
    clients: envNumber('BENCH_CLIENTS', 100_000, 100),
    share: envNumber('BENCH_RESELLER_SHARE', 10, 2),
    connections: envNumber('BENCH_CONNECTIONS', 8, 1),
    durationSeconds: envNumber('BENCH_DURATION', 10, 1),
    warmupSeconds: envNumber('BENCH_WARMUP', 2, 0),
    rounds: envNumber('BENCH_ROUNDS', 3, 1),
  };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];

/**
 * The reseller, made as the owner makes one (POST /api/admins, a temporary password), who then
 * chooses their own password and issues an API token, as an integration would.
 */
async function resellerToken(owner, panel) {
  const made = await owner.expect(
    201,
    owner.client.POST('/api/admins', {
      body: { username: RESELLER.username, password: 'temporary-password', role: 'reseller' },
    }),
  );
  const api = apiClient(panel, 4);
  const login = await api.expect(
    200,
    api.client.POST('/api/auth/login', { body: { username: RESELLER.username, password: 'temporary-password' } }),
  );
  api.token = login.token;
  await api.expect(
    200,
    api.client.POST('/api/auth/password', {
      body: { currentPassword: 'temporary-password', newPassword: RESELLER.password },
    }),
  );
  const token = await issueApiToken(api, 'bench-reseller');
  api.close();
  return { id: made.id, token };
}

export async function run({ writeDoc = true, docFile, command } = {}) {
  const settings = settingsFromEnv();
  const machine = describeMachine();
  const scope = cleanupScope('the reseller list run (stopping the panel, dropping its database)');
  let panel;
  try {
    let database;
    ({ panel, database } = await startBenchPanel(scope, { tag: 'reseller', prefix: 'wbr' }));
    const api = apiClient(panel, 4);
    scope.add('http agent', () => api.close());
    await signIn(api);
    api.token = await issueApiToken(api, 'bench-owner');
    const iface = await benchInterface(api, { listenPort: 51998, subnet: SUBNET });
    const reseller = await resellerToken(api, panel);
    const db = await benchDatabaseClient(scope, database);

    const seedStarted = performance.now();
    // Interleaved: every `share`-th client is the reseller's, so theirs are spread over the whole
    // creation order (the newest page is not simply the table's newest rows).
    for (let start = 0; start < settings.clients; start += 2000) {
      const mine = [];
      const others = [];
      for (let i = start; i < Math.min(settings.clients, start + 2000); i++) {
        const spec = { name: `client-${String(i).padStart(6, '0')}`, deviceLimit: 1 };
        (i % settings.share === 0 ? mine : others).push(spec);
      }
      const at = { id: iface.id, nodeId: iface.nodeId };
      await insertClients(db, { iface: at, subnet: SUBNET, specs: others });
      if (mine.length) await insertClients(db, { iface: at, subnet: SUBNET, specs: mine, ownerId: reseller.id });
    }
    for (const table of ['clients', 'devices', 'accounts', 'client_interfaces'])
      await db.query(`vacuum (analyze) ${table}`);
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    const [{ theirs, total }] = (
      await db.query(
        'select count(*) filter (where owner_id = $1)::int as theirs, count(*)::int as total from clients',
        [reseller.id],
      )
    ).rows;

    // The page measured is theirs alone, and full.
    const pageUrl = `${panel.api}/clients?perPage=${PER_PAGE}`;
    const check = await fetch(pageUrl, { headers: { authorization: `Bearer ${reseller.token}` } });
    const page = await check.json();
    const ownIds = new Set(
      (await db.query('select id from clients where owner_id = $1', [reseller.id])).rows.map((row) => row.id),
    );
    if (
      check.status !== 200 ||
      page.total !== theirs ||
      page.items.length !== Math.min(PER_PAGE, theirs) ||
      !page.items.every((item) => ownIds.has(item.id))
    )
      throw new Error(`the reseller's page answered ${check.status}: ${JSON.stringify(page).slice(0, 300)}`);

    const auth = { authorization: `Bearer ${reseller.token}` };
    const targets = [
      { key: 'floor', label: "floor: GET /api/auth/me (the reseller's token)", url: `${panel.api}/auth/me` },
      { key: 'page', label: `GET /api/clients?perPage=${PER_PAGE} (the reseller's first page)`, url: pageUrl },
    ];
    const runs = { floor: [], page: [] };
    const problems = [];
    for (let round = 1; round <= settings.rounds; round++) {
      for (const target of targets) {
        process.stderr.write(
          `bench: round ${round}/${settings.rounds}, ${target.label}: ${settings.warmupSeconds}s warm-up + ${settings.durationSeconds}s at ${settings.connections} connections…\n`,
        );
        const result = await measureWithCpu(
          {
            url: target.url,
            headers: auth,
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
      targets,
      runs,
      seedSeconds,
      theirs,
      total,
      code: codeVersion(),
      postgres: await postgresVersion().catch(() => undefined),
      redis: await redisVersion(),
    });
    publishReport(report, { writeDoc, docFile, id: ID, title: TITLE });
    return { runs };
  } catch (error) {
    if (panel) await reportPanelEnd(panel);
    throw error;
  } finally {
    await scope.run();
  }
}

function render({ settings, machine, command, targets, runs, seedSeconds, theirs, total, code, postgres, redis }) {
  const pick = (key, f) => median(runs[key].map(f));
  const ratios = runs.page.map((r, i) => r.requestsPerSecond / runs.floor[i].requestsPerSecond);
  const ratio = median(ratios);
  const met = ratio >= TARGET_RATIO;
  const header = ['request', 'requests/s (median round)', 'rounds', 'ratio to floor', 'p50', 'p99', 'panel CPU'];
  const row = (t) => {
    const rs = runs[t.key];
    return [
      t.label,
      fixed(pick(t.key, (r) => r.requestsPerSecond)),
      rs.map((r) => fixed(r.requestsPerSecond)).join(' / '),
      t.key === 'floor' ? '1' : `${fixed(100 * ratio, 0)}% (${ratios.map((x) => `${fixed(100 * x, 0)}%`).join(' / ')})`,
      ms(pick(t.key, (r) => r.latency.p50)),
      ms(pick(t.key, (r) => r.latency.p99)),
      pct(pick(t.key, (r) => r.cpu.server)),
    ];
  };
  const verdict = `the reseller's first page at ${fixed(100 * ratio, 0)}% of the floor (target ≥ ${fixed(100 * TARGET_RATIO, 0)}%): ${met ? 'met' : 'MISSED'}`;
  const text = [
    `A reseller's first page: ${fixed(theirs)} of ${fixed(total)} clients, ${settings.connections} connections, ${settings.rounds} interleaved rounds of ${settings.durationSeconds} s:`,
    textTable(header, targets.map(row)),
    '',
    verdict,
  ].join('\n');
  const envShown = `BENCH_CLIENTS=${settings.clients} BENCH_RESELLER_SHARE=${settings.share} BENCH_CONNECTIONS=${settings.connections} BENCH_DURATION=${settings.durationSeconds} BENCH_WARMUP=${settings.warmupSeconds} BENCH_ROUNDS=${settings.rounds}`;
  const markdown = `
## ${TITLE}

The real panel (\`node dist/apps/controller/src/main.js\` with the flags \`npm start\` uses) in a child process on a fresh database: one interface on the local node (no agent), ${fixed(total)} clients inserted with SQL exactly as \`POST /api/clients\` makes them (${fixed(seedSeconds, 1)} s), every ${settings.share}th one (${fixed(theirs)}) owned by a reseller made through \`POST /api/admins\`. The reseller's first page of clients (\`GET /api/clients?perPage=${PER_PAGE}\`, newest first: their scope is a condition of the list's query, walking the \`(owner_id, created_at, id)\` index) under load, against the floor \`GET /api/auth/me\` (auth guard, NestJS, fastify, one PostgreSQL look-up), both with the reseller's API token, in interleaved rounds so both see the same machine.

- Command: \`BENCH_ONLY=reseller-list ${command ?? 'node bench/run.js'}\` (${envShown})
- Date: ${new Date().toISOString()}; code: ${code}
- Machine: ${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB RAM, ${machine.platform}; shared with other engineers' test runs (the ratio, not the absolute rate, is what carries over)
- Software: Node ${machine.node}, PostgreSQL ${postgres ?? 'unknown'} and Redis ${redis ?? 'unknown'} on the same machine; plain HTTP, \`WARREN_LOG_LEVEL=error\`

autocannon in a child process, ${settings.connections} connections, pipelining 1, ${settings.warmupSeconds} s warm-up then ${settings.durationSeconds} s measured per run; every response was a 200 (the run fails otherwise). Figures are the median over the rounds (each round's rate listed); the ratio is taken round by round (against the floor run just before it), then its median.

${markdownTable(header, targets.map(row))}

**${verdict}.**
`;
  return { text, markdown };
}
