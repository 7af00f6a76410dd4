import type { EntityManager } from '@mikro-orm/postgresql';
import { CompiledQuery } from 'kysely';

/**
 * Runs `text` as the named prepared statement `name` on the connection of `em`'s transaction (or
 * any pooled connection outside one), with `values` bound as $1, $2, … PostgreSQL parses it once
 * per connection and, once it settles on a generic plan, no longer plans it either: for a large
 * statement run many times a second (a counter batch) planning was a fifth of its time
 * (docs/benchmarks.md, "Issue 27, items 3 and 4"). `em.execute` cannot do this: it inlines the
 * values into the text, so every run is a new statement.
 *
 * How: Kysely hands a compiled query's `sql` to node-postgres's `client.query` as is, and
 * node-postgres takes a query config object ({ text, name }) there as well as a string; it keeps
 * track of which names each connection has parsed. `text` must be the same for a given `name`.
 * Rows come back through the pool's type parsers, as `em.execute`'s do.
 */
export async function executeNamed<T>(em: EntityManager, name: string, text: string, values: unknown[]): Promise<T[]> {
  const compiled = CompiledQuery.raw(text, values);
  const named = { ...compiled, sql: { text, name } as unknown as string };
  const result = await em.getKysely().executeQuery<T>(named);
  return result.rows;
}
