import { Migration } from '@mikro-orm/migrations';

/**
 * Operators (issue 22 items 1 and 2): a user can be disabled and can be made to change a
 * temporary password at the next sign-in; a session keeps where it signed in from, with what,
 * and when it was last seen (to the minute), for its user to review and end.
 */
export class Migration20261126140000_operators extends Migration {
  override name = 'Migration20261126140000_operators';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "users" add column "enabled" boolean not null default true, add column "must_change_password" boolean not null default false;`,
    );
    this.addSql(
      `alter table "sessions" add column "last_seen_at" timestamptz null, add column "address" varchar(64) null, add column "user_agent" varchar(256) null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "sessions" drop column "last_seen_at", drop column "address", drop column "user_agent";`);
    this.addSql(`alter table "users" drop column "enabled", drop column "must_change_password";`);
  }
}
