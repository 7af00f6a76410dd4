import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import type { AbstractSqlDriver } from '@mikro-orm/sql';
import pg from 'pg';
import copyStreams from 'pg-copy-streams';
import type { MigrationObject } from '@mikro-orm/core';
import { holdOffTableUpkeep } from '../database/upkeep-hold-off.js';
import { RESTORED_CHANNEL, REVISIONS_CHANNEL, WHOLE_STATE_MARKER } from '../revisions/revisions.js';
import { PANEL_RUNTIME, type PanelRuntime } from '../runtime.js';
import type { AgentFacts } from '../system/agent-state.js';
import { ArchiveRefused } from './backup-archive.js';
import type { Manifest } from './manifest.js';
import { checkRestoredRows } from './restored-rows.js';
import { RESTORE_GATE_KEY, RestoreGate } from './restore-gate.js';

/**
 * Tables a backup leaves out, and why: `warren_migrations` is the schema's own record (the
 * manifest carries the level instead); `sessions` and `login_throttles` are the live sign-ins and
 * failed-attempt counts of the panel being restored into, not configuration: a restore keeps the
 * current sessions of users who still exist and starts throttling afresh. `inventory_counts` and
 * `inventory_deltas` are derived (the overview's counters): the triggers on the restored tables
 * count them again as the rows are loaded. `client_bulk_jobs` and `client_bulk_items` are the
 * running bulk jobs of the panel being restored into, whose queue entries are its own.
 * `peer_changes` is the delivery's journal of recent peer changes: after a restore every node
 * gets its whole state, so nothing reads the journal's past.
 */
export const TABLES_LEFT_OUT = [
  'warren_migrations',
  'sessions',
  'login_throttles',
  'inventory_counts',
  'inventory_deltas',
  'client_bulk_jobs',
  'client_bulk_items',
  'peer_changes',
];

export interface DumpedTable {
  name: string;
  columns: string[];
  rows: number;
  file: string;
  sha256: string;
}

/** The restore's copy of the audit log while the tables are replaced (see keepAuditLog). */
const AUDIT_KEPT = 'warren_audit_kept';

/** How long a restore keeps trying to take its locks before it answers 503 (see beginHoldingEveryTable). */
const RESTORE_LOCK_WAIT_MS = 60_000;

/** PostgreSQL's SQLSTATE of a statement cut off by statement_timeout. */
const STATEMENT_CUT_OFF = '57014';

/** SQLSTATE classes of a migration failing on an archive's rows: data exceptions, constraint violations. */
const ARCHIVE_FAULT_CLASSES = new Set(['22', '23']);

/**
 * The longest one statement of an upload's check may run (`set local statement_timeout` in its
 * transaction). The check loads a whole archive and replays migrations over it inside a request:
 * unbounded, an archive that loads slowly (or a database that stalls) kept the request, a
 * connection and the check's locks for as long as it took. Each table's COPY and each migration
 * statement is one statement; the test archives check in 1-4 s in all (backups.spec.ts). Not
 * measured on archives of a million clients: one whose table loads for longer than this is
 * refused here (503, saying so) and can still be restored, which has no such bound (the owner
 * asked for it and follows its job).
 */
export const UPLOAD_CHECK_STATEMENT_TIMEOUT_MS = 60_000;

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Counts rows and bytes of a COPY stream while hashing it. */
function hashing(hash: ReturnType<typeof createHash>, counter: { rows: number }): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) counter.rows += 1;
      done(null, chunk);
    },
  });
}

/**
 * The whole database as backups see it: every table of the panel in PostgreSQL's COPY text
 * format (exact for every type, and the fastest way in and out), read in one REPEATABLE READ
 * snapshot, and written back in one transaction. Raw SQL on purpose: COPY, DDL and the
 * catalogue are beyond what the ORM's builders express. One dedicated connection per run; the
 * small reads around a run go through the ORM's pool.
 */
