import { Migration } from '@mikro-orm/migrations';

/**
 * Usage history (docs/clients.md, "Usage history"): bytes up and down per client and per node in
 * 5-minute, hourly and daily buckets, one narrow row per subject, tier and bucket. Counter
 * batches add to the current 5-minute row in place (an upsert), so the rows are updated far more
 * often than inserted: fillfactor 60 leaves room on each page for the new row versions, and no
 * index holds the byte columns, so those updates are HOT (no index is touched). The (tier, at)
 * indexes serve the rollups and the pruning, which work on one tier across every subject by time.
 *
 * Accounts get the rate of their latest counter report (bytes per second between the agent's
 * last two readings) and until when it holds: a peer that moved nothing is not reported, so its
 * rate lapses instead of being zeroed.
 */
export class Migration20261126180200_client_usage_history extends Migration {
  override name = 'Migration20261126180200_client_usage_history';

  override up(): void | Promise<void> {
    this.addSql(`create table "client_usage_history" (
      "client_id" uuid not null,
      "tier" int not null,
      "at" timestamptz not null,
      "up_bytes" bigint not null,
      "down_bytes" bigint not null,
      constraint "client_usage_history_pkey" primary key ("client_id", "tier", "at")) with (fillfactor = 60);`);
    this.addSql(
      `alter table "client_usage_history" add constraint "client_usage_history_client_id_foreign" foreign key ("client_id") references "clients" ("id") on delete cascade;`,
    );
    this.addSql(`create index "client_usage_history_tier_at_index" on "client_usage_history" ("tier", "at");`);
    this.addSql(`create table "node_usage_history" (
      "node_id" uuid not null,
      "tier" int not null,
      "at" timestamptz not null,
      "up_bytes" bigint not null,
      "down_bytes" bigint not null,
      constraint "node_usage_history_pkey" primary key ("node_id", "tier", "at")) with (fillfactor = 60);`);
    this.addSql(`create index "node_usage_history_tier_at_index" on "node_usage_history" ("tier", "at");`);
    this.addSql(`alter table "accounts" add column "rate_until" timestamptz null,
      add column "up_rate" bigint not null default '0', add column "down_rate" bigint not null default '0';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "client_usage_history" cascade;`);
    this.addSql(`drop table if exists "node_usage_history" cascade;`);
    this.addSql(`alter table "accounts" drop column "rate_until", drop column "up_rate", drop column "down_rate";`);
  }
}
