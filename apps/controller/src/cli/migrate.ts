import type { WarrenConfig } from '../config/config.js';
import { openPanelDatabase } from './panel-database.js';

/** `warren migrate`: brings the database's schema up to date (the panel does it at start too). */
export async function migrate(config: WarrenConfig): Promise<void> {
  const database = await openPanelDatabase(config, (message) => console.error(`warren: ${message}`), {
    migrate: true,
  });
  try {
    const applied = await database.orm.migrator.getExecuted();
    const pending = await database.orm.migrator.getPending();
    process.stdout.write(
      `The database is at migration ${applied[applied.length - 1]?.name ?? '(none)'} (${applied.length} applied${pending.length ? `, ${pending.length} pending` : ', none pending'}).\n`,
    );
  } finally {
    await database.close();
  }
}
