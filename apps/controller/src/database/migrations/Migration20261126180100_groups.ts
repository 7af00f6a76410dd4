import { Migration } from '@mikro-orm/migrations';

/**
 * Groups and bulk actions (issue 23 items 1-2): groups with the defaults their new members take
 * (membership stays in clients.groups), the bulk jobs' records and the clients each selected, and
 * when a client's status last changed (kept by a trigger, read by purge).
 */
export class Migration20261126180100_groups extends Migration {
  override name = 'Migration20261126180100_groups';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "client_groups" ("name" varchar(64) not null, "note" varchar(512) not null default '', "quota_bytes" bigint not null default '0', "expiry_days" int not null default 0, "device_limit" int not null default 1, "interface_ids" text[] not null default '{}', "rate_bits_per_sec" bigint not null default '0', "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("name"));`,
    );
    this.addSql(
      `create table "client_bulk_jobs" ("id" uuid not null, "action" varchar(32) not null, "params" jsonb not null, "user_id" uuid null, "total" int not null, "done" int not null default 0, "changed" int not null default 0, "node_ids" text[] not null default '{}', "nodes_bumped_at" timestamptz null, "started_at" timestamptz not null, "finished_at" timestamptz null, "error" varchar(1024) null, primary key ("id"));`,
    );
    this.addSql(
      `create table "client_bulk_items" ("job_id" uuid not null, "client_id" uuid not null, "done_at" timestamptz null, primary key ("job_id", "client_id"));`,
    );
    this.addSql(`alter table "clients" add "status_changed_at" timestamptz null;`);
    // Every path that changes a status (PATCH, the time tick, usage, bulk jobs) goes through an
    // update of the row: one trigger stamps them all, none of them has to remember to.
    this.addSql(`create or replace function "clients_status_changed_fn"() returns trigger as $$
      begin
        if new.status is distinct from old.status then new.status_changed_at := now(); end if;
        return new;
      end; $$ language plpgsql;`);
    this.addSql(
      `create trigger "clients_status_changed" before update of "status" on "clients" for each row execute function "clients_status_changed_fn"();`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "clients_status_changed" on "clients";`);
    this.addSql(`drop function if exists "clients_status_changed_fn"();`);
    this.addSql(`alter table "clients" drop column "status_changed_at";`);
    this.addSql(`drop table if exists "client_bulk_items" cascade;`);
    this.addSql(`drop table if exists "client_bulk_jobs" cascade;`);
    this.addSql(`drop table if exists "client_groups" cascade;`);
  }
}
