// What a test run makes on the machine's shared servers, named so that one run's leftovers can be
// told from another's (several runs share the servers: other checkouts, CI), and removed.
// Plain JS: test/global-teardown.js (loaded by Node, no TypeScript) sweeps with it after the run;
// the test files' helpers (test-database.ts, test-panel.ts, netns.ts) name and clean with it.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import pg from 'pg';

const exec = promisify(execFile);
const hex = (length) =>
  randomBytes(Math.ceil(length / 2))
    .toString('hex')
    .slice(0, length);

/**
 * This run's id, made by test/global-setup.js (WARREN_TEST_RUN) and inherited by every test file
 * and the processes they start; a file run outside Jest's global setup gets one of its own.
 */
export const TEST_RUN = (process.env.WARREN_TEST_RUN ??= hex(6));

/** A Redis key prefix of this run (`w<kind>_<run>_<random>`), as WARREN_QUEUE_PREFIX. */
export function testQueuePrefix(kind = 't') {
  return `w${kind}_${TEST_RUN}_${hex(6)}`;
}

/** A PostgreSQL database name of this run. */
export function testDatabaseName() {
  return `warren_t_${TEST_RUN}_${hex(6)}`;
}

/** A network namespace name of this run. */
export function testNamespaceName(prefix = 'warren-t') {
  return `${prefix}-${TEST_RUN}-${hex(8)}`;
}

const runPrefixes = (run) => new RegExp(`^w[a-z0-9]*_${run}_[0-9a-f]+`);

function redisClient(url) {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: true });
  redis.on('error', () => undefined);
  return redis;
}

async function scanKeys(redis, match) {
  const keys = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', match, 'COUNT', 1000);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  return keys;
}

/**
 * Removes the keys under `prefix` (BullMQ's `<prefix>:…`; not with `keys: false`) and the agents'
 * ACL users made for it (`<prefix>-node-<id>`). Returns how many of each; a Redis that does not
 * answer (a test stopped it on purpose) counts none.
 */
export async function dropRedisPrefix(redisUrl, prefix, { keys: dropKeys = true } = {}) {
  const redis = redisClient(redisUrl);
  try {
    await redis.connect();
    // Users first: deleting one closes its connections, so an agent still running (stopped after
    // its panel) cannot write under the prefix once its keys are scanned (a key its queue worker
    // wrote between the scan and the users' removal outlived a test file in CI once).
    const users = (await redis.call('ACL', 'USERS')).filter((user) => user.startsWith(`${prefix}-node-`));
    if (users.length > 0) await redis.call('ACL', 'DELUSER', ...users);
    const keys = dropKeys ? await scanKeys(redis, `${prefix}:*`) : [];
    for (let i = 0; i < keys.length; i += 500) await redis.unlink(...keys.slice(i, i + 500));
    return { keys: keys.length, users: users.length };
  } catch {
    return { keys: 0, users: 0 };
  } finally {
    redis.disconnect();
  }
}

/** This run's keys and ACL users on the Redis at `redisUrl`. */
async function redisLeftovers(redisUrl, run, remove) {
  const redis = redisClient(redisUrl);
  try {
    await redis.connect();
    const pattern = runPrefixes(run);
    const keys = (await scanKeys(redis, `w*_${run}_*`)).filter((key) => pattern.test(key));
    const users = (await redis.call('ACL', 'USERS')).filter((user) => pattern.test(user));
    if (remove) {
      for (let i = 0; i < keys.length; i += 500) await redis.unlink(...keys.slice(i, i + 500));
      if (users.length > 0) await redis.call('ACL', 'DELUSER', ...users);
    }
    const prefixes = [...new Set(keys.map((key) => key.split(':')[0]))];
    // The keys themselves, a few: what wrote one after its file's cleanup is told by its name.
    const named = keys.toSorted().slice(0, 5).join(', ') + (keys.length > 5 ? ', …' : '');
    return [
      ...(keys.length ? [`${keys.length} Redis keys under ${prefixes.join(', ')} (${named})`] : []),
      ...(users.length ? [`Redis ACL users ${users.join(', ')}`] : []),
    ];
  } finally {
    redis.disconnect();
  }
}

/** This run's databases on the PostgreSQL server at `databaseUrl`. */
async function databaseLeftovers(databaseUrl, run, remove) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT datname FROM pg_database WHERE datname LIKE $1', [
      `warren\\_t\\_${run}\\_%`,
    ]);
    const names = rows.map((row) => row.datname);
    if (remove) for (const name of names) await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    return names.length ? [`databases ${names.join(', ')}`] : [];
  } finally {
    await client.end();
  }
}

/** This run's network namespaces (root only: others cannot make them), their processes ended first. */
async function namespaceLeftovers(run, remove) {
  if (process.getuid?.() !== 0) return [];
  const listed = await exec('ip', ['netns', 'list']).catch(() => ({ stdout: '' }));
  const names = listed.stdout
    .split('\n')
    .map((line) => line.split(' ')[0])
    .filter((name) => name && name.includes(`-${run}-`));
  if (remove) {
    for (const name of names) {
      const pids = (await exec('ip', ['netns', 'pids', name]).catch(() => ({ stdout: '' }))).stdout
        .split('\n')
        .filter(Boolean)
        .map(Number);
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      for (let waited = 0; pids.some(alive) && waited < 5000; waited += 50)
        await new Promise((resolve) => setTimeout(resolve, 50));
      await exec('ip', ['netns', 'del', name]).catch(() => undefined);
    }
  }
  return names.length ? [`network namespaces ${names.join(', ')}`] : [];
}

/** Alive and not a zombie waiting for its (possibly slow) reaper. */
export function alive(pid) {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/**
 * What run `run` left on the servers (one line per kind, empty when nothing); with `remove`, it
 * is removed too and the lines say what was.
 */
export async function leftoversOf(run, { databaseUrl, redisUrl, remove = false }) {
  return [
    ...(await redisLeftovers(redisUrl, run, remove)),
    ...(await databaseLeftovers(databaseUrl, run, remove)),
    ...(await namespaceLeftovers(run, remove)),
  ];
}
