import { Inject, Injectable } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import type { PreparedPool } from '../database/prepared-pool.js';
import { PREPARED_POOL } from '../runtime.js';

/** The inventory counters as stored (Migration20261125110000_inventory_counters), by counter name. */
export type CounterValues = ReadonlyMap<string, number>;

/** The last recorded run of a scheduled job (queue/scheduled-runs.ts). */
export interface RecordedRun {
  ranAt: Date;
  result: Record<string, unknown>;
}

export interface InventoryReading {
  counters: CounterValues;
  /** The enforcement run's record, when asked for one and it exists. */
  run: RecordedRun | null;
}

interface ReadingRow {
  counters: Record<string, string> | null;
  ran_at_ms: number | null;
  result: Record<string, unknown> | null;
}

/**
 * The inventory counters: the folded totals plus the deltas not folded yet, read in one
 * statement (one snapshot: a fold committing meanwhile is seen either wholly or not at all), and
 * the fold. The read is raw SQL on the prepared pool: it runs on every overview request, and
 * planning it took 0.4-0.8 ms of PostgreSQL against 0.1-0.2 ms to run it (EXPLAIN ANALYZE here),
 * so it is planned once per connection. The sums over `numeric` are read as text (a total may pass
 * 2^53).
 */
@Injectable()
export class InventoryRepository {
  constructor(
    @Inject(MikroORM) private readonly orm: MikroORM,
    @Inject(PREPARED_POOL) private readonly prepared: PreparedPool,
  ) {}

  /**
   * Every plain counter (bucket 0) and `online`: the devices whose latest handshake lies after
   * `onlineAfterMs`, counted by the second it falls in (a handshake in second b is after t exactly
   * when b > floor(t) for whole-second handshakes, which WireGuard's are); and the recorded run
   * of `job`. The bound is a bigint, as the column: a numeric one would make PostgreSQL cast every
   * bucket and scan them all instead of the index range.
   */
  async read(onlineAfterMs: number, job: string): Promise<InventoryReading> {
    const [row] = await this.prepared.query<ReadingRow>(
      'overview-inventory',
      `select (select json_object_agg(x.counter, x.value::text) from (
                 select counter, sum(value) as value from (
                   select counter, value from inventory_counts where bucket = 0
                   union all select counter, value from inventory_counts where bucket > $1::bigint and counter = 'online'
                   union all select counter, delta from inventory_deltas where bucket = 0 or (bucket > $1::bigint and counter = 'online')
                 ) v group by counter) x) as counters,
              (extract(epoch from r.ran_at) * 1000)::float8 as ran_at_ms, r.result
         from (select 1) one left join scheduled_runs r on r.job = $2`,
      [Math.floor(onlineAfterMs / 1000), job],
    );
    const counters = new Map(Object.entries(row?.counters ?? {}).map(([name, value]) => [name, Number(value)]));
    const run =
      row && row.ran_at_ms !== null && row.result ? { ranAt: new Date(row.ran_at_ms), result: row.result } : null;
    return { counters, run };
  }

  /**
   * Moves the deltas into the totals and drops `online` buckets older than the triggers keep
   * (an hour); returns how many deltas moved. One fold at a time across replicas (a transaction
   * advisory lock; a fold that finds one running has nothing to do).
   */
  async fold(): Promise<number> {
    return this.orm.em.fork().transactional(async (em) => {
      const [lock] = await em.execute<{ locked: boolean }[]>(
        `select pg_try_advisory_xact_lock(hashtext('warren_inventory_fold')) as locked`,
      );
      if (!lock.locked) return 0;
      const [moved] = await em.execute<{ n: string }[]>(
        `with d as (delete from inventory_deltas returning bucket, counter, delta),
              s as (select bucket, counter, sum(delta) as delta from d group by bucket, counter),
              f as (insert into inventory_counts (bucket, counter, value)
                    select bucket, counter, delta from s where delta <> 0
                    on conflict (bucket, counter) do update set value = inventory_counts.value + excluded.value)
         select count(*) as n from d`,
      );
      await em.execute(
        `delete from inventory_counts
          where value = 0 or (counter = 'online' and bucket < floor(extract(epoch from now() - interval '1 hour')))`,
      );
      return Number(moved.n);
    });
  }
}
