import { Inject, Injectable, Logger } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';

export interface UpkeepResult {
  /** False when the server's autovacuum runs: then it does this, and nothing here runs. */
  ran: boolean;
  vacuumed: string[];
  analyzed: string[];
}

/**
 * The panel's tables past autovacuum's own thresholds (the table's settings, else the server's):
 * whether each needs a VACUUM (dead rows) or an ANALYZE (rows changed since the last one).
 * A table never analyzed counts as empty, so its first 50 rows make it due.
 */
const DUE_TABLES = `
  with t as (
    select format('%I.%I', s.schemaname, c.relname) as qualified, c.relname as name,
           s.n_dead_tup as dead, s.n_mod_since_analyze as changed,
           greatest(c.reltuples, 0) as tuples,
           (select o.option_value from pg_options_to_table(c.reloptions) o where o.option_name = 'autovacuum_vacuum_threshold') as vt,
           (select o.option_value from pg_options_to_table(c.reloptions) o where o.option_name = 'autovacuum_vacuum_scale_factor') as vs,
           (select o.option_value from pg_options_to_table(c.reloptions) o where o.option_name = 'autovacuum_analyze_threshold') as at,
           (select o.option_value from pg_options_to_table(c.reloptions) o where o.option_name = 'autovacuum_analyze_scale_factor') as "as"
      from pg_stat_user_tables s join pg_class c on c.oid = s.relid
     -- The panel's own: its schema, and tables its role owns (another role's table in a shared
     -- schema is not the panel's to maintain, and would run that role's index functions).
     where s.schemaname = current_schema() and pg_has_role(c.relowner, 'USAGE')
  )
  select qualified, name,
         dead > coalesce(vt::float8, current_setting('autovacuum_vacuum_threshold')::float8)
              + coalesce(vs::float8, current_setting('autovacuum_vacuum_scale_factor')::float8) * tuples as vacuum,
         changed > coalesce(at::float8, current_setting('autovacuum_analyze_threshold')::float8)
              + coalesce("as"::float8, current_setting('autovacuum_analyze_scale_factor')::float8) * tuples as analyze
    from t order by name`;

/**
 * Autovacuum's work on the panel's own tables when the server has it off (`autovacuum = off`, as
 * on some shared or tuned servers; this machine's is one). Without it nothing is ever analyzed,
 * so the planner takes tables of a million rows for empty ones: a client's creation read its
 * devices through a sequential scan of every account while holding its interface's address lock,
 * and creation one at a time fell to 5 a second at 1,000,000 clients (docs/benchmarks.md); and
 * nothing is vacuumed, so tables that counter batches update grow without end. Same thresholds
 * as autovacuum, checked once a minute with the system history's upkeep (one replica per tick).
 * With autovacuum on (PostgreSQL's default) this reads one setting and does nothing.
 */
@Injectable()
export class TableUpkeep {
  private readonly logger = new Logger('database');

  constructor(@Inject(MikroORM) private readonly orm: MikroORM) {}

  async run(): Promise<UpkeepResult> {
    const em = this.orm.em.fork();
    const [setting] = await em.execute<{ on: boolean }[]>(`select current_setting('autovacuum') = 'on' as on`);
    if (setting?.on) return { ran: false, vacuumed: [], analyzed: [] };
    const due = await em.execute<{ qualified: string; name: string; vacuum: boolean; analyze: boolean }[]>(DUE_TABLES);
    const result: UpkeepResult = { ran: true, vacuumed: [], analyzed: [] };
    for (const table of due) {
      if (!table.vacuum && !table.analyze) continue;
      // VACUUM runs outside a transaction (em.execute without one is a statement of its own); the
      // name is schema-qualified, so a like-named table earlier on the search path is not taken.
      const { qualified } = table;
      try {
        // SKIP_LOCKED: a table another session holds (a restore, a migration) waits for next time.
        await em.execute(
          table.vacuum
            ? `vacuum (skip_locked, analyze ${table.analyze}) ${qualified}`
            : `analyze (skip_locked) ${qualified}`,
        );
      } catch (error) {
        // A table dropped meanwhile (a restore): next minute again.
        this.logger.warn(`upkeep of ${table.name}: ${(error as Error).message}`);
        continue;
      }
      if (table.vacuum) result.vacuumed.push(table.name);
      if (table.analyze) result.analyzed.push(table.name);
    }
    return result;
  }
}
