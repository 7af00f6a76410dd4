import { Migration } from '@mikro-orm/migrations';

/**
 * System history (docs/system.md): raw samples and their 60 s and 600 s averages in one table,
 * keyed by source (a node id, or the nil UUID for the controller's own host), tier and time.
 * The (tier, at) index serves the rollups and the pruning, which work on one tier across every
 * source by time.
 */
export class Migration20261123150000_system_history extends Migration {
  override name = 'Migration20261123150000_system_history';

  override up(): void | Promise<void> {
    this.addSql(`create table "system_samples" (
      "source" uuid not null,
      "tier" smallint not null,
      "at" timestamptz not null,
      "cpu_percent" double precision not null,
      "cores" smallint not null,
      "load1" double precision not null,
      "load5" double precision not null,
      "load15" double precision not null,
      "memory_used" double precision not null,
      "memory_total" double precision not null,
      "swap_used" double precision not null,
      "swap_total" double precision not null,
      "disk_used" double precision not null,
      "disk_total" double precision not null,
      "rx_bytes" double precision not null,
      "tx_bytes" double precision not null,
      "rx_rate" double precision not null,
      "tx_rate" double precision not null,
      "uptime_seconds" double precision not null,
      "process_rss" double precision not null,
      primary key ("source", "tier", "at"));`);
    this.addSql(`create index "system_samples_tier_at_index" on "system_samples" ("tier", "at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "system_samples" cascade;`);
  }
}
