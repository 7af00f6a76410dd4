import { Inject, Injectable } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import type { PreparedPool } from '../database/prepared-pool.js';
import { PREPARED_POOL } from '../runtime.js';
import { METRIC_COLUMNS, type MetricColumn, type PendingSample, type StoredSample } from './sample-rows.js';
import { RAW, type Rollup, type Tier } from './tiers.js';

/** Rows per INSERT: bounds the statement text (about 250 bytes a row) when a backlog is written. */
const INSERT_CHUNK = 1000;

/** How a rollup combines a column: counters and facts that only grow take the latest, the rest the mean. */
const AGGREGATE: Record<MetricColumn, 'avg' | 'max'> = {
  cpu_percent: 'avg',
  cores: 'max',
  load1: 'avg',
  load5: 'avg',
  load15: 'avg',
  memory_used: 'avg',
  memory_total: 'avg',
  swap_used: 'avg',
  swap_total: 'avg',
  disk_used: 'avg',
  disk_total: 'avg',
  rx_bytes: 'max',
  tx_bytes: 'max',
  rx_rate: 'avg',
  tx_rate: 'avg',
  uptime_seconds: 'max',
  process_rss: 'avg',
};

const COLUMNS = ['source', 'tier', 'at', ...METRIC_COLUMNS].join(', ');
const SELECT_ROW = `source, (extract(epoch from at) * 1000)::float8 as at, ${METRIC_COLUMNS.join(', ')}`;
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Every read and write of system history (table system_samples, see system-sample.entity.ts).
 * Raw SQL on purpose, measured in docs/system.md: the raw tier is written in multi-row INSERTs
 * of up to a thousand rows every 2 s (77 ms median for 1,000 rows into 2 M), rollups and pruning
 * are set-based statements over every source at once (~175 ms a run for 1,000 sources), and the
 * snapshot's fallback is one lateral index probe per source; none of these has an entity or
 * QueryBuilder form that stays one statement. MikroORM's execute inlines `?` parameters as
 * literals; times travel as ISO strings cast to timestamptz, arrays as `array[?]`, and every
 * number the panel writes is finite (samples are validated).
 */
@Injectable()
export class SystemHistoryRepository {
  constructor(
    @Inject(MikroORM) private readonly orm: MikroORM,
    @Inject(PREPARED_POOL) private readonly prepared: PreparedPool,
  ) {}

  private rows<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.orm.em.getConnection().execute<T[]>(sql, params);
  }

  private async run(sql: string, params: unknown[] = []): Promise<number> {
    const result = await this.orm.em.getConnection().execute<{ affectedRows: number }>(sql, params, 'run');
    return result.affectedRows;
  }

  /** Raw samples, one multi-row INSERT per thousand; a repeat (same source and time) is ignored. */
  async insertRaw(samples: readonly PendingSample[]): Promise<void> {
    for (let start = 0; start < samples.length; start += INSERT_CHUNK) {
      const chunk = samples.slice(start, start + INSERT_CHUNK);
      const row = `(?, ${RAW.seconds}, ?::timestamptz, ${METRIC_COLUMNS.map(() => '?').join(', ')})`;
      await this.run(
        `insert into system_samples (${COLUMNS}) values ${chunk.map(() => row).join(', ')} on conflict do nothing`,
        chunk.flatMap((sample) => [
          sample.source,
          iso(sample.at),
          ...METRIC_COLUMNS.map((column) => sample.values[column]),
        ]),
      );
    }
  }

  /** One source's rows of one tier with `from <= at < to`, oldest first. */
  range(source: string, tier: Tier, fromMs: number, toMs: number): Promise<StoredSample[]> {
    return this.rows<StoredSample>(
      `select ${SELECT_ROW} from system_samples
        where source = ? and tier = ? and at >= ?::timestamptz and at < ?::timestamptz order by at`,
      [source, tier.seconds, iso(fromMs), iso(toMs)],
    );
  }

  /**
   * The newest raw row of each source at or after `notBeforeMs`: one index probe per source. A
   * named prepared statement: the snapshot asks this on every request for each node without a
   * fresh sample in memory (an offline node, always).
   */
  async newestRaw(sources: readonly string[], notBeforeMs: number): Promise<Map<string, StoredSample>> {
    if (sources.length === 0) return new Map();
    const rows = await this.prepared.query<StoredSample>(
      'system-newest-raw',
      `select latest.* from unnest($1::uuid[]) as wanted(source)
        cross join lateral (
          select ${SELECT_ROW} from system_samples
           where source = wanted.source and tier = ${RAW.seconds} and at >= $2::timestamptz
           order by at desc limit 1
        ) latest`,
      [sources, iso(notBeforeMs)],
    );
    return new Map(rows.map((row) => [row.source, row]));
  }

  /** The start of the newest row of a tier over all sources, or null when it is empty. */
  async newestAt(tier: Tier): Promise<number | null> {
    const [row] = await this.rows<{ at: number | null }>(
      `select (extract(epoch from max(at)) * 1000)::float8 as at from system_samples where tier = ?`,
      [tier.seconds],
    );
    return row?.at ?? null;
  }

  /**
   * (Re)computes the `to` tier's windows starting at or after `fromMs` (aligned down to a window)
   * from the `from` tier's rows up to `nowMs`, for every source at once. Windows are aligned to
   * the epoch, so every replica and every run cuts the same windows, and writing a window again
   * replaces it: the partial current window grows run by run. Returns the rows written.
   */
  rollUp(rollup: Rollup, fromMs: number, nowMs: number): Promise<number> {
    const width = rollup.to.seconds;
    const windowStart = Math.floor(fromMs / (width * 1000)) * width * 1000;
    const aggregates = METRIC_COLUMNS.map((column) => `${AGGREGATE[column]}(${column})`).join(', ');
    const updates = METRIC_COLUMNS.map((column) => `${column} = excluded.${column}`).join(', ');
    return this.run(
      `insert into system_samples (${COLUMNS})
       select source, ${width}, to_timestamp(floor(extract(epoch from at) / ${width}) * ${width}) as window_start, ${aggregates}
         from system_samples
        where tier = ${rollup.from.seconds} and at >= ?::timestamptz and at <= ?::timestamptz
        group by source, window_start
       on conflict (source, tier, at) do update set ${updates}`,
      [iso(windowStart), iso(nowMs)],
    );
  }

  /** Deletes a tier's rows older than `beforeMs`. Returns how many. */
  prune(tier: Tier, beforeMs: number): Promise<number> {
    return this.run(`delete from system_samples where tier = ? and at < ?::timestamptz`, [tier.seconds, iso(beforeMs)]);
  }
}
