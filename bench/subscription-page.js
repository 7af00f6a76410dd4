// The public subscription page at scale: the real panel in a child process, 100,000 clients (each
// with its device, account and subscription link) inserted with SQL as the panel makes them, then
// the page a customer opens (GET <base>/sub/{token}: HTML with the config's QR code) and the file
// an app fetches (?format=conf) under load, against GET /api/auth/me (the auth + framework floor)
// in the same run, rounds interleaved so all see the same machine.
//
// Settings (environment): BENCH_CLIENTS (100000), BENCH_CONNECTIONS (8), BENCH_DURATION (10) and
// BENCH_WARMUP (2) seconds per load run, BENCH_ROUNDS (3), BENCH_WRITE=0 (print only),
// DATABASE_URL / REDIS_URL (the machine's servers; a throw-away database is created and dropped).
import { pathToFileURL } from 'node:url';
import { builtFile } from './lib/child.js';
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

export const ID = 'subscription-page-100k';
export const TITLE = 'Subscription page: GET /sub/{token} at 100,000 clients';

/** The smoke size (`npm run bench:smoke`, CI): every phase once, in seconds; nothing recorded. */
export const SMOKE = {
  BENCH_CLIENTS: '100',
  BENCH_DURATION: '1',
  BENCH_WARMUP: '0',
  BENCH_ROUNDS: '1',
  BENCH_CONNECTIONS: '2',
};

/** The issue's target: the page at no less than this share of the floor's throughput. */
const TARGET_RATIO = 0.25;
const SUBNET = '10.64.0.0/14';
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

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];

/** Client i: a quota on 40% of them, an expiry on 40%. */
function clientSpec(i, now) {
  const spec = { name: `client-${String(i).padStart(6, '0')}`, deviceLimit: 1 };
  if (i % 5 < 2) spec.quotaBytes = [10, 50, 100, 500][i % 4] * GIB;
  if (i % 5 >= 3) spec.expiresAt = new Date(now + (1 + (i % 365)) * DAY_MS).toISOString();
  return spec;
}

/** Every client gets a link as GET /api/clients/{id}/subscription makes it (the panel's key, a nonce, the token's hash). */
async function giveLinks(db) {
  const { subscriptionToken, hashToken, newNonce } = await import(
    pathToFileURL(builtFile('apps/controller/src/subscriptions/subscription-token.js')).href
  );
  const [{ value: key }] = (await db.query(`select value from settings where key = 'subscriptionKey'`)).rows;
  const ids = (await db.query('select id from clients where sub_nonce is null')).rows.map((row) => row.id);
  for (let start = 0; start < ids.length; start += 10_000) {
    const batch = ids.slice(start, start + 10_000);
    const nonces = batch.map(() => newNonce());
    const hashes = batch.map((id, i) => hashToken(subscriptionToken(key, id, nonces[i])));
    await db.query(
      `update clients c set sub_nonce = v.nonce, sub_token_hash = v.hash
         from unnest($1::uuid[], $2::text[], $3::text[]) as v(id, nonce, hash) where c.id = v.id`,
      [batch, nonces, hashes],
    );
  }
  // Fresh statistics for every table the page reads, as autovacuum keeps them on a live panel.
  for (const table of ['clients', 'devices', 'accounts', 'client_interfaces', 'interfaces', 'hosts'])
    await db.query(`vacuum (analyze) ${table}`);
}

