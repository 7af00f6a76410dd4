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

async function onServer(sql: string, server = SERVER_DATABASE_URL): Promise<void> {
  const client = new pg.Client({ connectionString: server });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** On the shared server, or on `server` (the URL of any database there: a private server of the test's own). */
export async function createTestDatabase(server = SERVER_DATABASE_URL): Promise<TestDatabase> {
  const name = testDatabaseName();
  await onServer(`CREATE DATABASE ${name}`, server);
  const url = new URL(server);
  url.pathname = `/${name}`;
  return { url: url.toString(), name, drop: () => onServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`, server) };
}

/** The tables in a database's public schema, sorted: what a command created or left there. */
export async function publicTables(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      `select table_name as name from information_schema.tables where table_schema = 'public' order by 1`,
    );
    return rows.map((row) => row.name);
  } finally {
    await client.end();
  }
}

/** Runs one statement on a database (a test setting up a database no panel made). */
export async function execute(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Whether the server has a database of this name. */
export async function databaseExists(name: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: SERVER_DATABASE_URL });
  await client.connect();
  try {
    return (await client.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1;
  } finally {
    await client.end();
  }
}
