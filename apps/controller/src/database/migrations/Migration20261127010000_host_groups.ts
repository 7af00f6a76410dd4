import { Migration } from '@mikro-orm/migrations';

/**
 * Host groups, tags and order (docs/interfaces.md, "Host groups"): `host_groups` in their own
 * order, each tied to client group names (a host of a tied group is rendered only for clients in
 * one of them); hosts gain their group, tags and a position of their own.
 */
export class Migration20261127010000_host_groups extends Migration {
  override name = 'Migration20261127010000_host_groups';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "host_groups" ("id" uuid not null, "name" varchar(64) not null, "position" int not null default 0, "client_groups" text[] not null default '{}', "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create unique index "host_groups_name_lower_unique" on "host_groups" (lower("name"));`);
    this.addSql(`alter table "hosts" add column "group_id" uuid null;`);
    this.addSql(`alter table "hosts" add column "tags" text[] not null default '{}';`);
    this.addSql(`alter table "hosts" add column "position" int not null default 0;`);
    this.addSql(
      `alter table "hosts" add constraint "hosts_group_id_foreign" foreign key ("group_id") references "host_groups" ("id") on update cascade on delete set null;`,
    );
    this.addSql(`create index "hosts_group_id_index" on "hosts" ("group_id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "hosts" drop constraint "hosts_group_id_foreign";`);
    this.addSql(`alter table "hosts" drop column "group_id", drop column "tags", drop column "position";`);
    this.addSql(`drop table if exists "host_groups" cascade;`);
  }
}
