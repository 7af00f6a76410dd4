import { Migration } from '@mikro-orm/migrations';

/**
 * Two fixes of issue 27's review, in one migration.
 *
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
 *
 * The peer journal's `stamped_at`: when bumpRevisions stamped the row with its revision. The
 * journal was pruned by `created_at`, when the row was written: a transaction open longer than
 * the prune horizon committed rows already past it, and the next prune could delete them before
 * any delivery read them, so a delta missed the change. It is pruned by `stamped_at` now (the
 * bump is at the end of the writing transaction, under the node row's lock); rows not stamped
 * yet are never pruned by time. Rows stamped before this migration take its time: when they
 * were stamped is not known, and now keeps them the whole horizon. The index is partial (the
 * unstamped rows are never pruned by time); the prune's condition implies `is not null`, so it
 * walks the index (DeliveryRepository's JOURNAL_PRUNE).
 */
export class Migration20261127170000_warren_function_names extends Migration {
  override name = 'Migration20261127170000_warren_function_names';

  override up(): void | Promise<void> {
    this.addSql(`alter function "clients_next_reset_fn"() rename to "warren_clients_next_reset";`);
    this.addSql(`alter function "clients_status_changed_fn"() rename to "warren_clients_status_changed";`);

    this.addSql(`alter table "peer_changes" add column "stamped_at" timestamptz null;`);
    this.addSql(`update "peer_changes" set "stamped_at" = clock_timestamp() where "revision" is not null;`);
    this.addSql(`drop index "peer_changes_created_at_index";`);
    this.addSql(
      `create index "peer_changes_stamped_at_index" on "peer_changes" ("stamped_at") where "stamped_at" is not null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "peer_changes_stamped_at_index";`);
    this.addSql(`create index "peer_changes_created_at_index" on "peer_changes" ("created_at");`);
    this.addSql(`alter table "peer_changes" drop column "stamped_at";`);

    this.addSql(`alter function "warren_clients_status_changed"() rename to "clients_status_changed_fn";`);
    this.addSql(`alter function "warren_clients_next_reset"() rename to "clients_next_reset_fn";`);
  }
}
