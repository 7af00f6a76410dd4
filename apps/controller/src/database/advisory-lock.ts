import pg from 'pg';

/**
 * Runs `work` holding a PostgreSQL session advisory lock named `name`, on a connection of its
 * own that ends afterwards (a crash releases it with the connection). Several controllers
 * starting together on one database take turns: the first migrates and creates the owner and
 * the local node, the next finds them done. `work` gets the connection, whose session holds the
 * lock: what it takes there lasts as long (upkeep-hold-off.ts).
 */
export async function withAdvisoryLock<T>(
  databaseUrl: string,
  name: string,
  work: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on('error', () => undefined); // surfaced by the query that fails
  await client.connect();
  try {
    await client.query('select pg_advisory_lock(hashtext($1))', [name]);
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}
