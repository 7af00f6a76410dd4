// HTTP: an authenticated GET on the real panel against a bare fastify handler, same process, same load.
import Fastify from 'fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { builtFile } from './lib/child.js';
import { cleanupScope } from './lib/cleanup.js';
import { createBenchDatabase, postgresVersion, REDIS_URL } from './lib/database.js';
import { loadFailures, measureWithCpu } from './lib/client-process.js';
import { describeMachine } from './lib/machine.js';
import { apiClient, BENCH_OWNER, issueApiToken, signIn } from './lib/panel-process.js';
import { backgroundBusy } from './lib/proc-stats.js';
import { dropRedisPrefix, redisVersion } from './lib/redis-cleanup.js';
import { fixed, latencyMs as ms, markdownTable, percent as pct, textTable, writeSection } from './lib/report.js';
import { envNumber } from './lib/settings.js';

export const ID = 'http-auth';
export const TITLE = 'HTTP: authenticated GET vs bare fastify';

/** The smoke size (`npm run bench:smoke`, CI): every phase once, in seconds; nothing recorded. */
export const SMOKE = { BENCH_DURATION: '1', BENCH_WARMUP: '0', BENCH_ROUNDS: '1', BENCH_CONNECTIONS: '2' };

const number = (name, fallback, min) => envNumber(name, fallback, min, { integer: false });

export function settingsFromEnv() {
  const mode = process.env.BENCH_CLIENT ?? 'process';
  if (!['process', 'inline'].includes(mode))
    throw new Error(`BENCH_CLIENT must be "process" or "inline", got "${mode}"`);
  const targets = (process.env.BENCH_TARGETS ?? 'bare,token,session')
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  for (const t of targets)
    if (!['bare', 'token', 'session'].includes(t)) throw new Error(`BENCH_TARGETS: unknown target "${t}"`);
  return {
    durationSeconds: number('BENCH_DURATION', 10, 1),
    warmupSeconds: number('BENCH_WARMUP', 2, 0),
    connections: number('BENCH_CONNECTIONS', 16, 1),
    pipelining: number('BENCH_PIPELINING', 1, 1),
    rounds: number('BENCH_ROUNDS', 3, 1),
    mode,
    targets,
  };
}

const LABELS = {
  bare: 'bare fastify, same process',
  token: 'panel, API token (`wrn_…`)',
  session: 'panel, session token',
};

/** A plain fetch with the answer parsed: for the bare handler, which is not the panel's API. */
async function json(url, init) {
  const response = await fetch(url, init);
  const text = await response.text();
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: response.status, body };
}

/**
 * Starts the real panel (from dist) in this process, so that it and the bare handler share one
 * process and one load, on its own database and Redis prefix; `scope` undoes all of it.
 */
async function startBenchPanel(scope) {
  const { startPanel } = await import(pathToFileURL(builtFile('apps/controller/src/panel.js')).href);
  const { loadConfig } = await import(pathToFileURL(builtFile('apps/controller/src/config/config.js')).href);
  const database = await createBenchDatabase();
  scope.add(`drop database ${database.name}`, () => database.drop());
  const dataDir = mkdtempSync(join(tmpdir(), 'warren-bench-'));
  scope.add('data directory', () => rmSync(dataDir, { recursive: true, force: true }));
  const queuePrefix = `wb${randomBytes(4).toString('hex')}`;
  scope.add(`Redis prefix ${queuePrefix}`, () => dropRedisPrefix(queuePrefix));
  const config = loadConfig({
    WARREN_DATA_DIR: dataDir,
    WARREN_HOST: '127.0.0.1',
    WARREN_PORT: '0',
    WARREN_TLS: 'off',
    DATABASE_URL: database.url,
    REDIS_URL,
    WARREN_QUEUE_PREFIX: queuePrefix,
    WARREN_ADMIN_USERNAME: BENCH_OWNER.username,
    WARREN_ADMIN_PASSWORD: BENCH_OWNER.password,
    // BENCH_LOG_LEVEL=log measures with a JSON line per request (the panel's default level).
    WARREN_LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'error',
    WARREN_LOG_FORMAT: 'json',
    WARREN_LOCAL_AGENT: 'off',
    // No periodic hop checks: a bench sends nothing off this machine (docs/testing.md).
    WARREN_HOP_CHECKS: 'off',
  });
  const panel = await startPanel(config);
  scope.add('panel', () => panel.close());
  return {
    origin: `${panel.origin}${config.basePath}`,
    api: `${panel.origin}${config.basePath}/api`,
    apiPath: `${config.basePath}/api`,
  };
}

