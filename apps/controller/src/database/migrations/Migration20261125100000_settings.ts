import { Migration } from '@mikro-orm/migrations';

/** Panel-wide options, one row per key (apps/controller/src/settings/panel-settings.ts). */
export class Migration20261125100000_settings extends Migration {
  override name = 'Migration20261125100000_settings';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "settings" ("key" varchar(64) not null, "value" jsonb not null, "updated_at" timestamptz not null, primary key ("key"));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "settings" cascade;`);
  }
}
