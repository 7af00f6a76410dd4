import { Inject, Injectable, Logger } from '@nestjs/common';
import pg from 'pg';
import { QUEUE_SCHEMA } from '#libs/contracts/queue-store.js';
import { END_UPKEEP_TURN, TABLE_UPKEEP_APPLICATION, TAKE_UPKEEP_TURN } from '../database/upkeep-hold-off.js';
import { PANEL_RUNTIME, type PanelRuntime } from '../runtime.js';

export interface UpkeepResult {
  /** False when the server's autovacuum runs: then it does this, and nothing here runs. */
  ran: boolean;
  vacuumed: string[];
  analyzed: string[];
  /** Due, not started: the run's time was up, or a migration or a restore needed the tables. */
  deferred: string[];
}

export interface DueTable {
  /** Schema-qualified and quoted, for the statement. */
  qualified: string;
  /** As reported: bare in the panel's schema, `bullmq.job` in the queue store's. */
  name: string;
  vacuum: boolean;
  analyze: boolean;
}

/**
 * The panel's tables past autovacuum's own thresholds (the table's settings, else the server's):
 * whether each needs a VACUUM (dead rows) or an ANALYZE (rows changed since the last one), most
 * due first (how many times over its threshold, the larger of the two). A table never
 * analyzed counts as empty, so its first 50 rows make it due. The panel's own: its schema and the
 * queue store's (BullMQ on PostgreSQL, whose job rows are updated at every step of every job),
 * tables its role owns (another role's table in a shared schema is not the panel's to maintain,
 * and would run that role's index functions). $1: the queue store's schema.
 */
const DUE_TABLES = `
  with t as (
    select format('%I.%I', s.schemaname, c.relname) as qualified,
           case when s.schemaname = current_schema() then c.relname::text else s.schemaname || '.' || c.relname end as name,
           s.n_dead_tup as dead, s.n_mod_since_analyze as changed,
           coalesce(o.v_base, current_setting('autovacuum_vacuum_threshold')::float8)
             + coalesce(o.v_scale, current_setting('autovacuum_vacuum_scale_factor')::float8) * greatest(c.reltuples, 0) as vacuum_at,
           coalesce(o.a_base, current_setting('autovacuum_analyze_threshold')::float8)
             + coalesce(o.a_scale, current_setting('autovacuum_analyze_scale_factor')::float8) * greatest(c.reltuples, 0) as analyze_at
      from pg_stat_user_tables s join pg_class c on c.oid = s.relid
     cross join lateral (
       select (max(option_value) filter (where option_name = 'autovacuum_vacuum_threshold'))::float8 as v_base,
              (max(option_value) filter (where option_name = 'autovacuum_vacuum_scale_factor'))::float8 as v_scale,
              (max(option_value) filter (where option_name = 'autovacuum_analyze_threshold'))::float8 as a_base,
              (max(option_value) filter (where option_name = 'autovacuum_analyze_scale_factor'))::float8 as a_scale
         from pg_options_to_table(c.reloptions)
     ) o
     where s.schemaname in (current_schema(), $1) and pg_has_role(c.relowner, 'USAGE')
  )
  select qualified, name, dead > vacuum_at as vacuum, changed > analyze_at as analyze
    from t
   where dead > vacuum_at or changed > analyze_at
   order by greatest(dead / greatest(vacuum_at, 1), changed / greatest(analyze_at, 1)) desc, name`;

/**
 * The upkeep's session, set as autovacuum's (its defaults: 2 ms asleep each 200 cost units, about
 * 40 MB/s of pages dirtied at most): a manual VACUUM runs unthrottled (vacuum_cost_delay 0) and
 * took the disk from the requests. statement_timeout is the upper bound on what one statement of
 * the upkeep can hold up that does not hold it off (upkeep-hold-off.ts); a table cut off by it is
 * taken again next run.
 */
