import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The machine's PostgreSQL server (same default as the test suite). */
export const SERVER_DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

async function onServer(sql) {
  const client = new pg.Client({ connectionString: SERVER_DATABASE_URL });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

/**
 * A throw-away database for one bench run on the machine's PostgreSQL; dropped by `drop()`.
 * BENCH_DATABASE_TAG (lowercase letters, digits, _) goes into its name, so a kept one says whose it is.
 */
export async function createBenchDatabase() {
  const tag = process.env.BENCH_DATABASE_TAG ?? '';
  if (!/^[a-z0-9_]*$/.test(tag)) throw new Error(`BENCH_DATABASE_TAG must be [a-z0-9_]*, got "${tag}"`);
  const name = `warren_bench_${tag ? `${tag}_` : ''}${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  await onServer(`CREATE DATABASE ${name}`);
  const url = new URL(SERVER_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: () => onServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

export async function postgresVersion() {
  const [row] = await onServer('SHOW server_version');
  return row?.server_version;
}
