import { Migration } from '@mikro-orm/migrations';

/**
 * `users.password_changed_at`: when a user last chose their own
 * password, for the security warning "the owner's password was never changed"
 * (docs/operations.md, "Security warnings"). Existing rows start at null: nothing recorded when a
 * password was chosen, so an owner who changed theirs before this upgrade sees the warning until
 * they change it once more (a warning too many beats one missing).
 */
export class Migration20261126210400_password_changed extends Migration {
  override name = 'Migration20261126210400_password_changed';

  override up(): void | Promise<void> {
    this.addSql(`alter table "users" add column "password_changed_at" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "users" drop column "password_changed_at";`);
  }
}
