import { Migration } from '@mikro-orm/migrations';

/**
 * Counter batches without index churn (issue 27 item 3, docs/benchmarks.md "Issue 27, items 3
 * and 4"). Every batch adds to `clients.used_bytes`, and the list's traffic order had an index on
 * it: each batch then wrote a new version of every client it touched into every index of the
 * table (2–4% HOT updates; the index the largest single cost of a batch) and the table doubled in
 * 40 s. Now the index is on `used_step`, a stored generated step of `used_bytes` that moves once
 * per 1/16 of a doubling (64 MiB at 1 GiB): a batch (a few MB at most) seldom changes an indexed
 * column of a client with some history, so its updates are HOT (PostgreSQL compares the indexed
 * values, generated or not). Wider steps were measured and refused: at 1,000,000 clients a step
 * of 64 MiB held 200,000 of them, and a list page inside it took 5 s to sort. The list orders by
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
        else 1 + floor(ln("used_bytes"::float8) * 23.083120654223414)::int end`;

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
