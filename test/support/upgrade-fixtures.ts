import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from './test-database.js';

/**
 * The upgrade fixtures (test/fixtures/upgrade/): one database per schema the panel has had since
 * they began, each a `pg_dump` made by scripts/make-upgrade-fixture.js (`npm run fixture:upgrade`)
 * with the API's answers of that build beside it. docs/operations.md, "Upgrading".
 */
export const UPGRADE_FIXTURES = new URL('../fixtures/upgrade/', import.meta.url).pathname;

/** What the maker recorded beside a dump: test-only credentials and the answers to expect again. */
export interface UpgradeManifest {
  /** The last migration of the build that made it, and all of them (absent before they were recorded). */
  schema: string;
  migrations?: string[];
  /** The commit that made it. */
  build?: string;
  owner: { username: string; password: string };
  users: Record<string, { id: string; username: string; password: string; role: string }>;
  apiTokens: { id: string; name: string; token: string }[];
  nodeId: string;
  answers: {
    clients: Record<string, any>;
    configs: Record<string, any>;
    [route: string]: any;
  };
}

export interface UpgradeFixture {
  /** `<number of migrations>-<last migration>` of the build that made it (the files' name). */
  name: string;
  sql: string;
  manifest: UpgradeManifest;
}

/** Every committed fixture, oldest schema first (by how many migrations its build had). */
export function upgradeFixtures(): UpgradeFixture[] {
  return readdirSync(UPGRADE_FIXTURES)
    .filter((name) => name.endsWith('.sql'))
    .sort()
    .map((name) => {
      const stem = name.slice(0, -'.sql'.length);
      return {
        name: stem,
        sql: join(UPGRADE_FIXTURES, name),
        manifest: JSON.parse(readFileSync(join(UPGRADE_FIXTURES, `${stem}.json`), 'utf8')) as UpgradeManifest,
      };
    });
}

/**
 * A fresh test database holding the fixture as its build left it. The dump is plain SQL; psql's
 * own commands in it (`\restrict`, which pg_dump adds since 15.14) are psql's, not the server's,
 * so they are left out and the rest runs as one simple query: no psql needed on the machine.
 */
export async function restoreFixture(fixture: UpgradeFixture): Promise<TestDatabase> {
  const sql = readFileSync(fixture.sql, 'utf8')
    .split('\n')
    .filter((line) => !line.startsWith('\\'))
    .join('\n');
  const database = await createTestDatabase();
  const client = new pg.Client({ connectionString: database.url });
  try {
    await client.connect();
    await client.query(sql);
  } catch (error) {
    await database.drop();
    throw error;
  } finally {
    await client.end();
  }
  return database;
}

/** A table's rows keyed by primary key (JSON-normalised: dates as ISO text, bigints as text). */
export type TableRows = Map<string, Record<string, unknown>>;

/** Every row of each table, by primary key; a table the database lacks is absent from the answer. */
export async function readTables(url: string, tables: readonly string[]): Promise<Map<string, TableRows>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const found = new Map<string, TableRows>();
    for (const table of tables) {
      const { rows: keyColumns } = await client.query<{ column: string }>(
        `select a.attname as column from pg_index i
           join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
          where i.indrelid = to_regclass($1) and i.indisprimary order by a.attname`,
        [`public.${table}`],
      );
      if (keyColumns.length === 0) continue;
      const { rows } = await client.query(`select * from public.${table}`);
      const byKey: TableRows = new Map();
      for (const row of rows) {
        const normal = JSON.parse(JSON.stringify(row)) as Record<string, unknown>;
        byKey.set(keyColumns.map(({ column }) => String(normal[column])).join('|'), normal);
      }
      found.set(table, byKey);
    }
    return found;
  } finally {
    await client.end();
  }
}

/**
 * What of `before` is not in `after`, row by row: a missing table or row, a column gone or a value
 * changed, unless `moved` names the column (`table.column`, with where its data went said beside
 * it) or `changing` does (the panel rewrites it on its own). Empty when all is kept.
 */
export function lostRows(
  before: Map<string, TableRows>,
  after: Map<string, TableRows>,
  { moved = {}, changing = [] }: { moved?: Record<string, string>; changing?: readonly string[] } = {},
): string[] {
  const lost: string[] = [];
  for (const [table, rows] of before) {
    const now = after.get(table);
    if (!now) {
      lost.push(`table ${table} is gone`);
      continue;
    }
    for (const [key, row] of rows) {
      const later = now.get(key);
      if (!later) {
        lost.push(`${table} ${key} is gone`);
        continue;
      }
      for (const [column, value] of Object.entries(row)) {
        const name = `${table}.${column}`;
        if (!(column in later)) {
          if (!(name in moved)) lost.push(`${name} is gone (row ${key})`);
        } else if (
          !changing.includes(name) &&
          !(name in moved) &&
          JSON.stringify(later[column]) !== JSON.stringify(value)
        ) {
          lost.push(`${name} of ${key}: ${JSON.stringify(value)} became ${JSON.stringify(later[column])}`);
        }
      }
    }
  }
  return lost;
}
