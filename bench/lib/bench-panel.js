import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createBenchDatabase, REDIS_URL, SERVER_DATABASE_URL } from './database.js';
import { startPanelProcess } from './panel-process.js';
import { dropRedisPrefix } from './redis-cleanup.js';
import { writeSection } from './report.js';

/**
 * What a bench's panel stands on, each piece undone by `scope`: a data directory
 * (`warren-bench-<tag>-*`), a Redis key prefix (`<prefix><8 hex>`: its keys and the per-node ACL
 * users go) and a database of its own (kept with BENCH_KEEP_DATABASE=1, to look at afterwards or
 * to run on again with BENCH_REUSE_DATABASE=<its name>).
 */
export async function benchPlace(scope, { tag, prefix }) {
  const dataDir = mkdtempSync(join(tmpdir(), `warren-bench-${tag}-`));
  scope.add('data directory', () => rmSync(dataDir, { recursive: true, force: true }));
  const queuePrefix = `${prefix}${randomBytes(4).toString('hex')}`;
  scope.add(`Redis keys and ACL users of ${queuePrefix}`, async () => {
    const { users } = await dropRedisPrefix(queuePrefix);
    if (users) process.stderr.write(`bench: removed ${users} Redis ACL users ${queuePrefix}-node-*\n`);
  });
  // A database kept by an earlier run (BENCH_KEEP_DATABASE=1) to measure again without seeding it
  // again; the panel migrates it on start, and it stays afterwards.
  const reused = process.env.BENCH_REUSE_DATABASE;
  if (reused) {
    if (!/^warren_bench_[a-z0-9_]+$/.test(reused))
      throw new Error(`BENCH_REUSE_DATABASE must name a bench database (warren_bench_…), got "${reused}"`);
    const url = new URL(SERVER_DATABASE_URL);
    url.pathname = `/${reused}`;
    return { dataDir, queuePrefix, database: { name: reused, url: url.toString(), reused: true } };
  }
  const database = await createBenchDatabase();
  scope.add(`drop database ${database.name}`, async () => {
    if (process.env.BENCH_KEEP_DATABASE === '1')
      console.error(
        `bench: kept the database ${database.name} (BENCH_KEEP_DATABASE=1): drop it with DROP DATABASE ${database.name}`,
      );
    else await database.drop();
  });
  return { dataDir, queuePrefix, database };
}

/**
 * The panel as `npm start` runs it, in its own process on a `benchPlace`, with the machine's Redis
 * and no local agent (it would apply on this host: a bench's nodes are its own); `scope` stops it.
 */
export async function startBenchPanel(scope, { tag, prefix, env = {} }) {
  const place = await benchPlace(scope, { tag, prefix });
  process.stderr.write(`bench: starting the panel (database ${place.database.name})…\n`);
  const panel = await startPanelProcess({
    databaseUrl: place.database.url,
    redisUrl: REDIS_URL,
    queuePrefix: place.queuePrefix,
    dataDir: place.dataDir,
    env: { WARREN_LOCAL_AGENT: 'off', ...env },
  });
  scope.add('panel', () => panel.stop());
  return { panel, ...place };
}

/** Prints a bench's report and, unless BENCH_WRITE=0 asked not to, writes its section of the doc. */
export function publishReport(report, { writeDoc, docFile, id, title }) {
  console.log(`\n${report.text}\n`);
  if (writeDoc && docFile) {
    writeSection(docFile, id, report.markdown);
    console.log(`bench: wrote section "${title}" of ${docFile}`);
  }
}

/**
 * The interface a bench's clients live on, made through the API on the local node (no agent builds
 * it: the benches run with WARREN_LOCAL_AGENT=off), with an endpoint that sends nothing anywhere.
 */
export async function benchInterface(api, { name = 'wgbench', listenPort, subnet }) {
  return api.expect(
    201,
    api.client.POST('/api/interfaces', {
      body: { name, mode: 'standard', listenPort, subnet, endpointHost: 'vpn.bench.example' },
    }),
  );
}

/** A PostgreSQL connection to the bench's database, for seeding and reading; `scope` ends it. */
export async function benchDatabaseClient(scope, database) {
  const db = new pg.Client({ connectionString: database.url });
  await db.connect();
  scope.add('database client', () => db.end());
  return db;
}
