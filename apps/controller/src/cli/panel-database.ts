import type { MikroORM } from '@mikro-orm/postgresql';
import type { WarrenConfig } from '../config/config.js';
import {
  embeddedClusterExists,
  runningEmbeddedPostgresUrl,
  startEmbeddedPostgres,
} from '../database/embedded-postgres.js';
import { openDatabase } from '../database/orm.js';
import { CommandFailed, NO_OWNER } from './usage.js';

export interface PanelDatabase {
  orm: MikroORM;
  /** Where it is (the queue store on PostgreSQL lives there too when there is no REDIS_URL). */
  url: string;
  close(): Promise<void>;
}

/**
 * The database the panel with this configuration uses: DATABASE_URL; else the embedded server a
 * running panel has up on the data directory; else the embedded server started just for this
 * command (and stopped by close()); none at all (CommandFailed) when the panel never started on
 * this data directory. Migrations run as at panel start, so a fresh data directory
 * and an older one both work.
 */
export async function openPanelDatabase(config: WarrenConfig, log: (message: string) => void): Promise<PanelDatabase> {
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
  let orm: MikroORM;
  try {
    orm = await openDatabase(url);
  } catch (error) {
    await stopEmbedded();
    throw error;
  }
  return {
    orm,
    url,
    async close() {
      await orm.close(true).catch(() => undefined);
      await stopEmbedded();
    },
  };
}
