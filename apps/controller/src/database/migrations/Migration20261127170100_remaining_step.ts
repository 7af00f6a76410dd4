import { Migration } from '@mikro-orm/migrations';

/**
 * The list's `remaining` order without an index on what counter batches change (issue 27 item 5;
 * docs/benchmarks.md, "sort=remaining at 1,000,000"). The order is (quota_bytes − used_bytes asc,
 * unlimited last, id asc); an index on that expression would be rewritten by every batch, as the
 * one on used_bytes was (Migration20261127140200_counter_batches). So, like `used_step` for the
 * traffic order, `remaining_step` is a stored generated step of it, non-decreasing as (remaining,
 * id) grows, indexed with id; the list orders by (remaining_step, remaining, id), which is the
 * order exactly, and PostgreSQL's incremental sort orders each step. With r = quota − used:
 *
 * - bits 16 and up: ⌊r / 1 GiB⌋ (negative when over quota, so those come first);
 * - r a whole number of GiB (0 included: used up exactly; also an untouched client of a plan in
 *   whole GiB): the low 16 bits are 0–4095, the top 12 bits of the id, so the thousands of
 *   clients with one such key are walked in small pieces, each step holding that key alone;
 * - otherwise 4096 + ⌊64·log2 r⌋ (over quota: 8128 − ⌊64·log2(−r)⌋), 1/64 of a doubling: a step
 *   is min(1 GiB, ~1.1% of r) wide, so it moves once per 1.1% of the remaining used, or per GiB
 *   crossed, and a batch of a few MB seldom changes it: the update stays HOT;
 * - unlimited (quota 0, no key): 2^52 + the first two bytes of the id, after every finite step,
 *   so the unlimited tail is paged by id in small steps by the same index walk.
 *
 * The step is never null, so one index on (remaining_step, id) serves the whole order, the
 * crossing from limited to unlimited clients included.
 */
const REMAINING = `("quota_bytes" - "used_bytes")`;
const REMAINING_STEP = `case when "quota_bytes" = 0
        then 4503599627370496 + get_byte(uuid_send("id"), 0) * 256 + get_byte(uuid_send("id"), 1)
        else (${REMAINING} >> 30) * 65536 + case
          when ${REMAINING} & 1073741823 = 0 then get_byte(uuid_send("id"), 0) * 16 + get_byte(uuid_send("id"), 1) / 16
          when ${REMAINING} > 0 then 4096 + floor(ln(${REMAINING}::float8) * 92.33248261689366)::int
          else 8128 - floor(ln((-${REMAINING})::float8) * 92.33248261689366)::int end end`;

export class Migration20261127170100_remaining_step extends Migration {
  override name = 'Migration20261127170100_remaining_step';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "clients" add column "remaining_step" bigint generated always as (${REMAINING_STEP}) stored;`,
    );
    this.addSql(`create index "clients_remaining_step_id_index" on "clients" ("remaining_step", "id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "clients_remaining_step_id_index";`);
    this.addSql(`alter table "clients" drop column "remaining_step";`);
  }
}
