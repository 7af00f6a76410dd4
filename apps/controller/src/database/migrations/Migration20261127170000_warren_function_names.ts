import { Migration } from '@mikro-orm/migrations';

/**
 * The panel's trigger functions are all named `warren_…`: a restore drops the panel's functions
 * by that prefix before it replays the migrations (backups.repository.ts, restore), and leaves
 * every other function of the database alone (another application's, sharing DATABASE_URL).
 * `clients_status_changed_fn` (Migration20261126180100_groups) and `clients_next_reset_fn`
 * (Migration20261127140000_client_scale) broke the rule (issue 27, review): a restore left them
 * in place and the replay replaced them only because both are made with `create or replace`; a
 * later migration that made one with `create function`, or changed its signature or language,
 * would have failed every restore. Their triggers follow the rename (they hold the function's
 * oid, not its name). A restore of a backup from before this migration replays the old
 * migrations (which make the old names) and then this one, so it ends with the new names.
 */
export class Migration20261127170000_warren_function_names extends Migration {
  override name = 'Migration20261127170000_warren_function_names';

  override up(): void | Promise<void> {
    this.addSql(`alter function "clients_next_reset_fn"() rename to "warren_clients_next_reset";`);
    this.addSql(`alter function "clients_status_changed_fn"() rename to "warren_clients_status_changed";`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter function "warren_clients_status_changed"() rename to "clients_status_changed_fn";`);
    this.addSql(`alter function "warren_clients_next_reset"() rename to "clients_next_reset_fn";`);
  }
}