const SESSION = `
  set application_name = '${TABLE_UPKEEP_APPLICATION}';
  set statement_timeout = '5min';
  set vacuum_cost_delay = '2ms';
  set vacuum_cost_limit = 200`;

/** PostgreSQL's SQLSTATE of a cancelled statement (pg_cancel_backend, or statement_timeout). */
const CANCELLED = '57014';

/** No new table is started after this long into a run: the rest waits for the next, most due first. */
export const UPKEEP_BUDGET_MS = 20_000;

/**
 * Held off this long (every run finding the upkeep's lock taken), the upkeep says so, and again
 * each time as long again: a restore or a migration holds it for seconds to minutes, while a
 * session that keeps it (a stuck restore, or any role of the database taking the same advisory
 * lock) would silence the upkeep, and the tables would grow unseen.
 */
export const HELD_OFF_WARN_MS = 10 * 60_000;
/**
 * A hold-off seen again after this long without one is a new one: runs that did not try the lock
 * in between (nothing due, or the minute's run taken by another controller) say nothing about it.
 * As long as the warning's own wait: with several controllers each sees the minute's run only
 * now and then, and a shorter gap would start every one's count afresh and silence them all.
 */
export const HELD_OFF_GAP_MS = HELD_OFF_WARN_MS;

/**
 * Who holds the upkeep off: the sessions holding its lock exclusively (upkeep-hold-off.ts). The
 * application and user names are the client's and a role creator's to choose: quoted, so they
 * cannot pass for the rest of the line.
 * Another role's session shows no connection time without pg_read_all_stats.
 */
const HOLDERS = `
  select string_agg(format('pid %s (application %s, user %s, connected %s)', a.pid, quote_literal(a.application_name),
                           quote_literal(a.usename), coalesce(a.backend_start::text, 'unknown')), ', ' order by a.pid) as holders
    from pg_locks l join pg_stat_activity a on a.pid = l.pid
   where l.locktype = 'advisory' and l.mode = 'ExclusiveLock' and l.granted and l.database = a.datid
     and a.datname = current_database() and l.objsubid = 2
     and l.classid = ((hashtext('warren')::int8 + 4294967296) % 4294967296)::oid
     and l.objid = ((hashtext('table-upkeep')::int8 + 4294967296) % 4294967296)::oid`;

/**
 * Autovacuum's work on the panel's own tables when the server has it off (`autovacuum = off`, as
 * on some shared or tuned servers; this machine's is one). Without it nothing is ever analyzed,
 * so the planner takes tables of a million rows for empty ones: a client's creation read its
 * devices through a sequential scan of every account while holding its interface's address lock,
 * and creation one at a time fell to 5 a second at 1,000,000 clients (docs/benchmarks.md); and
 * nothing is vacuumed, so tables that counter batches update grow without end. Same thresholds
 * as autovacuum, checked once a minute (table-upkeep.scheduler.ts), throttled as autovacuum is,
 * and giving way to migrations and restores as autovacuum does (upkeep-hold-off.ts).
 * With autovacuum on (PostgreSQL's default) this reads one setting and does nothing.
 *
 * One connection of its own per run (not the ORM's pool): the session's settings must hold for
 * its VACUUMs, which cannot run in a transaction, and must not stay on a pooled connection.
 */
@Injectable()
export class TableUpkeep {
  private readonly logger = new Logger('database');
  /**
   * Since when every run that tried the lock found the upkeep held off, when that was last said
   * (HELD_OFF_WARN_MS) and last seen (HELD_OFF_GAP_MS).
   */
  private heldOff: { since: number; said: number; seen: number } | undefined;
  /** The upkeep's clock: the time budget's and the hold-off's (tests move it, not the process's). */
  clock: () => number = () => Date.now();

  constructor(@Inject(PANEL_RUNTIME) private readonly runtime: Pick<PanelRuntime, 'databaseUrl'>) {}

