import pg from 'pg';
import { SERVER_DATABASE_URL } from './environment.js';
import { testDatabaseName } from './leftovers.js';

/**
 * A database of its own for one test file, on the real PostgreSQL server; dropped afterwards (and
 * by test/global-teardown.js when a file did not: its name carries the run's id).
 */
export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

async function onServer(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: SERVER_DATABASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const name = testDatabaseName();
  await onServer(`CREATE DATABASE ${name}`);
  const url = new URL(SERVER_DATABASE_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), name, drop: () => onServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
