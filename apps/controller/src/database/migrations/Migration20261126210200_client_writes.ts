import { Migration } from '@mikro-orm/migrations';

/**
 * The client summaries' triggers (Migration20261125090000_client_summaries) update only the
 * client rows whose summary actually changes. Before, every insert into devices or
 * client_interfaces rewrote each of its clients' rows even when the count and the interface ids
 * were already right: a batch of 10,000 clients wrote every client row three times (the insert
 * and one rewrite per trigger), each time through every index of clients (the trigram index
 * included) and through the inventory counters' update trigger. Creation now writes the
 * summaries with the row (ProvisioningService.createClients), so the triggers find nothing to
 * change; they stay the backstop for every other writer (cascades, bulk SQL, a restore).
 */
const DEVICES_CHANGED = `create or replace function "warren_client_devices_changed"() returns trigger language plpgsql as $$
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

const INTERFACES_CHANGED = `create or replace function "warren_client_interfaces_changed"() returns trigger language plpgsql as $$
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

/** The functions as Migration20261125090000_client_summaries made them: every named client rewritten. */
const DEVICES_CHANGED_BEFORE = `create or replace function "warren_client_devices_changed"() returns trigger language plpgsql as $$
      begin
        update "clients" c
           set "device_count" = (select count(*) from "devices" d where d."client_id" = c."id"),
               "last_handshake" = (select max(d."last_handshake") from "devices" d where d."client_id" = c."id")
         where c."id" in (select distinct "client_id" from "changed");
        return null;
      end $$;`;

const INTERFACES_CHANGED_BEFORE = `create or replace function "warren_client_interfaces_changed"() returns trigger language plpgsql as $$
      begin
        update "clients" c
           set "interface_ids" = array(select ci."interface_id"::text from "client_interfaces" ci where ci."client_id" = c."id" order by ci."interface_id")
         where c."id" in (select distinct "client_id" from "changed");
        return null;
      end $$;`;

export class Migration20261126210200_client_writes extends Migration {
  override name = 'Migration20261126210200_client_writes';

  override up(): void | Promise<void> {
    this.addSql(DEVICES_CHANGED);
    this.addSql(INTERFACES_CHANGED);
  }

  override down(): void | Promise<void> {
    this.addSql(DEVICES_CHANGED_BEFORE);
    this.addSql(INTERFACES_CHANGED_BEFORE);
  }
}
