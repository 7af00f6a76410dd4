import { Migration } from '@mikro-orm/migrations';

/**
 * Resellers (issue 22 items 3 and 4): every client gets an owning operator, and a reseller gets
 * ceilings and a traffic pool. Clients made before owners existed belong to the panel's first
 * owner (the one made on the first start); every client is created by someone signed in, and an
 * owner exists before any client can be made, so the column is filled before it turns not null.
 * An index leads with the owner: a reseller's first page is an index walk among their own.
 */
export class Migration20261126180000_resellers extends Migration {
  override name = 'Migration20261126180000_resellers';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "reseller_limits" ("user_id" uuid not null, "max_clients" int null, "traffic_pool_bytes" bigint null, "max_expiry_days" int null, "max_quota_bytes" bigint null, "interface_ids" text[] null, "node_ids" text[] null, "pool_used_bytes" bigint not null default '0', "pool_reset_at" timestamptz null, "updated_at" timestamptz not null, primary key ("user_id"));`,
    );
    this.addSql(
      `alter table "reseller_limits" add constraint "reseller_limits_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(`alter table "clients" add "owner_id" uuid null;`);
    this.addSql(
      `update "clients" set "owner_id" = (select "id" from "users" where "role" = 'owner' order by "created_at", "id" limit 1);`,
    );
    this.addSql(`alter table "clients" alter column "owner_id" set not null;`);
    this.addSql(
      `alter table "clients" add constraint "clients_owner_id_foreign" foreign key ("owner_id") references "users" ("id") on delete restrict;`,
    );
    this.addSql(`create index "clients_owner_id_created_at_id_index" on "clients" ("owner_id", "created_at", "id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "reseller_limits" cascade;`);
    this.addSql(`drop index "clients_owner_id_created_at_id_index";`);
    this.addSql(`alter table "clients" drop constraint "clients_owner_id_foreign";`);
    this.addSql(`alter table "clients" drop column "owner_id";`);
  }
}
