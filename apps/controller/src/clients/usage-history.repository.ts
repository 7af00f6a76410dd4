import { Inject, Injectable } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import type { UsageTier } from './usage-tiers.js';

/** Whose history: one table per subject, the same shape (usage-history.entity.ts). */
export interface UsageSubject {
  table: 'client_usage_history' | 'node_usage_history';
  key: 'client_id' | 'node_id';
}
export const CLIENT_USAGE: UsageSubject = { table: 'client_usage_history', key: 'client_id' };
export const NODE_USAGE: UsageSubject = { table: 'node_usage_history', key: 'node_id' };

/** The rows of one tier a read takes: `from <= at < to` (to null: no end). */
export interface TierPart {
  tier: UsageTier;
  fromMs: number;
  toMs: number | null;
}

export interface UsageRow {
  at: number;
  up: number;
  down: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Every read, rollup and pruning of usage history; the writes are part of the counter batch's
 * statement (usage.repository.ts), so they count exactly when the totals do. Raw SQL for the
 * reasons of system history (history.repository.ts): set-based statements over every subject at
 * once. MikroORM's execute inlines `?` as literals: times travel as ISO text, tiers and table
 * names come from the code.
 */
@Injectable()
export class UsageHistoryRepository {
  constructor(@Inject(MikroORM) private readonly orm: MikroORM) {}

  private rows<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.orm.em.getConnection().execute<T[]>(sql, params);
  }

  private async run(sql: string, params: unknown[] = []): Promise<number> {
    const result = await this.orm.em.getConnection().execute<{ affectedRows: number }>(sql, params, 'run');
    return result.affectedRows;
  }

  /**
   * The rows of the parts, summed over the subjects asked for (one id, or every subject when
   * `id` is null: the overview's total over nodes), oldest first. One statement; each part is a
   * range of the primary key (one id) or of the (tier, at) index (all).
   */
  async read(subject: UsageSubject, id: string | null, parts: readonly TierPart[]): Promise<UsageRow[]> {
    if (parts.length === 0) return [];
    const params: unknown[] = id === null ? [] : [id];
    const ranges = parts.map((part) => {
      params.push(iso(part.fromMs));
      if (part.toMs !== null) params.push(iso(part.toMs));
      return `(tier = ${part.tier.seconds} and at >= ?::timestamptz${part.toMs === null ? '' : ' and at < ?::timestamptz'})`;
    });
    const rows = await this.rows<{ at: number; up: string | number; down: string | number }>(
      `select (extract(epoch from at) * 1000)::float8 as at, sum(up_bytes)::float8 as up, sum(down_bytes)::float8 as down
         from ${subject.table}
        where ${id === null ? '' : `${subject.key} = ? and `}(${ranges.join(' or ')})
        group by at order by at`,
      params,
    );
    return rows.map((row) => ({ at: Number(row.at), up: Number(row.up), down: Number(row.down) }));
  }

  /** The start of the newest row of a tier over every subject, or null when it is empty. */
  async newestAt(subject: UsageSubject, tier: UsageTier): Promise<number | null> {
    const [row] = await this.rows<{ at: number | null }>(
      `select (extract(epoch from max(at)) * 1000)::float8 as at from ${subject.table} where tier = ?`,
      [tier.seconds],
    );
    return row?.at ?? null;
  }

  /**
   * Sums the `from` tier's rows with `fromMs <= at < toMs` (whole `to` windows) into `to` rows,
   * for every subject at once. Writing a window again replaces it (the same sums), so a run
   * repeated by another replica changes nothing. Returns the rows written.
   */
  rollUp(subject: UsageSubject, from: UsageTier, to: UsageTier, fromMs: number, toMs: number): Promise<number> {
    const width = to.seconds;
    return this.run(
      `insert into ${subject.table} (${subject.key}, tier, at, up_bytes, down_bytes)
       select ${subject.key}, ${width}, to_timestamp(floor(extract(epoch from at) / ${width}) * ${width}) as window_start,
              least(sum(up_bytes), ${Number.MAX_SAFE_INTEGER}), least(sum(down_bytes), ${Number.MAX_SAFE_INTEGER})
         from ${subject.table}
        where tier = ${from.seconds} and at >= ?::timestamptz and at < ?::timestamptz
        group by ${subject.key}, window_start
       on conflict (${subject.key}, tier, at) do update set up_bytes = excluded.up_bytes, down_bytes = excluded.down_bytes`,
      [iso(fromMs), iso(toMs)],
    );
  }

  /** Deletes a tier's rows older than `beforeMs`. Returns how many. */
  prune(subject: UsageSubject, tier: UsageTier, beforeMs: number): Promise<number> {
    return this.run(`delete from ${subject.table} where tier = ? and at < ?::timestamptz`, [
      tier.seconds,
      iso(beforeMs),
    ]);
  }
}
