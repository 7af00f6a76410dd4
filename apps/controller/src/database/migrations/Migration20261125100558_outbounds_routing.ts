import { Migration } from '@mikro-orm/migrations';

/**
 * Outbounds (hops) and policy routing, per node (docs/outbounds.md). The built-ins `direct` and
 * `blocked` are rows of every node: a trigger makes them with each new node, so no path that
 * creates a node (the API, the local node at first start, a restore) can forget them; existing
 * nodes get theirs here. Rules and the default outbound point at outbounds by id, without a
 * cascade: an outbound still in use cannot be deleted underneath them.
 */
export class Migration20261125100558_outbounds_routing extends Migration {
  override name = 'Migration20261125100558_outbounds_routing';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "outbounds" ("id" uuid not null, "node_id" uuid not null, "tag" varchar(64) not null, "kind" varchar(16) not null, "enabled" boolean not null default true, "position" int not null default 0, "host" varchar(253) null, "port" int null, "username" varchar(256) null, "password" varchar(256) null, "method" varchar(32) null, "private_key" varchar(44) null, "public_key" varchar(44) null, "peer_public_key" varchar(44) null, "preshared_key" varchar(44) null, "allowed_ips" text[] not null default '{}', "tunnel_address" varchar(64) null, "mtu" int null, "keepalive" int null, "interface_name" varchar(15) null, "slot" int null, "note" varchar(512) not null default '', "last_check_at" timestamptz null, "latency_ms" int null, "last_error" varchar(500) null, "egress_ip" varchar(45) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`alter table "outbounds" add constraint "outbounds_node_id_tag_unique" unique ("node_id", "tag");`);
    this.addSql(`alter table "outbounds" add constraint "outbounds_node_id_slot_unique" unique ("node_id", "slot");`);
    this.addSql(
      `alter table "outbounds" add constraint "outbounds_node_id_interface_name_unique" unique ("node_id", "interface_name");`,
    );

    this.addSql(
      `create table "routing_basics" ("node_id" uuid not null, "default_outbound_id" uuid null, "block_bit_torrent" boolean not null default false, "block_ips" text[] not null default '{}', "block_domains" text[] not null default '{}', "block_ports" text[] not null default '{}', "direct_ips" text[] not null default '{}', "direct_domains" text[] not null default '{}', "fail_closed" boolean not null default false, "updated_at" timestamptz not null, primary key ("node_id"));`,
    );
    this.addSql(`create index "routing_basics_default_outbound_id_index" on "routing_basics" ("default_outbound_id");`);

    this.addSql(
      `create table "routing_rules" ("id" uuid not null, "node_id" uuid not null, "name" varchar(128) not null, "enabled" boolean not null default true, "position" int not null, "source_ips" text[] not null default '{}', "source_ports" text[] not null default '{}', "network" varchar(8) null, "dest_ips" text[] not null default '{}', "domains" text[] not null default '{}', "ports" text[] not null default '{}', "clients" text[] not null default '{}', "groups" text[] not null default '{}', "interfaces" text[] not null default '{}', "outbound_id" uuid not null, "hits" bigint not null default '0', "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "routing_rules_outbound_id_index" on "routing_rules" ("outbound_id");`);
    this.addSql(`create index "routing_rules_node_id_position_index" on "routing_rules" ("node_id", "position");`);

    this.addSql(
      `alter table "outbounds" add constraint "outbounds_node_id_foreign" foreign key ("node_id") references "nodes" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "routing_basics" add constraint "routing_basics_node_id_foreign" foreign key ("node_id") references "nodes" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "routing_basics" add constraint "routing_basics_default_outbound_id_foreign" foreign key ("default_outbound_id") references "outbounds" ("id") on delete no action;`,
    );

    this.addSql(
      `alter table "routing_rules" add constraint "routing_rules_node_id_foreign" foreign key ("node_id") references "nodes" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "routing_rules" add constraint "routing_rules_outbound_id_foreign" foreign key ("outbound_id") references "outbounds" ("id") on delete no action;`,
    );
    this.addSql(`create function "warren_node_builtin_outbounds"() returns trigger language plpgsql as $$
      begin
        insert into "outbounds" ("id", "node_id", "tag", "kind", "created_at", "updated_at")
        values (gen_random_uuid(), new."id", 'direct', 'direct', now(), now()),
               (gen_random_uuid(), new."id", 'blocked', 'blocked', now(), now());
        return null;
      end $$;`);
    this.addSql(
      `create trigger "nodes_builtin_outbounds" after insert on "nodes" for each row execute function "warren_node_builtin_outbounds"();`,
    );
    this.addSql(`insert into "outbounds" ("id", "node_id", "tag", "kind", "position", "created_at", "updated_at")
      select gen_random_uuid(), n."id", b."tag", b."tag", 0, now(), now()
        from "nodes" n cross join (values ('direct'), ('blocked')) as b("tag");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger "nodes_builtin_outbounds" on "nodes";`);
    this.addSql(`drop function "warren_node_builtin_outbounds"();`);
    this.addSql(`drop table if exists "routing_rules" cascade;`);
    this.addSql(`drop table if exists "routing_basics" cascade;`);
    this.addSql(`drop table if exists "outbounds" cascade;`);
  }
}
