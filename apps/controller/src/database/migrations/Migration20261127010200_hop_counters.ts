import { Migration } from '@mikro-orm/migrations';

/**
 * Per-hop traffic (docs/outbounds.md, "Traffic"): the bytes each hop carried for clients, up and
 * down, added up from the agents' counter batches (exactly once, with the clients' bytes), and
 * since when (the hop's creation, or its last reset).
 */
export class Migration20261127010200_hop_counters extends Migration {
  override name = 'Migration20261127010200_hop_counters';

  override up(): void | Promise<void> {
    this.addSql(`alter table "outbounds" add column "up_bytes" bigint not null default '0';`);
    this.addSql(`alter table "outbounds" add column "down_bytes" bigint not null default '0';`);
    this.addSql(`alter table "outbounds" add column "traffic_since" timestamptz not null default now();`);
    this.addSql(`update "outbounds" set "traffic_since" = "created_at";`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "outbounds" drop column "up_bytes";`);
    this.addSql(`alter table "outbounds" drop column "down_bytes";`);
    this.addSql(`alter table "outbounds" drop column "traffic_since";`);
  }
}
