import { Migration } from '@mikro-orm/migrations';

/**
 * The client summaries' triggers (Migration20261126210200_client_writes) find their clients by
 * primary key. They joined `clients` to the statement's transition table, of which PostgreSQL
 * has no statistics: it planned a hash join over a sequential scan of every client (and JIT for a
 * plan that costly), so each insert into devices or client_interfaces read the whole clients
 * table. At 400,000 clients a batch of 10,000 spent most of its time there: POST
 * /api/clients/batch fell from 977 to 261 clients/s on the way to 1,000,000 (docs/benchmarks.md,
 * "Clients: 1,000,000 clients"). `c.id = any(array(…))` is an index condition the planner
 * cannot turn into a scan of the table, so the cost follows the rows changed, not the clients
 * stored. Same results: only the where clause gains the condition.
 */
const DEVICES_CHANGED = `create or replace function "warren_client_devices_changed"() returns trigger language plpgsql as $$
      begin
        update "clients" c
           set "device_count" = s."device_count", "last_handshake" = s."last_handshake"
          from (select i."client_id", n."device_count", n."last_handshake"
                  from (select distinct "client_id" from "changed") i
                  cross join lateral (select count(*)::int as "device_count", max(d."last_handshake") as "last_handshake"
                                        from "devices" d where d."client_id" = i."client_id") n) s
         where c."id" = any(array(select distinct "client_id" from "changed"))
           and c."id" = s."client_id"
           and (c."device_count", c."last_handshake") is distinct from (s."device_count", s."last_handshake");
        return null;
      end $$;`;

const INTERFACES_CHANGED = `create or replace function "warren_client_interfaces_changed"() returns trigger language plpgsql as $$
      begin
        update "clients" c
           set "interface_ids" = s."interface_ids"
          from (select i."client_id",
                       array(select ci."interface_id"::text from "client_interfaces" ci
                              where ci."client_id" = i."client_id" order by ci."interface_id") as "interface_ids"
                  from (select distinct "client_id" from "changed") i) s
         where c."id" = any(array(select distinct "client_id" from "changed"))
           and c."id" = s."client_id"
           and c."interface_ids" is distinct from s."interface_ids";
        return null;
      end $$;`;

/** The functions as Migration20261126210200_client_writes made them. */
const DEVICES_CHANGED_BEFORE = `create or replace function "warren_client_devices_changed"() returns trigger language plpgsql as $$
      begin
        update "clients" c
           set "device_count" = s."device_count", "last_handshake" = s."last_handshake"
          from (select i."client_id", n."device_count", n."last_handshake"
                  from (select distinct "client_id" from "changed") i
                  cross join lateral (select count(*)::int as "device_count", max(d."last_handshake") as "last_handshake"
                                        from "devices" d where d."client_id" = i."client_id") n) s
         where c."id" = s."client_id"
           and (c."device_count", c."last_handshake") is distinct from (s."device_count", s."last_handshake");
        return null;
      end $$;`;

const INTERFACES_CHANGED_BEFORE = `create or replace function "warren_client_interfaces_changed"() returns trigger language plpgsql as $$
      begin
        update "clients" c
           set "interface_ids" = s."interface_ids"
          from (select i."client_id",
                       array(select ci."interface_id"::text from "client_interfaces" ci
                              where ci."client_id" = i."client_id" order by ci."interface_id") as "interface_ids"
                  from (select distinct "client_id" from "changed") i) s
         where c."id" = s."client_id"
           and c."interface_ids" is distinct from s."interface_ids";
        return null;
      end $$;`;

export class Migration20261127090100_million_clients extends Migration {
  override name = 'Migration20261127090100_million_clients';

  override up(): void | Promise<void> {
    this.addSql(DEVICES_CHANGED);
    this.addSql(INTERFACES_CHANGED);
  }

  override down(): void | Promise<void> {
    this.addSql(DEVICES_CHANGED_BEFORE);
    this.addSql(INTERFACES_CHANGED_BEFORE);
  }
}