/**
 * Signs in and issues an API token through the public API (the typed client), exactly as an
 * operator would, and checks that GET /api/auth/me tells the two credentials apart.
 */
async function credentials(panel) {
  const api = apiClient(panel, 1);
  try {
    await signIn(api);
    const session = api.token;
    const apiToken = await issueApiToken(api, 'bench');
    const me = async (token, via) => {
      api.token = token;
      const answer = await api.timed(() => api.client.GET('/api/auth/me'));
      if (answer.status !== 200 || answer.body.via !== via)
        throw new Error(
          `GET /api/auth/me with the ${via === 'token' ? 'API token' : via}: ${answer.status} ${JSON.stringify(answer.body)}`,
        );
      return answer.body;
    };
    const tokenMe = await me(apiToken, 'token');
    await me(session, 'session');
    return { session, apiToken, me: tokenMe };
  } finally {
    api.close();
  }
}

async function startBare(body) {
  const bare = Fastify({ logger: false });
  bare.get('/api/auth/me', async () => body);
  await bare.listen({ host: '127.0.0.1', port: 0 });
  const { port } = bare.server.address();
  return { url: `http://127.0.0.1:${port}/api/auth/me`, close: () => bare.close() };
}

/** One measured load run with CPU accounting for this process (both servers), the client and the whole machine. */
function measureTarget(target, settings) {
  const ownCpuMs = () => {
    const used = process.cpuUsage();
    return (used.user + used.system) / 1000;
  };
  return measureWithCpu(
    {
      url: target.url,
      headers: target.headers,
      connections: settings.connections,
      pipelining: settings.pipelining,
      warmupSeconds: settings.warmupSeconds,
      durationSeconds: settings.durationSeconds,
    },
    { mode: settings.mode, serverCpuMs: ownCpuMs },
  );
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export async function run({ writeDoc = true, docFile, command } = {}) {
  const settings = settingsFromEnv();
  const machine = describeMachine();
  const scope = cleanupScope('the http-auth run');
  try {
    const panel = await startBenchPanel(scope);
    const { session, apiToken, me } = await credentials(panel);
    const meUrl = `${panel.api}/auth/me`;
    // The bare handler answers the very same JSON the panel does, so only the work behind it differs.
    const bare = await startBare(me);
    scope.add('bare fastify', () => bare.close());
    const check = await json(bare.url);
    if (check.status !== 200) throw new Error(`bare fastify answered ${check.status}`);

    // The load runs stay raw HTTP: autocannon drives its own sockets (not the typed client).
    const targets = {
      bare: { url: bare.url, headers: {} },
      token: { url: meUrl, headers: { authorization: `Bearer ${apiToken}` } },
      session: { url: meUrl, headers: { authorization: `Bearer ${session}` } },
    };
    // CPU the machine spends with nothing of ours under load, over one second.
    const background = await backgroundBusy(1000);
    if (background !== undefined && background > 20) {
      process.stderr.write(
        `bench: warning: the machine is already ${Math.round(background)}% busy (of one core) before the load starts; figures will be noisy\n`,
      );
    }
    const rounds = Object.fromEntries(settings.targets.map((t) => [t, []]));
    const problems = [];
    for (let round = 1; round <= settings.rounds; round++) {
      for (const name of settings.targets) {
        process.stderr.write(
          `bench: ${name}${settings.rounds > 1 ? ` (round ${round}/${settings.rounds})` : ''}: ${settings.warmupSeconds}s warm-up + ${settings.durationSeconds}s…\n`,
        );
        const result = await measureTarget(targets[name], settings);
        problems.push(...loadFailures(name, result));
        rounds[name].push(result);
      }
    }
    if (problems.length) throw new Error(`responses other than 2xx during the benchmark:\n  ${problems.join('\n  ')}`);

    // With several rounds, each target is represented by its median round (by requests/s).
    const chosen = Object.fromEntries(
      Object.entries(rounds).map(([name, list]) => {
        const mid = median(list.map((r) => r.requestsPerSecond));
        return [
          name,
          { ...list.find((r) => r.requestsPerSecond === mid), all: list.map((r) => r.requestsPerSecond), rounds: list },
        ];
      }),
    );
    const report = render({
      settings,
      machine,
      chosen,
      command,
      background,
      postgres: await postgresVersion().catch(() => undefined),
      redis: await redisVersion(),
    });
    console.log(`\n${report.text}\n`);
    if (writeDoc && docFile) {
      if (['bare', 'token', 'session'].every((t) => settings.targets.includes(t))) {
        writeSection(docFile, ID, report.markdown);
        console.log(`bench: wrote section "${TITLE}" of ${docFile}`);
      } else {
        console.log(`bench: BENCH_TARGETS is a subset, ${docFile} left as it was`);
      }
    }
    return chosen;
  } finally {
    await scope.run();
  }
}

function render({ settings, machine, chosen, command, background, postgres, redis }) {
  const bareRps = chosen.bare?.requestsPerSecond;
  const ratio = (r) => (bareRps ? r.requestsPerSecond / bareRps : undefined);
  const names = settings.targets;
  const header = [
    'target',
    'requests/s (avg)',
    'latency p50',
    'latency p99',
    'panel/bare',
    'server CPU',
    'client CPU',
    'rest of machine CPU',
  ];
  const row = (name, label) => {
    const r = chosen[name];
    const q = ratio(r);
    const spread = r.all.length > 1 ? ` (${fixed(Math.min(...r.all))}–${fixed(Math.max(...r.all))})` : '';
    return [
      label,
      `${fixed(r.requestsPerSecond)}${spread}`,
      ms(r.latency.p50),
      ms(r.latency.p99),
      name === 'bare' || q === undefined ? '–' : `${q.toFixed(3)} (${(q * 100).toFixed(1)}%)`,
      pct(r.cpu.server),
      pct(r.cpu.client),
      pct(r.cpu.rest),
    ];
  };
  const text = textTable(
    header,
    names.map((n) => row(n, LABELS[n].replace(/`/g, ''))),
  );
  if (!chosen.bare || !chosen.token || !chosen.session) return { text };

  const b = chosen.bare;
  const roundRatios = (name) =>
    chosen[name].rounds
      .map((r, i) => (r.requestsPerSecond / chosen.bare.rounds[i].requestsPerSecond).toFixed(3))
      .join(', ');
  const panelDbBound = (chosen.token.cpu.rest ?? 0) > chosen.token.cpu.server;
  const noisy = (background ?? 0) > 20 || (b.cpu.rest ?? 0) > 30;
  const clientBound = b.cpu.client !== undefined && b.cpu.client >= 85;
  const serverBound = b.cpu.server >= 85;
  const envShown = `BENCH_DURATION=${settings.durationSeconds} BENCH_WARMUP=${settings.warmupSeconds} BENCH_CONNECTIONS=${settings.connections} BENCH_PIPELINING=${settings.pipelining} BENCH_ROUNDS=${settings.rounds} BENCH_CLIENT=${settings.mode}`;
  const markdown = `
## ${TITLE}

\`GET /api/auth/me\` on the real panel (NestJS 12 on fastify: global auth guard with one PostgreSQL look-up per request, validation pipe, error filter), once with an API token and once with a session token, against a bare fastify handler in the same process returning the same JSON. Each target gets a ${settings.warmupSeconds} s warm-up, then ${settings.durationSeconds} s measured with autocannon: ${settings.connections} connections, pipelining ${settings.pipelining}${settings.rounds > 1 ? `, ${settings.rounds} interleaved rounds (median round shown, min–max in brackets)` : ''}. Every measured response was a 200 (the run fails otherwise).

- Command: \`${command}\` (${envShown})
- Date: ${new Date().toISOString()}
- Machine: ${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB RAM, ${machine.platform}
- Software: Node ${machine.node}, PostgreSQL ${postgres ?? '?'} and Redis ${redis ?? '?'} on the same machine (over TCP to 127.0.0.1); plain HTTP (\`WARREN_TLS=off\`), log level error
- Load client: ${settings.mode === 'process' ? 'autocannon in a child Node process (its own event loop), the same for every target' : "autocannon on the server's own event loop (`BENCH_CLIENT=inline`: distorts both figures; for comparison only)"}

${markdownTable(
  header,
  names.map((n) => row(n, LABELS[n])),
)}

**Ratio panel/bare: ${ratio(chosen.token).toFixed(3)} with an API token, ${ratio(chosen.session).toFixed(3)} with a session token.**${settings.rounds > 1 ? ` Round by round (each panel run against the bare run of the same round): API token ${roundRatios('token')}; session ${roundRatios('session')}.` : ''}

CPU columns are per cent of one core over the measured run (the machine has ${machine.cores * 100}% in all): the Node process holding both servers, the load client, and everything else busy on the machine meanwhile (PostgreSQL and Redis for the panel, the kernel's loopback work, and anything unrelated running on the box).

How honest these numbers are:
- The ${machine.cores} cores are shared by the server process, the load client${settings.mode === 'process' ? " (a separate process, so at least it does not share the server's event loop)" : ''} and PostgreSQL. The panel's figure pays for PostgreSQL's CPU for the per-request credential look-up on the same cores; on a real deployment the database usually has cores (or a machine) of its own, so the panel would do better there, and the bare handler would gain from a client on another machine too.
- ${clientBound ? `For the bare handler the client used ${pct(b.cpu.client)} of a core while the server used ${pct(b.cpu.server)}: the load generator, not fastify, is the limit, so the bare figure is a *lower* bound of what fastify can do and the ratio *flatters* the panel.` : serverBound ? `For the bare handler the server used ${pct(b.cpu.server)} of a core (the client ${pct(b.cpu.client)}): fastify's single event loop was close to the limit, so the bare figure is a fair ceiling for one process on this machine${b.cpu.client >= 60 ? ', though with the client on a machine of its own it would still rise a little' : ''}.` : `For the bare handler neither side saturated a core (server ${pct(b.cpu.server)}, client ${pct(b.cpu.client)}): the machine as a whole (or scheduling between the processes) was the limit.`}
- ${panelDbBound ? `For the panel, the rest of the machine (PostgreSQL answering the per-request credential look-up, plus Redis) used ${pct(chosen.token.cpu.rest)} of a core against the panel process's own ${pct(chosen.token.cpu.server)}: the database look-up, not Nest's request pipeline, sets the panel's pace on this machine.` : `For the panel, the process itself used ${pct(chosen.token.cpu.server)} of a core and the rest of the machine (mostly PostgreSQL) ${pct(chosen.token.cpu.rest)}.`}
- ${noisy ? `**This run was disturbed**: the machine was ${pct(background)} busy before the load started and the bare run's "rest of machine" was ${pct(b.cpu.rest)} (it should be near zero: nothing else is involved in serving it). Something else was running; treat these figures as low and re-run on a quiet machine.` : `Background load before the run was ${pct(background)} of a core, and the bare run's "rest of machine" ${pct(b.cpu.rest)}: the machine was otherwise quiet.`}
- Loopback only: no TLS, no network latency, a one-row working set. These are upper bounds for this code path, not a capacity statement; compare runs on the same machine only.
`;
  return { text, markdown };
}
