import { Migration } from '@mikro-orm/migrations';

/**
 * What a client list row shows of a client's devices and interfaces, kept on the client row:
 * its device count, its latest handshake and its interface ids. Before, every listed row ran three
 * correlated subqueries (devices twice, client_interfaces once): 0.6 ms of PostgreSQL per
 * 51-row page against 0.15 ms without them (pgbench, 100,000 clients; docs/benchmarks.md).
 *
 * The count and the interface ids are kept by statement triggers on devices and
 * client_interfaces, recomputed from the rows themselves in the same transaction as the change:
 * no write path (API, cascades from a deleted client or interface, bulk SQL, a restore) can
 * forget them, and a recount cannot drift. The latest handshake moves with the counter batches
 * (usage.repository.ts, the same statement that moves the devices' handshakes); deleting a device
 * recomputes it, as the maximum over the devices that remain.
 */
export class Migration20261125090000_client_summaries extends Migration {
  override name = 'Migration20261125090000_client_summaries';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "clients" add column "device_count" int not null default 0, add column "last_handshake" timestamptz null, add column "interface_ids" text[] not null default '{}';`,
    );
    this.addSql(`update "clients" c
      set "device_count" = (select count(*) from "devices" d where d."client_id" = c."id"),
          "last_handshake" = (select max(d."last_handshake") from "devices" d where d."client_id" = c."id"),
          "interface_ids" = array(select ci."interface_id"::text from "client_interfaces" ci where ci."client_id" = c."id" order by ci."interface_id");`);
    this.addSql(`create function "warren_client_devices_changed"() returns trigger language plpgsql as $$
      begin
        update "clients" c
           set "device_count" = (select count(*) from "devices" d where d."client_id" = c."id"),
               "last_handshake" = (select max(d."last_handshake") from "devices" d where d."client_id" = c."id")
         where c."id" in (select distinct "client_id" from "changed");
        return null;
      end $$;`);
    this.addSql(`create function "warren_client_interfaces_changed"() returns trigger language plpgsql as $$
      begin
        update "clients" c
           set "interface_ids" = array(select ci."interface_id"::text from "client_interfaces" ci where ci."client_id" = c."id" order by ci."interface_id")
         where c."id" in (select distinct "client_id" from "changed");
        return null;
      end $$;`);
    // A transition table belongs to one event, hence one trigger per event.
    for (const [table, fn] of [
      ['devices', 'warren_client_devices_changed'],
      ['client_interfaces', 'warren_client_interfaces_changed'],
    ]) {
      this.addSql(
        `create trigger "${table}_inserted" after insert on "${table}" referencing new table as "changed" for each statement execute function "${fn}"();`,
      );
      this.addSql(
        `create trigger "${table}_deleted" after delete on "${table}" referencing old table as "changed" for each statement execute function "${fn}"();`,
      );
    }
  }

  override down(): void | Promise<void> {
    for (const table of ['devices', 'client_interfaces']) {
      this.addSql(`drop trigger "${table}_inserted" on "${table}";`);
      this.addSql(`drop trigger "${table}_deleted" on "${table}";`);
    }
    this.addSql(`drop function "warren_client_devices_changed"();`);
    this.addSql(`drop function "warren_client_interfaces_changed"();`);
    this.addSql(
      `alter table "clients" drop column "device_count", drop column "last_handshake", drop column "interface_ids";`,
    );
  }
}
