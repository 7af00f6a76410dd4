import { Migration } from '@mikro-orm/migrations';

/**
 * `audit_entries.error_code`: the stable code of a refusal or failure beside its English sentence
 * (`error`), so the web panel can word it in the reader's language (docs/audit.md, "Error
 * codes"). Entries written before it keep null: their sentence is all that was recorded.
 */
export class Migration20261127140100_audit_codes extends Migration {
  override name = 'Migration20261127140100_audit_codes';

  override up(): void | Promise<void> {
    this.addSql(`alter table "audit_entries" add column "error_code" varchar(32) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "audit_entries" drop column "error_code";`);
  }
}
