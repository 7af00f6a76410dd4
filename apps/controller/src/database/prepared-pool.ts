import pg from 'pg';

/**
 * A small pg pool for the few queries on every request's path (credential look-ups). They run as
 * named prepared statements: PostgreSQL parses and plans each once per connection instead of on
 * every request, which more than doubles look-ups per second on this hardware (docs/benchmarks.md).
 * A few connections suffice; more would only make the database processes compete for the cores.
 */
export class PreparedPool {
  private readonly pool: pg.Pool;

  constructor(url: string, max = 4) {
    this.pool = new pg.Pool({ connectionString: url, max });
    this.pool.on('error', () => undefined); // a dropped idle connection is replaced on next use
  }

  /** `types` replaces node-postgres's value parsers for this statement (e.g. to keep a column's text). */
  async query<T>(name: string, text: string, values: unknown[], types?: pg.CustomTypesConfig): Promise<T[]> {
    return (await this.pool.query<T & pg.QueryResultRow>({ name, text, values, ...(types ? { types } : {}) })).rows;
  }

  /** The same in node-postgres's array row mode: each row its values in `columns` order. */
  async queryArrays(
    name: string,
    text: string,
    values: unknown[],
    types?: pg.CustomTypesConfig,
  ): Promise<{ rows: unknown[][]; columns: string[] }> {
    const result = await this.pool.query<unknown[]>({
      name,
      text,
      values,
      rowMode: 'array',
      ...(types ? { types } : {}),
    });
    return { rows: result.rows, columns: result.fields.map((field) => field.name) };
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
