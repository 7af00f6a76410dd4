import pg from 'pg';

/**
 * Runs `work` holding a PostgreSQL session advisory lock named `name`, on a connection of its
 * own that ends afterwards (a crash releases it with the connection). Several controllers
 * starting together on one database take turns: the first migrates and creates the owner and
 * the local node, the next finds them done.
 */
export async function withAdvisoryLock<T>(databaseUrl: string, name: string, work: () => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on('error', () => undefined); // surfaced by the query that fails
  await client.connect();
  try {
    await client.query('select pg_advisory_lock(hashtext($1))', [name]);
    return await work();
  } finally {
    await client.end().catch(() => undefined);
  }
}
