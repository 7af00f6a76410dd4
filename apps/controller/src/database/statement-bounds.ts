import type pg from 'pg';

/**
 * How long the request path waits on PostgreSQL before answering 503 (http/database-unreachable.ts).
 * A refused connection fails at once, but a server that stalls (SIGSTOPped, or a network partition
 * that drops packets) answers nothing: without a bound every request waited forever (90 s+ seen)
 * while readiness said 503 after 2 s. Backups and restores run their long COPY statements on
 * their own pg.Client (backups.repository.ts), and migrations on an ORM of their own (orm.ts
 * openDatabase): neither is bounded by these.
 */

/** A new connection that is not ready in this long is given up (pg's connectionTimeoutMillis). */
export const CONNECT_TIMEOUT_MS = 5_000;

/**
 * The ORM pool's client-side bound on one statement (pg's query_timeout). Its longest legitimate
 * statements are the bulk jobs' batches (a 100,000-client extend runs in ~100 s of many
 * statements, docs/benchmarks.md) and list pages over 100,000 clients on a loaded 2-core host:
 * seconds each. A minute leaves them an order of magnitude, and still answers a stalled database.
 */
export const ORM_STATEMENT_TIMEOUT_MS = 60_000;

/**
 * The prepared pool's bound (prepared-pool.ts): single-row look-ups by index (credentials) on
 * every request, milliseconds each; it is the first statement of a request, so its bound is how
 * soon a request answers 503 when the database stalls.
 */
export const LOOKUP_STATEMENT_TIMEOUT_MS = 15_000;

/** node-postgres's words for a statement past query_timeout (it gives them no code). */
export const STATEMENT_TIMED_OUT = 'Query read timeout';

/**
 * Makes a pool's connections unusable once one of their statements passes query_timeout: pg only
 * stops waiting, the statement is still on the wire and the connection busy with it, and an ORM
 * (Kysely releases connections without the error) would hand it to the next request, whose
 * statement would queue behind the stalled one. Ending it marks it ending, which pg-pool checks
 * at release to drop it rather than reuse it; the socket is cut.
 */
export function discardTimedOutConnections(pool: pg.Pool): void {
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as { query: unknown }).query = (...args: unknown[]) => {
      const result = query(...args);
      if (!(result instanceof Promise)) return result;
      return result.catch((error: unknown) => {
        if ((error as Error | undefined)?.message === STATEMENT_TIMED_OUT)
          void (client as unknown as pg.Client).end().catch(() => undefined);
        throw error;
      });
    };
  });
}
