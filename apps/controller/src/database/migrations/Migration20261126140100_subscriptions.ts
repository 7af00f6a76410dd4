import { Migration } from '@mikro-orm/migrations';

/**
 * Subscription links (issue 23 items 5-7): each client's link nonce and the SHA-256 of its token
 * (made when the link is first asked for, so existing clients need no backfill), and one-time
 * download links for one config of one device.
 */
export class Migration20261126140100_subscriptions extends Migration {
  override name = 'Migration20261126140100_subscriptions';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "clients" add column "sub_nonce" varchar(32) null, add column "sub_token_hash" varchar(64) null;`,
    );
    this.addSql(`alter table "clients" add constraint "clients_sub_token_hash_unique" unique ("sub_token_hash");`);
    this.addSql(
      `create table "download_links" ("token_hash" varchar(64) not null, "device_id" uuid not null, "interface_id" uuid not null, "host_id" uuid null, "expires_at" timestamptz not null, "used_at" timestamptz null, "created_at" timestamptz not null, primary key ("token_hash"));`,
    );
    this.addSql(`create index "download_links_device_id_index" on "download_links" ("device_id");`);
    this.addSql(`create index "download_links_expires_at_index" on "download_links" ("expires_at");`);
    this.addSql(
      `alter table "download_links" add constraint "download_links_device_id_foreign" foreign key ("device_id") references "devices" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "download_links" cascade;`);
    this.addSql(`alter table "clients" drop constraint "clients_sub_token_hash_unique";`);
    this.addSql(`alter table "clients" drop column "sub_nonce", drop column "sub_token_hash";`);
  }
}
