import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { QUEUE_SCHEMA } from '#libs/contracts/queue-store.js';
import { withAdvisoryLock } from './advisory-lock.js';
import { ChangeRecordSubscriber } from './change-record.js';
import { ENTITIES } from './entities.js';
import { holdOffTableUpkeep } from './upkeep-hold-off.js';
import { MIGRATIONS } from './migrations/index.js';

export function ormOptions(url: string): Options {
  return {
    clientUrl: url,
    entities: ENTITIES,
    extensions: [Migrator],
    debug: false,
    // Writes a request's audit entry into the change's own transaction (docs/audit.md).
    subscribers: [new ChangeRecordSubscriber()],
    allowGlobalContext: false,
    // About two connections per core: more only make PostgreSQL processes compete (docs/benchmarks.md).
    pool: { min: 1, max: 8 },
    // BullMQ owns QUEUE_SCHEMA; without this the schema diff proposes dropping its tables. The
    // triggers that keep the clients' summaries (Migration20261125090000_client_summaries) use
    // transition tables, which entity trigger definitions cannot declare: they live in that
    // migration alone, and their behaviour is tested (test/api/usage.spec.ts, "client summaries").
    schemaGenerator: { ignoreSchema: [QUEUE_SCHEMA], ignoreTriggers: true },
    migrations: {
      tableName: 'warren_migrations',
      migrationsList: MIGRATIONS,
      snapshot: false,
      transactional: true,
      allOrNothing: true,
      silent: true,
    },
  };
}

/** The committed migrations' names, oldest first. */
export const MIGRATION_NAMES: readonly string[] = MIGRATIONS.map((migration) => migration.name);

/**
 * What the database holds of the panel's schema, without changing anything: null when it has no
 * migrations table (an empty database, or another application's); else the migrations applied.
 */
export async function appliedMigrations(orm: MikroORM): Promise<string[] | null> {
  const connection = orm.em.getConnection();
  const [table] = await connection.execute<{ found: string | null }[]>(
    `select to_regclass('warren_migrations')::text as found`,
  );
  if (!table?.found) return null;
  const rows = await connection.execute<{ name: string }[]>('select name from warren_migrations order by id');
  return rows.map((row) => row.name);
}

/**
 * Opens the database as it is: no migration runs (the read-only CLI commands, which must not
 * turn an empty or foreign database into a panel's).
 */
export function openDatabaseAsIs(url: string): Promise<MikroORM> {
  // Not even the database: MikroORM would create one DATABASE_URL names and the server lacks.
  return MikroORM.init({ ...ormOptions(url), ensureDatabase: false });
}

/**
 * Opens the database and brings its schema up to date with the committed migrations, one
 * controller (or CLI) at a time: two starting together would both run the same migration.
 */
export async function openDatabase(url: string): Promise<MikroORM> {
  const orm = await MikroORM.init(ormOptions(url));
  try {
    await withAdvisoryLock(url, 'warren.migrations', async (client) => {
      // A migration's ALTER would queue behind another controller's table upkeep VACUUM, and every
      // request behind the ALTER: the upkeep gives way first, held off until the lock's session ends.
      if ((await orm.migrator.getPending()).length > 0) await holdOffTableUpkeep(client);
      await orm.migrator.up();
    });
  } catch (error) {
    await orm.close(true);
    throw error;
  }
  return orm;
}
