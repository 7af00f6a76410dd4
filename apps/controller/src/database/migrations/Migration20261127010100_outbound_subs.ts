import { Migration } from '@mikro-orm/migrations';

/**
 * Outbound subscriptions (docs/outbounds.md, "Subscriptions"): `outbound_subscriptions` holds
 * each URL, its node, schedule and last fetch; a hop made from one names it
 * (`outbounds.subscription_id`, set null when the subscription goes) with its key in the list,
 * unique per subscription so a refresh never makes a hop twice, and `subscription_gone` when it
 * left the list but a rule still routes through it.
 */
export class Migration20261127010100_outbound_subs extends Migration {
  override name = 'Migration20261127010100_outbound_subs';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "outbound_subscriptions" ("id" uuid not null, "node_id" uuid not null, "name" varchar(64) not null, "url" varchar(2048) not null, "enabled" boolean not null default true, "interval_seconds" int not null default 3600, "position" int not null default 0, "last_fetched_at" timestamptz null, "last_error" varchar(500) null, "skipped" text[] not null default '{}', "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "outbound_subscriptions_node_id_index" on "outbound_subscriptions" ("node_id");`);
    this.addSql(
      `alter table "outbound_subscriptions" add constraint "outbound_subscriptions_name_unique" unique ("name");`,
    );
    this.addSql(
      `alter table "outbound_subscriptions" add constraint "outbound_subscriptions_node_id_foreign" foreign key ("node_id") references "nodes" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "outbounds" add column "subscription_id" uuid null, add column "subscription_key" varchar(64) null, add column "subscription_gone" boolean not null default false;`,
    );
    this.addSql(
      `alter table "outbounds" add constraint "outbounds_subscription_id_foreign" foreign key ("subscription_id") references "outbound_subscriptions" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "outbounds" add constraint "outbounds_subscription_id_subscription_key_unique" unique ("subscription_id", "subscription_key");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "outbounds" drop constraint "outbounds_subscription_id_foreign";`);
    this.addSql(`alter table "outbounds" drop constraint "outbounds_subscription_id_subscription_key_unique";`);
    this.addSql(
      `alter table "outbounds" drop column "subscription_id", drop column "subscription_key", drop column "subscription_gone";`,
    );
    this.addSql(`drop table if exists "outbound_subscriptions" cascade;`);
  }
}
