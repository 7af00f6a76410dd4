import { Migration } from '@mikro-orm/migrations';

/** The language each Telegram user's app speaks (docs/telegram.md); the bot's settings are a settings row. */
export class Migration20261126210100_telegram extends Migration {
  override name = 'Migration20261126210100_telegram';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "telegram_users" ("telegram_id" bigint not null, "language" varchar(8) not null, "seen_at" timestamptz not null, primary key ("telegram_id"));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "telegram_users" cascade;`);
  }
}
