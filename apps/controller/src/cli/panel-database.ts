import type { MikroORM } from '@mikro-orm/postgresql';
import type { WarrenConfig } from '../config/config.js';
import {
  embeddedClusterExists,
  runningEmbeddedPostgresUrl,
  startEmbeddedPostgres,
} from '../database/embedded-postgres.js';
import { appliedMigrations, MIGRATION_NAMES, openDatabase, openDatabaseAsIs } from '../database/orm.js';
import { cliDatabaseOpened } from './cli-audit.js';
import { CommandFailed, NO_OWNER } from './usage.js';

export interface PanelDatabase {
  orm: MikroORM;
  /** Where it is (the queue store on PostgreSQL lives there too when there is no REDIS_URL). */
  url: string;
  close(): Promise<void>;
}

/**
 * Runs `use` on the panel's database (as openPanelDatabase opens it) and closes it after, whatever
 * happens. `quiet` keeps the start-up lines off stderr (for --json output).
 */
export async function withPanelDatabase<T>(
  config: WarrenConfig,
  quiet: boolean,
  use: (orm: MikroORM) => Promise<T>,
): Promise<T> {
  const database = await openPanelDatabase(
    config,
    quiet ? () => undefined : (message) => console.error(`warren: ${message}`),
  );
  try {
    return await use(database.orm);
  } finally {
    await database.close();
  }
}

/**
 * The database the panel with this configuration uses: DATABASE_URL; else the embedded server a
 * running panel has up on the data directory; else the embedded server started just for this
 * command (and stopped by close()); none at all (CommandFailed) when the panel never started on
 * this data directory.
 *
 * `migrate: true` (warren migrate, backup restore) brings the schema up to date as the panel does
 * at start. Every other command opens the database as it is and changes no schema: an empty or
 * foreign database, or one whose schema this version does not match, is a CommandFailed.
 */
export async function openPanelDatabase(
  config: WarrenConfig,
  log: (message: string) => void,
  options: { migrate?: boolean } = {},
): Promise<PanelDatabase> {
  // Never started here: no cluster, so no owner. Do not create a database as a side effect.
  if (!config.databaseUrl && !embeddedClusterExists(config.dataDir)) throw new CommandFailed(NO_OWNER);
  let url = config.databaseUrl ?? runningEmbeddedPostgresUrl(config.dataDir);
  let stopEmbedded = async () => undefined as void;
  if (!url) {
    log(`starting the embedded PostgreSQL in ${config.dataDir} (no panel is running on it)`);
    const embedded = await startEmbeddedPostgres(config.dataDir, log);
    url = embedded.url;
    stopEmbedded = embedded.stop;
  }
  let orm: MikroORM | undefined;
  try {
    if (options.migrate) orm = await openDatabase(url);
    else {
      orm = await openDatabaseAsIs(url);
      const applied = await appliedMigrations(orm).catch((error: Error & { code?: string }) => {
        // 3D000: the server has no database of that name (and this command makes none).
        if (error.code === '3D000')
          throw new CommandFailed(`no panel database in ${databaseLabel(config)}: the server has no such database`);
        throw error;
      });
      refuseUnlessCurrent(applied, config);
    }
  } catch (error) {
    await orm?.close(true).catch(() => undefined);
    await stopEmbedded();
    throw error;
  }
  const opened = orm;
  const close = async () => {
    await opened.close(true).catch(() => undefined);
    await stopEmbedded();
  };
  try {
    // A command that changes the panel writes its audit entry now, before it changes anything.
    return { orm, url, close: await cliDatabaseOpened(url, close) };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Which database, for messages: DATABASE_URL's host and name (never its password), or the data directory. */
function databaseLabel(config: WarrenConfig): string {
  if (!config.databaseUrl) return `the embedded PostgreSQL in ${config.dataDir}`;
  const url = new URL(config.databaseUrl);
  return `DATABASE_URL (database "${decodeURIComponent(url.pathname.slice(1))}" on ${url.host})`;
}

function refuseUnlessCurrent(applied: string[] | null, config: WarrenConfig): void {
  if (applied === null)
    throw new CommandFailed(
      `no panel database in ${databaseLabel(config)}: it is empty or another application's (no warren_migrations table); ` +
        'check DATABASE_URL, or start the panel on it once to create its schema',
    );
  const pending = MIGRATION_NAMES.filter((name) => !applied.includes(name));
  if (pending.length > 0)
    throw new CommandFailed(
      `the panel database in ${databaseLabel(config)} lacks ${pending.length} migration(s) of this version ` +
        `(${pending.at(-1)} the newest): run warren migrate, or start this version of the panel once`,
    );
}
