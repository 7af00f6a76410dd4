import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 27 item 5 at 1,000,000 clients (docs/benchmarks.md, "Issue 27, item 5"):
 *
 * - `clients.next_reset_at`: when the client's reset cycle next renews (the anchor, i.e. last
 *   reset, activation or creation, plus one period), null without a cycle. A row trigger keeps it
 *   on every insert and on every update of what it derives from, whichever code path writes (API,
 *   batch, import, restore, the enforcement job's renewal, first use), so none has to remember
 *   it. The enforcement job then reads only the due clients through a partial index instead of
 *   computing the boundary of every client with a cycle every 30 s. Counter batches do not touch
 *   these columns: their updates stay HOT.
 * - List counters per group and per interface, beside the inventory ones
 *   (Migration20261125110000_inventory_counters) and in the same tables, at bucket -1 (the
 *   overview reads bucket 0 and the `online` seconds, so it never sees them): `group:<name>` is
 *   the clients whose groups hold the name, `interface:<id>` the clients linked to the interface.
 *   A list filtered by a group or an interface alone takes its total from them, and a page of a
 *   rare group starts from the groups' GIN index (client-list.repository.ts). Inserts and deletes
 *   append deltas per statement (transition tables); a change of a client's groups per row, only
 *   when the groups differ (a statement trigger with a transition table cannot name columns, and
 *   would run on every counter batch). TRUNCATE recounts them with the rest.
 */

/** The next renewal of a row `r`'s reset cycle: the same periods as client-status.ts. */
const NEXT_RESET = (r: string) => `case ${r}."reset_cycle"
      when 'daily' then coalesce(${r}."last_reset_at", ${r}."activated_at", ${r}."created_at") + interval '86400 seconds'
      when 'weekly' then coalesce(${r}."last_reset_at", ${r}."activated_at", ${r}."created_at") + interval '604800 seconds'
      when 'monthly' then ((coalesce(${r}."last_reset_at", ${r}."activated_at", ${r}."created_at") at time zone 'UTC') + interval '1 month') at time zone 'UTC'
    end`;

/** The list counters from the tables themselves (bucket -1). */
const LIST_RECOUNT = `
  insert into "inventory_counts" ("bucket", "counter", "value")
  select -1, 'group:' || g."name", count(*) from "clients" c cross join lateral unnest(c."groups") as g("name") group by g."name";
  insert into "inventory_counts" ("bucket", "counter", "value")
  select -1, 'interface:' || ci."interface_id", count(*) from "client_interfaces" ci group by ci."interface_id";`;

/** Migration20261125110000_inventory_counters' recount, with the list counters after it. */
const RECOUNT = `
  lock table "inventory_deltas" in exclusive mode;
  delete from "inventory_deltas";
  delete from "inventory_counts";
  insert into "inventory_counts" ("bucket", "counter", "value")
  select 0, c.counter, c.value from (
    select 'clients.' || "status" as counter, count(*)::numeric as value from "clients" group by "status"
    union all select 'usage.up', sum("up_bytes") from "clients"
    union all select 'usage.down', sum("down_bytes") from "clients"
    union all select 'usage.used', sum("used_bytes") from "clients"
    union all select 'quota.bytes', sum("quota_bytes") from "clients"
    union all select 'quota.unlimited', count(*) filter (where "quota_bytes" = 0) from "clients"
    union all select 'devices', count(*) from "devices"
    union all select 'interfaces', count(*) from "interfaces"
  ) c where c.value <> 0;
  insert into "inventory_counts" ("bucket", "counter", "value")
  select floor(extract(epoch from "last_handshake"))::bigint, 'online', count(*)
    from "devices" where "last_handshake" >= now() - interval '1 hour'
   group by 1;
  ${LIST_RECOUNT}`;

const ORIGINAL_RECOUNT_FN = `create or replace function "warren_inventory_truncated"() returns trigger language plpgsql as $$
      begin
        lock table "inventory_deltas" in exclusive mode;
        delete from "inventory_deltas";
        delete from "inventory_counts";
        insert into "inventory_counts" ("bucket", "counter", "value")
        select 0, c.counter, c.value from (
          select 'clients.' || "status" as counter, count(*)::numeric as value from "clients" group by "status"
          union all select 'usage.up', sum("up_bytes") from "clients"
          union all select 'usage.down', sum("down_bytes") from "clients"
          union all select 'usage.used', sum("used_bytes") from "clients"
          union all select 'quota.bytes', sum("quota_bytes") from "clients"
          union all select 'quota.unlimited', count(*) filter (where "quota_bytes" = 0) from "clients"
          union all select 'devices', count(*) from "devices"
          union all select 'interfaces', count(*) from "interfaces"
        ) c where c.value <> 0;
        insert into "inventory_counts" ("bucket", "counter", "value")
        select floor(extract(epoch from "last_handshake"))::bigint, 'online', count(*)
          from "devices" where "last_handshake" >= now() - interval '1 hour'
         group by 1;
        return null;
      end $$;`;

/** The group deltas of the rows of transition table `rows`, each counted `sign` times. */
const GROUP_DELTAS = (rows: string, sign: number) => `
  insert into "inventory_deltas" ("counter", "bucket", "delta")
  select 'group:' || g."name", -1, ${sign} * count(*) from "${rows}" r cross join lateral unnest(r."groups") as g("name") group by g."name";`;

const INTERFACE_DELTAS = (rows: string, sign: number) => `
  insert into "inventory_deltas" ("counter", "bucket", "delta")
  select 'interface:' || r."interface_id", -1, ${sign} * count(*) from "${rows}" r group by r."interface_id";`;

export class Migration20261127140000_client_scale extends Migration {
  override name = 'Migration20261127140000_client_scale';

  override up(): void | Promise<void> {
    // --- next_reset_at -------------------------------------------------------------------------
    this.addSql(`alter table "clients" add column "next_reset_at" timestamptz null;`);
    this.addSql(`update "clients" c set "next_reset_at" = ${NEXT_RESET('c')} where c."reset_cycle" <> 'none';`);
    this.addSql(`create or replace function "clients_next_reset_fn"() returns trigger language plpgsql as $$
      begin
        new."next_reset_at" := ${NEXT_RESET('new')};
        return new;
      end $$;`);
    this.addSql(
      `create trigger "clients_next_reset" before insert or update of "reset_cycle", "last_reset_at", "activated_at", "created_at" on "clients" for each row execute function "clients_next_reset_fn"();`,
    );
    this.addSql(
      `create index "clients_next_reset_at_index" on "clients" ("next_reset_at") where "next_reset_at" is not null;`,
    );

    // --- list counters per group and per interface ---------------------------------------------
    // Group names are up to 64 characters (CLIENT_LIMITS.groupLength): "group:" + 64 fits.
    this.addSql(`alter table "inventory_counts" alter column "counter" type varchar(80);`);
    this.addSql(`alter table "inventory_deltas" alter column "counter" type varchar(80);`);
    this.addSql(`create function "warren_list_groups_changed"() returns trigger language plpgsql as $$
      begin
        if TG_OP = 'INSERT' then
          ${GROUP_DELTAS('new_rows', 1)}
        else
          ${GROUP_DELTAS('old_rows', -1)}
        end if;
        return null;
      end $$;`);
    this.addSql(
      `create trigger "clients_groups_counted_inserted" after insert on "clients" referencing new table as "new_rows" for each statement execute function "warren_list_groups_changed"();`,
    );
    this.addSql(
      `create trigger "clients_groups_counted_deleted" after delete on "clients" referencing old table as "old_rows" for each statement execute function "warren_list_groups_changed"();`,
    );
    this.addSql(`create function "warren_list_groups_updated"() returns trigger language plpgsql as $$
      begin
        insert into "inventory_deltas" ("counter", "bucket", "delta")
        select 'group:' || g."name", -1, sum(g."s") from (
          select unnest(new."groups") as "name", 1 as "s" union all select unnest(old."groups"), -1
        ) g group by g."name" having sum(g."s") <> 0;
        return null;
      end $$;`);
    this.addSql(
      `create trigger "clients_groups_counted_updated" after update of "groups" on "clients" for each row when (old."groups" is distinct from new."groups") execute function "warren_list_groups_updated"();`,
    );
    this.addSql(`create function "warren_list_interfaces_changed"() returns trigger language plpgsql as $$
      begin
        if TG_OP = 'INSERT' then
          ${INTERFACE_DELTAS('new_rows', 1)}
        elsif TG_OP = 'DELETE' then
          ${INTERFACE_DELTAS('old_rows', -1)}
        else
          ${INTERFACE_DELTAS('new_rows', 1)}
          ${INTERFACE_DELTAS('old_rows', -1)}
        end if;
        return null;
      end $$;`);
    this.addSql(
      `create trigger "client_interfaces_counted_inserted" after insert on "client_interfaces" referencing new table as "new_rows" for each statement execute function "warren_list_interfaces_changed"();`,
    );
    this.addSql(
      `create trigger "client_interfaces_counted_deleted" after delete on "client_interfaces" referencing old table as "old_rows" for each statement execute function "warren_list_interfaces_changed"();`,
    );
    // Its foreign keys cascade an update of an id: counted as a move from the old to the new.
    this.addSql(
      `create trigger "client_interfaces_counted_updated" after update on "client_interfaces" referencing old table as "old_rows" new table as "new_rows" for each statement execute function "warren_list_interfaces_changed"();`,
    );
    this.addSql(`create or replace function "warren_inventory_truncated"() returns trigger language plpgsql as $$
      begin
        ${RECOUNT}
        return null;
      end $$;`);
    this.addSql(
      `create trigger "client_interfaces_counted_truncated" after truncate on "client_interfaces" for each statement execute function "warren_inventory_truncated"();`,
    );
    // The counters of the rows already there, with no write counted twice or missed meanwhile.
    this.addSql(`do $$ begin lock table "inventory_deltas" in exclusive mode; ${LIST_RECOUNT} end $$;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "client_interfaces_counted_truncated" on "client_interfaces";`);
    this.addSql(ORIGINAL_RECOUNT_FN);
    this.addSql(`drop trigger if exists "client_interfaces_counted_updated" on "client_interfaces";`);
    this.addSql(`drop trigger if exists "client_interfaces_counted_deleted" on "client_interfaces";`);
    this.addSql(`drop trigger if exists "client_interfaces_counted_inserted" on "client_interfaces";`);
    this.addSql(`drop function if exists "warren_list_interfaces_changed"();`);
    this.addSql(`drop trigger if exists "clients_groups_counted_updated" on "clients";`);
    this.addSql(`drop function if exists "warren_list_groups_updated"();`);
    this.addSql(`drop trigger if exists "clients_groups_counted_deleted" on "clients";`);
    this.addSql(`drop trigger if exists "clients_groups_counted_inserted" on "clients";`);
    this.addSql(`drop function if exists "warren_list_groups_changed"();`);
    this.addSql(`delete from "inventory_counts" where "bucket" = -1;`);
    this.addSql(`delete from "inventory_deltas" where "bucket" = -1;`);
    this.addSql(`alter table "inventory_deltas" alter column "counter" type varchar(32);`);
    this.addSql(`alter table "inventory_counts" alter column "counter" type varchar(32);`);
    this.addSql(`drop index if exists "clients_next_reset_at_index";`);
    this.addSql(`drop trigger if exists "clients_next_reset" on "clients";`);
    this.addSql(`drop function if exists "clients_next_reset_fn"();`);
    this.addSql(`alter table "clients" drop column "next_reset_at";`);
  }
}
