import { Migration } from '@mikro-orm/migrations';

/**
 * Inventory counters for GET /api/overview/full (docs/overview.md): clients by status, their
 * usage and quota, devices, devices by the second of their latest handshake (the online count),
 * interfaces. Counting those rows per request is what the overview must not do at 100,000
 * clients, so the database keeps the totals itself:
 *
 * - statement triggers with transition tables on clients, devices and interfaces append one
 *   delta row per counter a statement moved (inventory_deltas), in the transaction of the change:
 *   API writes, cascades from a deleted client, interface or node, counter batches, enforcement
 *   and bulk SQL alike, and a rolled-back change takes its deltas with it. Appending never waits
 *   on another transaction; updating one shared row per counter would queue every write behind
 *   the previous one and deadlock two transactions that move two counters in opposite orders;
 * - the fold (overview/inventory.repository.ts) moves the deltas into inventory_counts (one row
 *   per counter, or per counter and second for `online`) every few seconds; a read sums both
 *   tables in one snapshot, so it is exact whether or not a fold ran;
 * - RECOUNT recomputes everything from the tables (this migration, and TRUNCATE, which fires no
 *   row or delete triggers).
 *
 * `online` counts only handshakes within ONLINE_HORIZON of the writing transaction: the overview
 * asks for the last 3 minutes, and a device whose handshake is older than an hour can only ever
 * leave a bucket nobody reads. The fold drops buckets older than that.
 */
const ONLINE_HORIZON = `interval '1 hour'`;

/** The deltas of the changed rows `r` (columns: s = +1 or -1, then the table's own). */
const CLIENT_DELTAS = `
  insert into "inventory_deltas" ("counter", "delta")
  select d.counter, d.delta from (
    select 'clients.' || r.status as counter, sum(r.s)::numeric as delta from r group by r.status
    union all select 'usage.up', sum(r.s * r.up_bytes) from r
    union all select 'usage.down', sum(r.s * r.down_bytes) from r
    union all select 'usage.used', sum(r.s * r.used_bytes) from r
    union all select 'quota.bytes', sum(r.s * r.quota_bytes) from r
    union all select 'quota.unlimited', sum(r.s) filter (where r.quota_bytes = 0) from r
  ) d where d.delta <> 0`;

const DEVICE_DELTAS = `
  insert into "inventory_deltas" ("counter", "bucket", "delta")
  select d.counter, d.bucket, d.delta from (
    select 'devices' as counter, 0::bigint as bucket, sum(r.s)::numeric as delta from r
    union all
    select 'online', floor(extract(epoch from r.last_handshake))::bigint, sum(r.s)
      from r where r.last_handshake >= now() - ${ONLINE_HORIZON}
     group by 2
  ) d where d.delta <> 0`;

const INTERFACE_DELTAS = `
  insert into "inventory_deltas" ("counter", "delta")
  select 'interfaces', sum(r.s) from r having sum(r.s) <> 0`;

/**
 * Every counter from the tables themselves. The exclusive lock on the deltas waits for every
 * transaction that appended deltas and holds off new ones until this one commits: nothing is
 * counted both in the recount and in a delta, nothing in neither.
 */
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
    from "devices" where "last_handshake" >= now() - ${ONLINE_HORIZON}
   group by 1;`;

const COUNTED = [
  {
    table: 'clients',
    deltas: CLIENT_DELTAS,
    columns: '"status", "up_bytes", "down_bytes", "used_bytes", "quota_bytes"',
    update: true,
  },
  { table: 'devices', deltas: DEVICE_DELTAS, columns: '"last_handshake"', update: true },
  { table: 'interfaces', deltas: INTERFACE_DELTAS, columns: '"id"', update: false },
];

/** One trigger function per table; each event's transition tables are only read on its branch. */
function triggerFunction(table: string, deltas: string, columns: string): string {
  const rows = (sign: number, from: string) => `select ${sign} as s, ${columns} from "${from}"`;
  const branch = (source: string) => `with r as (${source}) ${deltas};`;
  return `create function "warren_inventory_${table}_changed"() returns trigger language plpgsql as $$
    begin
      if TG_OP = 'INSERT' then
        ${branch(rows(1, 'new_rows'))}
      elsif TG_OP = 'DELETE' then
        ${branch(rows(-1, 'old_rows'))}
      else
        ${branch(`${rows(1, 'new_rows')} union all ${rows(-1, 'old_rows')}`)}
      end if;
      return null;
    end $$;`;
}

export class Migration20261125110000_inventory_counters extends Migration {
  override name = 'Migration20261125110000_inventory_counters';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "inventory_counts" ("bucket" bigint not null, "counter" varchar(32) not null, "value" numeric not null, primary key ("bucket", "counter"));`,
    );
    this.addSql(
      `create table "inventory_deltas" ("id" bigserial primary key, "counter" varchar(32) not null, "bucket" bigint not null default '0', "delta" numeric not null);`,
    );
    this.addSql(
      `create table "scheduled_runs" ("job" varchar(64) not null, "ran_at" timestamptz not null, "result" jsonb not null, primary key ("job"));`,
    );

    // TRUNCATE fires no row or delete triggers: recount everything instead. (No standalone
    // functions here: the ORM's schema diff would drop them; trigger functions it leaves alone.)
    this.addSql(`create function "warren_inventory_truncated"() returns trigger language plpgsql as $$
      begin
        ${RECOUNT}
        return null;
      end $$;`);

    for (const { table, deltas, columns, update } of COUNTED) {
      this.addSql(triggerFunction(table, deltas, columns));
      const fn = `"warren_inventory_${table}_changed"()`;
      // A transition table belongs to one event, hence one trigger per event.
      this.addSql(
        `create trigger "${table}_counted_inserted" after insert on "${table}" referencing new table as "new_rows" for each statement execute function ${fn};`,
      );
      this.addSql(
        `create trigger "${table}_counted_deleted" after delete on "${table}" referencing old table as "old_rows" for each statement execute function ${fn};`,
      );
      if (update) {
        this.addSql(
          `create trigger "${table}_counted_updated" after update on "${table}" referencing new table as "new_rows" old table as "old_rows" for each statement execute function ${fn};`,
        );
      }
      this.addSql(
        `create trigger "${table}_counted_truncated" after truncate on "${table}" for each statement execute function "warren_inventory_truncated"();`,
      );
    }
    this.addSql(`do $$ begin ${RECOUNT} end $$;`);
  }

  override down(): void | Promise<void> {
    for (const { table, update } of COUNTED) {
      for (const event of ['inserted', 'deleted', ...(update ? ['updated'] : []), 'truncated'])
        this.addSql(`drop trigger "${table}_counted_${event}" on "${table}";`);
      this.addSql(`drop function "warren_inventory_${table}_changed"();`);
    }
    this.addSql(`drop function "warren_inventory_truncated"();`);
    this.addSql(`drop table if exists "scheduled_runs" cascade;`);
    this.addSql(`drop table if exists "inventory_deltas" cascade;`);
    this.addSql(`drop table if exists "inventory_counts" cascade;`);
  }
}
