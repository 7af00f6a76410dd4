import { Migration } from '@mikro-orm/migrations';

/**
 * Counter batches without index churn (issue 27 item 3, docs/benchmarks.md "Issue 27, items 3
 * and 4"). Every batch adds to `clients.used_bytes`, and the list's traffic order had an index on
 * it: each batch then wrote a new version of every client it touched into every index of the
 * table (2–4% HOT updates; the index the largest single cost of a batch) and the table doubled in
 * 40 s. Now the index is on `used_step`, a stored generated step of `used_bytes` that moves once
 * per 64 MiB below 1 GiB and once per 1/16 of a doubling above (64 MiB at 1 GiB, growing): a
 * batch (a few MB at most) seldom changes an indexed column, so its updates are HOT (PostgreSQL
 * compares the indexed values, generated or not). The list orders by
 * (used_step desc, used_bytes desc, id desc), which is (used_bytes desc, id desc) exactly, since
 * the step never decreases as (used_bytes, id) grows: clients without traffic (step < 0) are
 * split by the first two bytes of their id, so that group too is walked in small pieces.
 *
 * Fillfactor leaves room on each page for the new versions (new pages; the rewrite of `clients`
 * that adding a stored column makes applies it to every page of that table), and autovacuum per
 * table reclaims dead versions within minutes instead of after a fifth of the table.
 */
const USED_STEP = `case when "used_bytes" <= 0
        then get_byte(uuid_send("id"), 0) * 256 + get_byte(uuid_send("id"), 1) - 65536
        when "used_bytes" < 1073741824 then (1 + "used_bytes" / 67108864)::int
        else 17 + floor(ln("used_bytes"::float8 / 1073741824) * 23.083120654223414)::int end`;

const COUNTED_TABLES = ['clients', 'devices', 'accounts'];
const STORAGE = `fillfactor = 85, autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 1000, autovacuum_vacuum_cost_delay = 1, autovacuum_analyze_scale_factor = 0.05`;
const STORAGE_KEYS = `fillfactor, autovacuum_vacuum_scale_factor, autovacuum_vacuum_threshold, autovacuum_vacuum_cost_delay, autovacuum_analyze_scale_factor`;

export class Migration20261127140200_counter_batches extends Migration {
  override name = 'Migration20261127140200_counter_batches';

  override up(): void | Promise<void> {
    // Storage first: the rewrite below packs `clients` at the new fillfactor.
    for (const table of COUNTED_TABLES) this.addSql(`alter table "${table}" set (${STORAGE});`);
    this.addSql(`drop index "clients_used_bytes_id_index";`);
    this.addSql(`alter table "clients" add column "used_step" int generated always as (${USED_STEP}) stored;`);
    this.addSql(`create index "clients_used_step_id_index" on "clients" ("used_step", "id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "clients_used_step_id_index";`);
    this.addSql(`alter table "clients" drop column "used_step";`);
    this.addSql(`create index "clients_used_bytes_id_index" on "clients" ("used_bytes", "id");`);
    for (const table of COUNTED_TABLES) this.addSql(`alter table "${table}" reset (${STORAGE_KEYS});`);
  }
}
