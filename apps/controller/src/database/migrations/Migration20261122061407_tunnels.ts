import { Migration } from '@mikro-orm/migrations';

export class Migration20261122061407_tunnels extends Migration {
  override name = 'Migration20261122061407_tunnels';

  override up(): void | Promise<void> {
    // pg_trgm backs the case-insensitive client search; it is a trusted extension (no superuser needed).
    this.addSql(`create extension if not exists pg_trgm;`);
    this.addSql(
      `create table "clients" ("id" uuid not null, "name" varchar(128) not null, "note" varchar(512) not null default '', "groups" text[] not null default '{}', "telegram_id" bigint null, "quota_bytes" bigint not null default '0', "used_bytes" bigint not null default '0', "up_bytes" bigint not null default '0', "down_bytes" bigint not null default '0', "expires_at" timestamptz null, "device_limit" int not null default 1, "rate_bits_per_sec" bigint not null default '0', "reset_cycle" varchar(16) not null default 'none', "last_reset_at" timestamptz null, "start_on_first_use" boolean not null default false, "duration_seconds" int not null default 0, "activated_at" timestamptz null, "status" varchar(16) not null, "sub_id" varchar(64) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "clients_telegram_id_index" on "clients" ("telegram_id");`);
    this.addSql(`alter table "clients" add constraint "clients_sub_id_unique" unique ("sub_id");`);
    this.addSql(`create index "clients_status_index" on "clients" ("status");`);
    this.addSql(`create index "clients_created_at_index" on "clients" ("created_at");`);
    this.addSql(`create index "clients_name_index" on "clients" ("name");`);
    this.addSql(`create index "clients_expires_at_index" on "clients" ("expires_at");`);
    this.addSql(
      `create index "clients_search_trgm" on "clients" using gin ((lower("name" || ' ' || "note")) gin_trgm_ops);`,
    );
    this.addSql(`create index "clients_groups_gin" on "clients" using gin ("groups");`);

    this.addSql(
      `create table "devices" ("id" uuid not null, "client_id" uuid not null, "name" varchar(64) not null, "up_bytes" bigint not null default '0', "down_bytes" bigint not null default '0', "last_handshake" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "devices_client_id_index" on "devices" ("client_id");`);
    this.addSql(`create unique index "devices_client_name_unique" on "devices" ("client_id", lower("name"));`);

    this.addSql(
      `create table "nodes" ("id" uuid not null, "name" varchar(64) not null, "address" varchar(255) not null default '', "is_local" boolean not null default false, "desired_revision" bigint not null default '1', "applied_revision" bigint not null default '0', "note" varchar(512) not null default '', "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`alter table "nodes" add constraint "nodes_name_unique" unique ("name");`);

    this.addSql(
      `create table "interfaces" ("id" uuid not null, "node_id" uuid not null, "name" varchar(15) not null, "protocol" varchar(16) not null default 'wireguard', "mode" varchar(16) not null, "listen_port" int not null, "subnet" varchar(18) not null, "endpoint_host" varchar(255) not null, "mtu" int not null default 1420, "dns" text[] not null default '{}', "nat_interface" varchar(15) null, "enabled" boolean not null default true, "private_key" varchar(44) not null, "public_key" varchar(44) not null, "awg" jsonb null, "allocation_cursor" bigint null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`alter table "interfaces" add constraint "interfaces_node_id_name_unique" unique ("node_id", "name");`);
    this.addSql(
      `alter table "interfaces" add constraint "interfaces_node_id_listen_port_unique" unique ("node_id", "listen_port");`,
    );

    this.addSql(
      `create table "hosts" ("id" uuid not null, "interface_id" uuid not null, "name" varchar(64) not null, "address" varchar(255) not null, "port" int not null default 0, "priority" int not null default 0, "enabled" boolean not null default true, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "hosts_interface_id_index" on "hosts" ("interface_id");`);

    this.addSql(
      `create table "client_interfaces" ("client_id" uuid not null, "interface_id" uuid not null, primary key ("client_id", "interface_id"));`,
    );

    this.addSql(
      `create table "accounts" ("id" uuid not null, "device_id" uuid not null, "interface_id" uuid not null, "node_id" uuid not null, "ip" varchar(15) not null, "private_key" varchar(44) not null, "public_key" varchar(44) not null, "preshared_key" varchar(44) not null, "enabled" boolean not null default true, "up_bytes" bigint not null default '0', "down_bytes" bigint not null default '0', "last_handshake" timestamptz null, "last_endpoint" varchar(64) null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "accounts_device_id_index" on "accounts" ("device_id");`);
    this.addSql(`create index "accounts_node_id_index" on "accounts" ("node_id");`);
    this.addSql(
      `alter table "accounts" add constraint "accounts_interface_id_ip_unique" unique ("interface_id", "ip");`,
    );
    this.addSql(
      `alter table "accounts" add constraint "accounts_interface_id_public_key_unique" unique ("interface_id", "public_key");`,
    );
    this.addSql(
      `alter table "accounts" add constraint "accounts_device_id_interface_id_unique" unique ("device_id", "interface_id");`,
    );

    this.addSql(
      `alter table "devices" add constraint "devices_client_id_foreign" foreign key ("client_id") references "clients" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "interfaces" add constraint "interfaces_node_id_foreign" foreign key ("node_id") references "nodes" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "hosts" add constraint "hosts_interface_id_foreign" foreign key ("interface_id") references "interfaces" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "client_interfaces" add constraint "client_interfaces_client_id_foreign" foreign key ("client_id") references "clients" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "client_interfaces" add constraint "client_interfaces_interface_id_foreign" foreign key ("interface_id") references "interfaces" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "accounts" add constraint "accounts_device_id_foreign" foreign key ("device_id") references "devices" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "accounts" add constraint "accounts_interface_id_foreign" foreign key ("interface_id") references "interfaces" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "accounts" add constraint "accounts_node_id_foreign" foreign key ("node_id") references "nodes" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "devices" drop constraint "devices_client_id_foreign";`);
    this.addSql(`alter table "client_interfaces" drop constraint "client_interfaces_client_id_foreign";`);
    this.addSql(`alter table "accounts" drop constraint "accounts_device_id_foreign";`);
    this.addSql(`alter table "interfaces" drop constraint "interfaces_node_id_foreign";`);
    this.addSql(`alter table "accounts" drop constraint "accounts_node_id_foreign";`);
    this.addSql(`alter table "hosts" drop constraint "hosts_interface_id_foreign";`);
    this.addSql(`alter table "client_interfaces" drop constraint "client_interfaces_interface_id_foreign";`);
    this.addSql(`alter table "accounts" drop constraint "accounts_interface_id_foreign";`);

    this.addSql(`drop table if exists "clients" cascade;`);
    this.addSql(`drop table if exists "devices" cascade;`);
    this.addSql(`drop table if exists "nodes" cascade;`);
    this.addSql(`drop table if exists "interfaces" cascade;`);
    this.addSql(`drop table if exists "hosts" cascade;`);
    this.addSql(`drop table if exists "client_interfaces" cascade;`);
    this.addSql(`drop table if exists "accounts" cascade;`);
  }
}
