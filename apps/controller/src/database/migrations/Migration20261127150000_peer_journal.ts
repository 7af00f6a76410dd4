import { Migration } from '@mikro-orm/migrations';

/**
 * The peer journal (docs/agents.md, "Deltas"): which accounts' peers changed on which node, so a
 * delivery reads the accounts that changed instead of the node's every peer. A delta to a node of
 * 10,000 peers read all 10,000 of them to find the one added (300-600 ms of the 150 ms a change
 * may take to reach the host: docs/benchmarks.md, "Agent propagation").
 *
 * Rows are written by triggers, so no write path can forget them: accounts added, removed, or
 * changed in what the host sees (key, preshared key, address, enabled, interface, node); clients
 * whose status, speed limit or quota changed, or whose usage went down (a reset: their quota's
 * remaining bytes went up), for each of their accounts. A row keeps the account's old interface,
 * key and address, which is what the node's last state knows it by. `revision` is null until the
 * transaction bumps the node's revision (bumpRevisions stamps its own rows, under the node row's
 * lock, so revisions order the rows as their commits did). Counter batches set only usage
 * columns that rise: the clients trigger's condition is evaluated per row and calls nothing.
 */
export class Migration20261127150000_peer_journal extends Migration {
  override name = 'Migration20261127150000_peer_journal';

  override up(): void | Promise<void> {
    this.addSql(`create table "peer_changes" (
      "id" bigserial primary key,
      "node_id" uuid not null,
      "account_id" uuid not null,
      "old_interface_id" uuid null,
      "old_public_key" text null,
      "old_ip" text null,
      "revision" bigint null,
      "created_at" timestamptz not null default clock_timestamp()
    );`);
    this.addSql(`alter table "peer_changes" add constraint "peer_changes_node_id_foreign"
      foreign key ("node_id") references "nodes" ("id") on delete cascade;`);
    // Also the unstamped rows' index: a btree finds `revision is null` as well.
    this.addSql(`create index "peer_changes_node_revision_index" on "peer_changes" ("node_id", "revision");`);
    this.addSql(`create index "peer_changes_created_at_index" on "peer_changes" ("created_at");`);

    this.addSql(`create or replace function "warren_peer_accounts_added"() returns trigger language plpgsql as $$
      begin
        insert into "peer_changes" ("node_id", "account_id") select "node_id", "id" from "added";
        return null;
      end $$;`);
    this.addSql(`create or replace function "warren_peer_accounts_removed"() returns trigger language plpgsql as $$
      begin
        insert into "peer_changes" ("node_id", "account_id", "old_interface_id", "old_public_key", "old_ip")
        select "node_id", "id", "interface_id", "public_key", "ip" from "removed";
        return null;
      end $$;`);
    this.addSql(`create or replace function "warren_peer_account_changed"() returns trigger language plpgsql as $$
      begin
        insert into "peer_changes" ("node_id", "account_id", "old_interface_id", "old_public_key", "old_ip")
        values (old."node_id", old."id", old."interface_id", old."public_key", old."ip");
        if new."node_id" <> old."node_id" then
          insert into "peer_changes" ("node_id", "account_id") values (new."node_id", new."id");
        end if;
        return null;
      end $$;`);
    this.addSql(`create or replace function "warren_peer_client_changed"() returns trigger language plpgsql as $$
      begin
        insert into "peer_changes" ("node_id", "account_id", "old_interface_id", "old_public_key", "old_ip")
        select a."node_id", a."id", a."interface_id", a."public_key", a."ip"
          from "devices" d join "accounts" a on a."device_id" = d."id"
         where d."client_id" = new."id";
        return null;
      end $$;`);
    this.addSql(`create or replace function "warren_peer_device_moved"() returns trigger language plpgsql as $$
      begin
        insert into "peer_changes" ("node_id", "account_id", "old_interface_id", "old_public_key", "old_ip")
        select a."node_id", a."id", a."interface_id", a."public_key", a."ip" from "accounts" a where a."device_id" = new."id";
        return null;
      end $$;`);
    this.addSql(`create trigger "accounts_peer_added" after insert on "accounts"
      referencing new table as "added" for each statement execute function "warren_peer_accounts_added"();`);
    this.addSql(`create trigger "accounts_peer_removed" after delete on "accounts"
      referencing old table as "removed" for each statement execute function "warren_peer_accounts_removed"();`);
    this.addSql(`create trigger "accounts_peer_changed"
      after update of "node_id", "interface_id", "public_key", "preshared_key", "ip", "enabled" on "accounts"
      for each row when (
        (old."node_id", old."interface_id", old."public_key", old."preshared_key", old."ip", old."enabled")
        is distinct from (new."node_id", new."interface_id", new."public_key", new."preshared_key", new."ip", new."enabled"))
      execute function "warren_peer_account_changed"();`);
    this.addSql(`create trigger "clients_peer_changed"
      after update of "status", "rate_bits_per_sec", "quota_bytes", "used_bytes" on "clients"
      for each row when (
        old."status" is distinct from new."status" or old."rate_bits_per_sec" <> new."rate_bits_per_sec"
        or old."quota_bytes" <> new."quota_bytes" or new."used_bytes" < old."used_bytes")
      execute function "warren_peer_client_changed"();`);
    this.addSql(`create trigger "devices_peer_moved" after update of "client_id" on "devices"
      for each row when (old."client_id" is distinct from new."client_id")
      execute function "warren_peer_device_moved"();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "devices_peer_moved" on "devices";`);
    this.addSql(`drop trigger if exists "clients_peer_changed" on "clients";`);
    this.addSql(`drop trigger if exists "accounts_peer_changed" on "accounts";`);
    this.addSql(`drop trigger if exists "accounts_peer_removed" on "accounts";`);
    this.addSql(`drop trigger if exists "accounts_peer_added" on "accounts";`);
    this.addSql(`drop function if exists "warren_peer_device_moved"();`);
    this.addSql(`drop function if exists "warren_peer_client_changed"();`);
    this.addSql(`drop function if exists "warren_peer_account_changed"();`);
    this.addSql(`drop function if exists "warren_peer_accounts_removed"();`);
    this.addSql(`drop function if exists "warren_peer_accounts_added"();`);
    this.addSql(`drop table if exists "peer_changes";`);
  }
}
