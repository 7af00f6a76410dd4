import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { QUEUE_SCHEMA } from '#libs/contracts/queue-store.js';
import { withAdvisoryLock } from './advisory-lock.js';
import { ENTITIES } from './entities.js';
import { MIGRATIONS } from './migrations/index.js';

export function ormOptions(url: string): Options {
  return {
    clientUrl: url,
    entities: ENTITIES,
    extensions: [Migrator],
    debug: false,
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

/**
 * Opens the database and brings its schema up to date with the committed migrations, one
 * controller (or CLI) at a time: two starting together would both run the same migration.
 */
export async function openDatabase(url: string): Promise<MikroORM> {
  const orm = await MikroORM.init(ormOptions(url));
  try {
    await withAdvisoryLock(url, 'warren.migrations', () => orm.migrator.up());
  } catch (error) {
    await orm.close(true);
    throw error;
  }
  return orm;
}