@Injectable()
export class BackupsRepository implements OnModuleInit {
  constructor(
    @Inject(PANEL_RUNTIME) private readonly runtime: Pick<PanelRuntime, 'databaseUrl'>,
    @Inject(MikroORM) private readonly orm: MikroORM,
  ) {}

  /** Every transaction of this panel passes the restore gate (restore-gate.ts). */
  onModuleInit(): void {
    this.orm.em.getEventManager().registerSubscriber(new RestoreGate());
  }

  private async connect(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: this.runtime.databaseUrl });
    client.on('error', () => undefined); // surfaced by the query that fails
    await client.connect();
    return client;
  }

  /**
   * Runs `work` holding the panel-wide backup lock (a session advisory lock on a connection of
   * its own, released when the connection ends, crash included); null when another run holds it.
   * Backups and restores across every controller run one at a time.
   */
  async withRunLock<T>(work: () => Promise<T>): Promise<{ ran: true; result: T } | { ran: false }> {
    const client = await this.connect();
    try {
      const { rows } = await client.query<{ locked: boolean }>(
        `select pg_try_advisory_lock(hashtext('warren.backups')) as locked`,
      );
      if (!rows[0].locked) return { ran: false };
      return { ran: true, result: await work() };
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  /**
   * The panel's own tables: those its entities map. Nothing else in the database (another
   * application's tables sharing DATABASE_URL, PostgreSQL's catalogues) is ever read into an
   * archive, dropped, or written by a restore, whatever an archive names.
   */
  private panelTables(): string[] {
    return [...this.orm.getMetadata().getAll().values()]
      .filter(
        (meta) => !meta.embeddable && !meta.virtual && meta.tableName && (!meta.schema || meta.schema === 'public'),
      )
      .map((meta) => meta.tableName);
  }

  /** Panel tables in the public schema, in an order foreign keys accept for inserts (parents first). */
  private async tables(client: pg.Client, schema = 'public'): Promise<{ name: string; columns: string[] }[]> {
    const { rows } = await client.query<{ name: string; columns: string[] }>(
      `select c.relname::text as name, array_agg(a.attname::text order by a.attnum) as columns
         from pg_class c
         join pg_namespace n on n.oid = c.relnamespace and n.nspname = $3
         join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped and a.attgenerated = ''
        where c.relkind in ('r', 'p') and c.relname <> all($1::text[]) and c.relname = any($2::text[])
        group by c.relname order by c.relname`,
      [TABLES_LEFT_OUT, this.panelTables(), schema],
    );
    const { rows: edges } = await client.query<{ child: string; parent: string }>(
      `select c.relname as child, p.relname as parent from pg_constraint k
         join pg_class c on c.oid = k.conrelid join pg_class p on p.oid = k.confrelid
         join pg_namespace n on n.oid = c.relnamespace and n.nspname = $1
        where k.contype = 'f' and c.oid <> p.oid`,
      [schema],
    );
    const parents = new Map<string, Set<string>>(rows.map((table) => [table.name, new Set()]));
    for (const edge of edges) parents.get(edge.child)?.add(edge.parent);
    const ordered: { name: string; columns: string[] }[] = [];
    const placed = new Set<string>();
    const byName = new Map(rows.map((table) => [table.name, table]));
    while (ordered.length < rows.length) {
      const ready = rows.filter(
        (table) =>
          !placed.has(table.name) &&
          [...parents.get(table.name)!].every((parent) => placed.has(parent) || !byName.has(parent)),
      );
      if (ready.length === 0) throw new Error('foreign keys between panel tables form a cycle');
      for (const table of ready) {
        placed.add(table.name);
        ordered.push(table);
      }
    }
    return ordered;
  }

  /** The last migration the database has run. */
  private async migrationLevel(client: pg.Client): Promise<string> {
    const { rows } = await client.query<{ name: string }>(
      `select name from warren_migrations order by id desc limit 1`,
    );
    return rows[0]?.name ?? '';
  }

  /**
   * Writes every panel table to `<dir>/database/<table>.copy` from one snapshot. `progress` is
   * told after each table (tables done, tables in all).
   */
  async dump(
    dir: string,
    progress: (done: number, total: number) => Promise<void>,
  ): Promise<{ migration: string; tables: DumpedTable[] }> {
    const client = await this.connect();
    try {
      await client.query('begin isolation level repeatable read read only');
      const migration = await this.migrationLevel(client);
      const tables = await this.tables(client);
      const dumped: DumpedTable[] = [];
      for (const table of tables) {
        const file = `database/${table.name}.copy`;
        const hash = createHash('sha256');
        const counter = { rows: 0 };
        const columns = table.columns.map(quote).join(', ');
        await pipeline(
          client.query(copyStreams.to(`copy ${quote(table.name)} (${columns}) to stdout`)),
          hashing(hash, counter),
          createWriteStream(join(dir, file), { mode: 0o600 }),
        );
        dumped.push({ name: table.name, columns: table.columns, rows: counter.rows, file, sha256: hash.digest('hex') });
        await progress(dumped.length, tables.length);
      }
      await client.query('commit');
      return { migration, tables: dumped };
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  /** When the panel was set up: its first user's creation; null on an empty database. */
  async installedAt(): Promise<Date | null> {
    // Raw rows through the ORM carry timestamps as text (it hydrates entities, not rows).
    const rows = await this.orm.em.fork().execute<{ at: string | null }[]>('select min(created_at) as at from users');
    return rows[0]?.at ? new Date(rows[0].at) : null;
  }

  /** Nodes as the backup names them in its manifest. */
  async nodes(): Promise<{ id: string; name: string; isLocal: boolean; agent: AgentFacts }[]> {
    const rows = await this.orm.em.fork().execute<
      {
        id: string;
        name: string;
        is_local: boolean;
        has_credential: boolean | null;
        connected: boolean | null;
        last_seen_at: string | null;
      }[]
    >(
      `select n.id, n.name, n.is_local, a.credential_hash is not null as has_credential, a.connected, a.last_seen_at
         from nodes n left join node_agents a on a.node_id = n.id order by n.name`,
    );
    return rows.map((row) => ({
      id: row.id,
      name: row.name,
      isLocal: row.is_local,
      agent: {
        hasCredential: row.has_credential ?? false,
        connected: row.connected ?? false,
        lastSeenAt: row.last_seen_at ? new Date(row.last_seen_at) : null,
      },
    }));
  }

  /**
   * The committed migrations in order, as the ORM was opened with them (the list itself belongs to
   * start-up, database/migrations/index.ts, which a domain does not import).
   */
  get migrations(): MigrationObject[] {
    return (this.orm.config.get('migrations').migrationsList ?? []) as MigrationObject[];
  }

  /** The SQL of one committed migration's `up`, as the migrator would run it. */
  private async migrationSql(index: number): Promise<string[]> {
    const entry = this.migrations[index];
    const MigrationClass = entry.class as unknown as new (
      driver: AbstractSqlDriver,
      config: unknown,
    ) => {
      up(): void | Promise<void>;
      getQueries(): unknown[];
    };
    const migration = new MigrationClass(this.orm.em.getDriver() as AbstractSqlDriver, this.orm.config);
    await migration.up();
    return migration.getQueries().map((query) => {
      if (typeof query !== 'string')
        throw new Error(`${entry.name}: only plain SQL migrations can be replayed by a restore`);
      return query;
    });
  }

  /**
   * Runs the committed migrations `from` up to `to`. `overArchive`: they run over an archive's
   * rows, so one that fails on them (a value a newer column's type or rule refuses, say) is the
   * archive's fault, refused as a 400 naming the migration, like a row that does not load (it
   * answered 500). Said without PostgreSQL's message, which quotes the archive's values. Only
   * data and constraint errors (SQLSTATE classes 22 and 23) are the archive's; anything else (a
   * time limit, a full disk, a deadlock, a lock wait) passes unchanged.
   */
  private async runMigrations(client: pg.Client, from: number, to: number, overArchive = false): Promise<void> {
    for (let i = from; i < to; i++) {
      const { name } = this.migrations[i];
      try {
        for (const sql of await this.migrationSql(i)) await client.query(sql);
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (overArchive && code && ARCHIVE_FAULT_CLASSES.has(code.slice(0, 2)))
          throw new ArchiveRefused(
            `the archive's data does not pass the migration ${name}, which brings it to this panel's schema: ${loadFailure(code)} (PostgreSQL error ${code})`,
          );
        throw error;
      }
      await client.query('insert into warren_migrations (name, executed_at) values ($1, now())', [name]);
    }
  }

  /**
   * Begins the restore's transaction holding every panel table (ACCESS EXCLUSIVE, in name order),
   * before it reads or drops anything. A restore that took its locks one statement at a time
   * (drop, then the next table a trigger touched) deadlocked with requests that had locked one
   * of its tables and wanted another: 3 of 19 restores and some of the requests answered 500
   * (issue 19). Now the restore never waits while it holds a lock for longer than half of
   * PostgreSQL's deadlock_timeout: the LOCK statement is cut off before any writer waiting on it
   * could be found in a deadlock, and the restore rolls back, waits a moment and tries again.
   * Once it holds every table, writers wait for it (their statements queue behind its locks and
   * run on the restored tables after it commits). Past RESTORE_LOCK_WAIT_MS of trying, a 503.
   */
  private async beginHoldingEveryTable(client: pg.Client): Promise<void> {
    const { rows } = await client.query<{ ms: string }>(
      `select extract(epoch from current_setting('deadlock_timeout')::interval) * 1000 as ms`,
    );
    const waitMs = Math.max(20, Math.min(500, Math.floor(Number(rows[0].ms) / 2)));
    const deadline = Date.now() + RESTORE_LOCK_WAIT_MS;
    const busy = () => new ArchiveRefused('the panel is too busy with writes to restore now; try again', 503);
    // The gate first (restore-gate.ts), waited for in short spells: a request holding it shared
    // that waits for another transaction of its own would otherwise wait for the restore for ever.
    for (;;) {
      await client.query(`set statement_timeout = '2s'`);
      try {
        await client.query(`select pg_advisory_lock(${RESTORE_GATE_KEY})`);
        break;
      } catch (error) {
        if ((error as { code?: string }).code !== '57014') throw error;
        if (Date.now() > deadline) throw busy();
      } finally {
        await client.query('set statement_timeout to default');
      }
    }
    // A table upkeep VACUUM holds its table until it ends, and the LOCK below would be cut off
    // and tried again for as long: the upkeep gives way, held off until this connection ends.
    await holdOffTableUpkeep(client);
    for (;;) {
      await client.query('begin');
      try {
        const { rows: tables } = await client.query<{ name: string }>(
          `select c.relname::text as name from pg_class c join pg_namespace n on n.oid = c.relnamespace and n.nspname = 'public'
            where c.relkind in ('r', 'p') and (c.relname = 'warren_migrations' or c.relname = any($1::text[])) order by 1`,
          [this.panelTables()],
        );
        await client.query(`set local statement_timeout = '${waitMs}ms'`);
        await client.query(
          `lock table ${tables.map((t) => `public.${quote(t.name)}`).join(', ')} in access exclusive mode`,
        );
        await client.query('set local statement_timeout to default');
        return;
      } catch (error) {
        await client.query('rollback').catch(() => undefined);
        // Cut off (57014), a lock not granted (55P03) or chosen as a deadlock's victim (40P01).
        if (!['57014', '55P03', '40P01'].includes((error as { code?: string }).code ?? '')) throw error;
        if (Date.now() > deadline) throw busy();
        await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 200));
      }
    }
  }

  /**
   * Copies the audit log aside (a temporary table, dropped at commit) before the restore drops
   * the tables; returns its columns, or none when the panel has no log yet.
   */
  private async keepAuditLog(client: pg.Client): Promise<string[]> {
    const { rows } = await client.query<{ column: string }>(
      `select a.attname::text as column from pg_attribute a
        where a.attrelid = to_regclass('public.audit_entries') and a.attnum > 0 and not a.attisdropped order by a.attnum`,
    );
    if (rows.length === 0) return [];
    await client.query(`create temporary table ${AUDIT_KEPT} on commit drop as select * from public.audit_entries`);
    return rows.map((row) => row.column);
  }

  /**
   * Builds the schema `schema` (its tables empty) at the backup's migration level, loads the
   * archive's tables into it, then runs the migrations the backup predates over the loaded data.
   */
  private async load(
    client: pg.Client,
    schema: string,
    dir: string,
    manifest: Manifest,
    level: number,
    progress: (done: number, total: number) => Promise<void>,
  ): Promise<void> {
    await this.runMigrations(client, 0, level + 1);
    // Only the panel's tables at the backup's level, with their own columns, can be loaded.
    const existing = new Map((await this.tables(client, schema)).map((table) => [table.name, new Set(table.columns)]));
    const seen = new Set<string>();
    for (const table of manifest.tables) {
      const columns = existing.get(table.name);
      if (!columns)
        throw new ArchiveRefused(
          `the archive names a table a panel at ${manifest.migration} does not back up: ${table.name}`,
        );
      if (seen.has(table.name)) throw new ArchiveRefused(`the archive names the table ${table.name} twice`);
      const foreign = table.columns.find((column) => !columns.has(column));
      if (foreign || new Set(table.columns).size !== table.columns.length)
        throw new ArchiveRefused(
          `the archive's table ${table.name} names a column it does not have: ${foreign ?? 'a repeated one'}`,
        );
      seen.add(table.name);
    }
    const total = manifest.tables.length;
    let done = 0;
    for (const table of manifest.tables) {
      const target = `${quote(schema)}.${quote(table.name)}`;
      // Rows triggers made while earlier tables loaded (every node's built-in outbounds) are
      // replaced by the backup's own: the table holds exactly what the backup holds.
      await client.query(`delete from ${target}`);
      try {
        await pipeline(
          createReadStream(join(dir, table.file)),
          client.query(copyStreams.from(`copy ${target} (${table.columns.map(quote).join(', ')}) from stdin`)),
        );
      } catch (error) {
        // Said without PostgreSQL's message: it quotes the archive's values.
        const code = (error as { code?: string }).code;
        if (code && code !== STATEMENT_CUT_OFF)
          throw new ArchiveRefused(
            `the archive's table ${table.name} does not load into this panel: ${loadFailure(code)} (PostgreSQL error ${code})`,
          );
        throw error;
      }
      await progress(++done, total);
    }
    await this.runMigrations(client, level + 1, this.migrations.length, true);
  }

  private async checkRows(client: pg.Client): Promise<void> {
    await checkRestoredRows(async (sql) => (await client.query<Record<string, unknown>>(sql)).rows);
  }

  /**
   * Everything a restore checks of an archive's tables and rows (restored-rows.ts), without
   * touching the panel's own: an upload is checked so, and an archive a restore would refuse is
   * never kept. The archive is loaded into a schema of its own, made inside one transaction that
   * is always rolled back (so nothing of it outlives the check, crash included), with the
   * schema first on the search path: the migrations, triggers and checks, which name tables
   * unqualified, all work on it. Throws ArchiveRefused as a restore would. Needs the right to
   * create a schema (CREATE on the database, which the embedded PostgreSQL's user has): without
   * it the rows are left to the restore, which checks them again anyway, and this says so.
   */
  async check(dir: string, manifest: Manifest): Promise<'checked' | 'not-permitted'> {
    const level = this.migrations.findIndex((migration) => migration.name === manifest.migration);
    if (level < 0) throw new Error(`unknown migration level ${manifest.migration}`);
    const schema = `warren_check_${randomBytes(8).toString('hex')}`;
    const client = await this.connect();
    try {
      await client.query('begin');
      await client.query(`set local statement_timeout = ${UPLOAD_CHECK_STATEMENT_TIMEOUT_MS}`);
      try {
        await client.query(`create schema ${quote(schema)}`);
      } catch (error) {
        if ((error as { code?: string }).code === '42501') return 'not-permitted';
        throw error;
      }
      // The migrator's own table, which no migration makes: its rows say which migrations ran.
      await client.query(
        `create table ${quote(schema)}.warren_migrations (id serial primary key, name varchar(255), executed_at timestamptz)`,
      );
      await client.query(`set local search_path = ${quote(schema)}, public`);
      await this.load(client, schema, dir, manifest, level, async () => undefined);
      await this.checkRows(client);
      return 'checked';
    } catch (error) {
      if ((error as { code?: string }).code === STATEMENT_CUT_OFF)
        throw new ArchiveRefused(
          `the archive could not be checked: a step of its check ran past ${UPLOAD_CHECK_STATEMENT_TIMEOUT_MS / 1000} s (the database is busy or the archive very large); try again later, or copy it into the backup directory, where a restore checks it without this limit`,
          503,
        );
      throw error;
    } finally {
      await client.query('rollback').catch(() => undefined);
      await client.end().catch(() => undefined);
    }
  }

  /**
   * Replaces the whole database with the backup extracted in `dir`, in one transaction: nothing
   * changes unless everything does. The schema is rebuilt to the backup's migration level, the
   * tables are loaded, then the migrations the backup predates run over the loaded data, so an
   * older backup comes back in today's shape. What must not go back in time does not: each
   * node's revision ends above both the backup's and the current one (agents skip revisions
   * at or below what they applied), counter sequence numbers keep the higher value (the agent's
   * numbering never restarts), the current sessions of users who still exist are kept, and so
   * is the audit log (the backup's entries are added to it).
   * On commit every controller is told (RESTORED_CHANNEL) and every node's delivery is woken.
   */
  async restore(
    dir: string,
    manifest: Manifest,
    progress: (done: number, total: number) => Promise<void>,
  ): Promise<{ nodes: string[] }> {
    const level = this.migrations.findIndex((migration) => migration.name === manifest.migration);
    if (level < 0) throw new Error(`unknown migration level ${manifest.migration}`);
    const client = await this.connect();
    try {
      await this.beginHoldingEveryTable(client);
      await client.query(`set local lock_timeout = '30s'`);
      const before = await client.query<{ id: string; desired_revision: string; counters_seq: string | null }>(
        `select n.id, n.desired_revision, a.counters_seq from nodes n left join node_agents a on a.node_id = n.id`,
      );
      const sessions = await client.query<{ rows: unknown }>(
        `select coalesce(json_agg(s), '[]'::json) as rows from sessions s`,
      );
      // The audit log is history, not state: the restore's own entry and everything recorded
      // since the backup stay, beside the backup's entries (docs/audit.md, "Backups").
      const auditColumns = await this.keepAuditLog(client);

      const { rows: dropTables } = await client.query<{ name: string }>(
        `select c.relname::text as name from pg_class c join pg_namespace n on n.oid = c.relnamespace and n.nspname = 'public'
          where c.relkind in ('r', 'p') and c.relname <> 'warren_migrations' and c.relname = any($1::text[])`,
        [this.panelTables()],
      );
      if (dropTables.length > 0)
        await client.query(`drop table ${dropTables.map((t) => `public.${quote(t.name)}`).join(', ')} cascade`);
      // The panel's trigger functions are all named warren_… (its migrations); nobody else's go.
      const { rows: dropFunctions } = await client.query<{ signature: string }>(
        `select p.oid::regprocedure::text as signature from pg_proc p join pg_namespace n on n.oid = p.pronamespace and n.nspname = 'public'
          where p.proname like 'warren\\_%' and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')`,
      );
      for (const fn of dropFunctions) await client.query(`drop function ${fn.signature} cascade`);
      await client.query('delete from warren_migrations');

      await this.load(client, 'public', dir, manifest, level, progress);
      if (auditColumns.length > 0) {
        const columns = auditColumns.map(quote).join(', ');
        await client.query(
          `insert into audit_entries (${columns}) select ${columns} from pg_temp.${AUDIT_KEPT} on conflict (id) do nothing`,
        );
      }
      // Held to what the API would take, in today's shape (restored-rows.ts); a refusal rolls back.
      await this.checkRows(client);

      // The journal rows the loading wrote go; every node gets its whole state after a restore,
      // said by a marker row per node at its new revision (below, WHOLE_STATE_MARKER).
      await client.query('delete from peer_changes');
      // What must not go back in time (see above).
      const previous = JSON.stringify(
        before.rows.map((row) => ({
          id: row.id,
          revision: Number(row.desired_revision),
          seq: Number(row.counters_seq ?? 0),
        })),
      );
      await client.query(
        `with previous as (select * from json_to_recordset($1::json) as p(id uuid, revision bigint, seq bigint))
         update nodes set desired_revision = greatest(nodes.desired_revision, coalesce(p.revision, 0)) + 1, delivered_revision = 0, updated_at = now()
           from nodes n left join previous p on p.id = n.id where nodes.id = n.id`,
        [previous],
      );
      await client.query(
        `insert into peer_changes (node_id, account_id, revision, stamped_at) select id, $1::uuid, desired_revision, clock_timestamp() from nodes`,
        [WHOLE_STATE_MARKER],
      );
      await client.query(
        `with previous as (select * from json_to_recordset($1::json) as p(id uuid, revision bigint, seq bigint))
         update node_agents set counters_seq = greatest(node_agents.counters_seq, p.seq) from previous p where p.id = node_agents.node_id`,
        [previous],
      );
      await client.query(
        `insert into sessions select s.* from json_populate_recordset(null::sessions, $1::json) s where exists (select 1 from users u where u.id = s.user_id)`,
        [JSON.stringify(sessions.rows[0].rows)],
      );
      const { rows: nodes } = await client.query<{ id: string }>('select id from nodes order by id');
      if (nodes.length > 0)
        await client.query('select pg_notify($1, $2)', [REVISIONS_CHANNEL, nodes.map((node) => node.id).join(',')]);
      await client.query('select pg_notify($1, $2)', [RESTORED_CHANNEL, manifest.createdAt]);
      await client.query('commit');
      return { nodes: nodes.map((node) => node.id) };
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      throw error;
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

/**
 * What a COPY failure means, in words, by its SQLSTATE (PostgreSQL's own message would quote the
 * archive's values, secrets among them): the error code alone told an operator nothing.
 */
function loadFailure(code: string): string {
  const known: Record<string, string> = {
    '22001': 'a value is longer than its column allows',
    '22003': "a number is out of its column's range",
    '22007': 'a date or time is not valid',
    '22008': 'a date or time is out of range',
    '22P02': "a value is not of its column's type",
    '22P04': 'a line does not have the columns the manifest names',
    '23502': 'a required value is missing',
    '23503': 'a row refers to a row that is not there',
    '23505': 'two rows share a value that must be unique',
    '23514': "a value breaks its column's rule",
  };
  if (known[code]) return known[code];
  if (code.startsWith('22')) return 'a value does not fit its column';
  if (code.startsWith('23')) return 'the rows break a rule between them';
  return 'the database refused it';
}
