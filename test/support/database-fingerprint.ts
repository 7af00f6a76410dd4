import pg from 'pg';
import type { TestPanel } from './test-panel.js';

/**
 * Digests of every row of every table of a panel's database, per table, to prove that a refused
 * request changed nothing. `volatile` names what changes on its own or by design on any request
 * (a table, or `table.column`): the panel's own history samples, the login throttle that a refused
 * login must count, a credential's last-use stamp. One connection, kept open (the suites read a
 * fingerprint around thousands of requests).
 *
 * ALWAYS_VOLATILE is skipped whatever the caller says: tables that move on their own schedule and
 * hold nothing a request could change that the other tables do not show.
 */
export interface DatabaseFingerprint {
  read(): Promise<Record<string, string>>;
  close(): Promise<void>;
}

/**
 * The inventory counters (folded every 10 s, and derived from clients, devices and interfaces,
 * which are fingerprinted themselves), the scheduled jobs' last runs (stamped every tick), and
 * the audit log, which records a request refused past the guard as a `refused` entry by design
 * (docs/audit.md; test/api/audit.spec.ts checks what it records and that it records no more),
 * and the bulk jobs' own records, which their worker writes after the request that started one
 * has answered (the clients a job changes are fingerprinted themselves).
 */
const ALWAYS_VOLATILE = [
  'inventory_counts',
  'inventory_deltas',
  'scheduled_runs',
  'audit_entries',
  'client_bulk_jobs',
  'client_bulk_items',
];

export async function openDatabaseFingerprint(
  t: TestPanel,
  volatile: readonly string[] = [],
): Promise<DatabaseFingerprint> {
  const client = new pg.Client({ connectionString: t.database.url });
  await client.connect();
  let statement: string | undefined;
  /** One statement over the tables as they are now: each table's rows as text, hashed, ordered by hash. */
  const build = async () => {
    const { rows: columns } = await client.query<{ table_name: string; column_name: string }>(
      `select table_name, column_name from information_schema.columns
        where table_schema = 'public' order by table_name, ordinal_position`,
    );
    const byTable = new Map<string, string[]>();
    for (const { table_name: table, column_name: column } of columns) {
      if (ALWAYS_VOLATILE.includes(table) || volatile.includes(table) || volatile.includes(`${table}.${column}`))
        continue;
      byTable.set(table, [...(byTable.get(table) ?? []), column]);
    }
    return [...byTable]
      .map(
        ([table, cols]) =>
          `select '${table}' as name, md5(coalesce(string_agg(h, ',' order by h), '')) as digest
             from (select md5(row(${cols.map((column) => `"${column}"`).join(', ')})::text) as h from "${table}") rows`,
      )
      .join(' union all ');
  };
  return {
    async read() {
      statement ??= await build();
      const { rows } = await client.query<{ name: string; digest: string }>(statement);
      return Object.fromEntries(rows.map((row) => [row.name, row.digest]));
    },
    close: () => client.end(),
  };
}