  async run(budgetMs = UPKEEP_BUDGET_MS): Promise<UpkeepResult> {
    return this.session(async (client) => {
      const { rows } = await client.query<{ on: boolean }>(`select current_setting('autovacuum') = 'on' as on`);
      if (rows[0]?.on) return { ran: false, vacuumed: [], analyzed: [], deferred: [] };
      return this.maintain(client, await this.due(client), budgetMs);
    });
  }

  /**
   * Vacuums and analyzes `tables` in order, whatever the server's autovacuum does (tests: a
   * server with it on still shows how the upkeep gives way).
   */
  async runOn(tables: (due: DueTable[]) => DueTable[], budgetMs = UPKEEP_BUDGET_MS): Promise<UpkeepResult> {
    return this.session(async (client) => this.maintain(client, tables(await this.due(client)), budgetMs));
  }

  private async session<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: this.runtime.databaseUrl });
    client.on('error', () => undefined); // surfaced by the query that fails
    await client.connect();
    try {
      await client.query(SESSION);
      return await work(client);
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  private async due(client: pg.Client): Promise<DueTable[]> {
    return (await client.query<DueTable>(DUE_TABLES, [QUEUE_SCHEMA])).rows;
  }

  private async maintain(client: pg.Client, due: DueTable[], budgetMs: number): Promise<UpkeepResult> {
    const result: UpkeepResult = { ran: true, vacuumed: [], analyzed: [], deferred: [] };
    const until = this.clock() + budgetMs;
    for (const [i, table] of due.entries()) {
      const rest = () => due.slice(i).map((t) => t.name);
      if (this.clock() >= until) return { ...result, deferred: rest() };
      try {
        const { rows } = await client.query<{ granted: boolean }>(TAKE_UPKEEP_TURN);
        // A migration or a restore holds the tables: they are its now, the rest waits.
        if (!rows[0]?.granted) {
          await this.noteHeldOff(client);
          return { ...result, deferred: rest() };
        }
        this.heldOff = undefined;
        try {
          // VACUUM runs outside a transaction (a statement of its own on this connection); the
          // name is schema-qualified, so a like-named table earlier on the search path is not
          // taken. SKIP_LOCKED: a table another session holds waits for next time.
          await client.query(
            table.vacuum
              ? `vacuum (skip_locked, analyze ${table.analyze}) ${table.qualified}`
              : `analyze (skip_locked) ${table.qualified}`,
          );
        } finally {
          await client.query(END_UPKEEP_TURN);
        }
      } catch (error) {
        // Cancelled by a migration or a restore (or cut off by statement_timeout): the tables
        // are wanted, this run ends here.
        if ((error as { code?: string }).code === CANCELLED) {
          this.logger.log(`upkeep of ${table.name} gave way: ${(error as Error).message}`);
          return { ...result, deferred: rest() };
        }
        // A table dropped meanwhile (a restore): next minute again.
        this.logger.warn(`upkeep of ${table.name}: ${(error as Error).message}`);
        continue;
      }
      if (table.vacuum) result.vacuumed.push(table.name);
      if (table.analyze) result.analyzed.push(table.name);
    }
    return result;
  }

  private async noteHeldOff(client: pg.Client): Promise<void> {
    const now = this.clock();
    if (!this.heldOff || now - this.heldOff.seen > HELD_OFF_GAP_MS) this.heldOff = { since: now, said: now, seen: now };
    const state = this.heldOff;
    state.seen = now;
    if (now - state.said < HELD_OFF_WARN_MS) return;
    // Said even when the holders cannot be read (the query cancelled by a restore's hold-off).
    const holders = await client
      .query<{ holders: string | null }>(HOLDERS)
      .then(({ rows }) => rows[0]?.holders ?? 'no session now (released meanwhile)')
      .catch((error: Error) => `sessions not read (${error.message})`);
    // What this controller saw: another one's run may have found the lock free in between.
    const minutes = Math.round((now - state.since) / 60_000);
    this.logger.warn(
      `table upkeep held off for ${minutes} min (every run of this controller found its lock taken): its lock is held by ${holders}`,
    );
    state.said = now;
  }
}