export async function run({ writeDoc = true, docFile, command } = {}) {
  const settings = settingsFromEnv();
  const machine = describeMachine();
  const now = Date.now();
  const scope = cleanupScope('the subscription page run (stopping the panel, dropping its database)');
  let panel;
  try {
    let database;
    ({ panel, database } = await startBenchPanel(scope, { tag: 'sub', prefix: 'wbs' }));
    const api = apiClient(panel, 4);
    scope.add('http agent', () => api.close());
    await signIn(api);
    api.token = await issueApiToken(api, 'bench-subscription');
    const iface = await benchInterface(api, { listenPort: 51999, subnet: SUBNET });
    const db = await benchDatabaseClient(scope, database);

    const seedStarted = performance.now();
    for (let start = 0; start < settings.clients; start += 2000) {
      const specs = [];
      for (let i = start; i < Math.min(settings.clients, start + 2000); i++) specs.push(clientSpec(i, now));
      await insertClients(db, { iface: { id: iface.id, nodeId: iface.nodeId }, subnet: SUBNET, specs });
    }
    // The customer measured: one in the middle, with traffic and an expiry; its link from the API.
    const [customer] = (
      await db.query(`select id, name from clients order by created_at offset $1 limit 1`, [
        Math.floor(settings.clients / 2),
      ])
    ).rows;
    await db.query(
      `update clients set quota_bytes = $2, used_bytes = $3, up_bytes = $4, down_bytes = $5, expires_at = $6 where id = $1`,
      [customer.id, 50 * GIB, 12 * GIB, 2 * GIB, 10 * GIB, new Date(now + 30 * DAY_MS)],
    );
    const link = await api.expect(
      200,
      api.client.GET('/api/clients/{id}/subscription', { params: { path: { id: customer.id } } }),
    );
    process.stderr.write('bench: giving every client a subscription link with SQL…\n');
    await giveLinks(db);
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    const [{ links }] = (await db.query('select count(sub_token_hash)::int as links from clients')).rows;

    const first = await fetch(link.url);
    const html = await first.text();
    if (first.status !== 200 || !html.includes(customer.name) || !html.includes('<img class="qr"')) {
      throw new Error(`the page answered ${first.status}: ${html.slice(0, 300)}`);
    }
    const conf = await fetch(`${link.url}?format=conf`);
    const confText = await conf.text();
    if (conf.status !== 200 || !confText.startsWith('[Interface]')) {
      throw new Error(`?format=conf answered ${conf.status}: ${confText.slice(0, 300)}`);
    }

    const targets = [
      { key: 'floor', label: 'floor: GET /api/auth/me', url: `${panel.api}/auth/me`, auth: true },
      { key: 'page', label: 'GET /sub/{token} (the page, HTML + QR)', url: link.url },
      { key: 'conf', label: 'GET /sub/{token}?format=conf', url: `${link.url}?format=conf` },
    ];
    const runs = { floor: [], page: [], conf: [] };
    const problems = [];
    for (let round = 1; round <= settings.rounds; round++) {
      for (const target of targets) {
        process.stderr.write(
          `bench: round ${round}/${settings.rounds}, ${target.label}: ${settings.warmupSeconds}s warm-up + ${settings.durationSeconds}s at ${settings.connections} connections…\n`,
        );
        const result = await measureWithCpu(
          {
            url: target.url,
            headers: target.auth ? { authorization: `Bearer ${api.token}` } : {},
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
      links,
      pageBytes: Buffer.byteLength(html),
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

function render({ settings, machine, command, targets, runs, seedSeconds, links, pageBytes, code, postgres, redis }) {
  const pick = (key, f) => median(runs[key].map(f));
  const ratiosOf = (key) => runs[key].map((r, i) => r.requestsPerSecond / runs.floor[i].requestsPerSecond);
  const ratio = median(ratiosOf('page'));
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
  ];
  const row = (t) => {
    const rs = runs[t.key];
    const ratios = t.key === 'floor' ? [] : ratiosOf(t.key);
    return [
      t.label,
      fixed(pick(t.key, (r) => r.requestsPerSecond)),
      rs.map((r) => fixed(r.requestsPerSecond)).join(' / '),
      t.key === 'floor'
        ? '1'
        : `${fixed(100 * median(ratios), 0)}% (${ratios.map((x) => `${fixed(100 * x, 0)}%`).join(' / ')})`,
      ms(pick(t.key, (r) => r.latency.p50)),
      ms(pick(t.key, (r) => r.latency.p99)),
      pct(pick(t.key, (r) => r.cpu.server)),
      pct(pick(t.key, (r) => r.cpu.rest ?? 0)),
    ];
  };
  const verdict = `the page at ${fixed(100 * ratio, 0)}% of the floor (target ≥ ${fixed(100 * TARGET_RATIO, 0)}%): ${met ? 'met' : 'MISSED'}`;
  const text = [
    `GET /sub/{token} at ${fixed(settings.clients)} clients, ${settings.connections} connections, ${settings.rounds} interleaved rounds of ${settings.durationSeconds} s:`,
    textTable(header, targets.map(row)),
    '',
    verdict,
  ].join('\n');
  const envShown = `BENCH_CLIENTS=${settings.clients} BENCH_CONNECTIONS=${settings.connections} BENCH_DURATION=${settings.durationSeconds} BENCH_WARMUP=${settings.warmupSeconds} BENCH_ROUNDS=${settings.rounds}`;
  const markdown = `
## ${TITLE}

The real panel (\`node dist/apps/controller/src/main.js\` with the flags \`npm start\` uses) in a child process on a fresh database: one interface on the local node (no agent), ${fixed(settings.clients)} clients inserted with SQL exactly as \`POST /api/clients\` makes them, each given a subscription link as \`GET /api/clients/{id}/subscription\` makes it (${fixed(links)} links; ${fixed(seedSeconds, 1)} s in all). One customer's public page (no credentials: the token is looked up by its hash, the address's throttle read in the same query, the config rendered and drawn as an inline SVG QR code; ${fixed(pageBytes)} bytes of HTML) and its \`?format=conf\` file under load, against the floor \`GET /api/auth/me\` (auth guard, NestJS, fastify, one PostgreSQL look-up) with an API token, in interleaved rounds so all see the same machine.

- Command: \`BENCH_ONLY=subscription-page ${command ?? 'node bench/run.js'}\` (${envShown})
- Date: ${new Date().toISOString()}; code: ${code}
- Machine: ${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB RAM, ${machine.platform}; shared with other engineers' test runs (the ratio, not the absolute rate, is what carries over)
- Software: Node ${machine.node}, PostgreSQL ${postgres ?? 'unknown'} and Redis ${redis ?? 'unknown'} on the same machine; plain HTTP, \`WARREN_LOG_LEVEL=error\`

autocannon in a child process, ${settings.connections} connections, pipelining 1, ${settings.warmupSeconds} s warm-up then ${settings.durationSeconds} s measured per run; every response was a 200 (the run fails otherwise). Figures are the median over the rounds (each round's rate listed); the ratio is taken round by round (against the floor run just before it), then its median.

${markdownTable(header, targets.map(row))}

**${verdict}.**
`;
  return { text, markdown };
}
