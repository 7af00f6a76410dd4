import { percentOf, type StoredSample } from './sample-rows.js';

export const SERIES = ['cpu', 'memory', 'swap', 'disk', 'rxRate', 'txRate', 'load1'] as const;
export type SeriesName = (typeof SERIES)[number];
export interface Point {
  /** Start of the bucket, ms since the epoch. */
  t: number;
  /** Mean over the bucket; null when the source reported nothing for that time. */
  v: number | null;
}
export type Series = Record<SeriesName, Point[]>;

/** What a chart shows of one row: percentages for usage, bytes per second, the 1-minute load. */
function seriesValues(row: StoredSample): Record<SeriesName, number> {
  return {
    cpu: row.cpu_percent,
    memory: percentOf(row.memory_used, row.memory_total),
    swap: percentOf(row.swap_used, row.swap_total),
    disk: percentOf(row.disk_used, row.disk_total),
    rxRate: row.rx_rate,
    txRate: row.tx_rate,
    load1: row.load1,
  };
}

export interface Buckets {
  /** Start of the first bucket, ms. */
  startMs: number;
  stepMs: number;
  points: number;
}

/**
 * Buckets aligned to multiples of the step since the epoch, the last one holding `nowMs`: two
 * reads a moment apart cut the same buckets, so a chart does not shimmer as it refreshes.
 */
export function alignedBuckets(nowMs: number, rangeSeconds: number, points: number): Buckets {
  const stepMs = (rangeSeconds * 1000) / points;
  const lastStart = Math.floor(nowMs / stepMs) * stepMs;
  return { startMs: lastStart - (points - 1) * stepMs, stepMs, points };
}

const round = (value: number) => Math.round(value * 100) / 100;

/**
 * Averages rows (sorted by time) into the buckets; a row belongs to the bucket its time falls
 * in. When a bucket is narrower than a row's resolution (`tierMs`; only the 5-minute range, 1.25 s
 * buckets over 2 s samples), most buckets hold no row although the source was reporting: such a
 * bucket takes the row nearest its middle if that row is at most one tier step away. A bucket
 * farther than that from every row is a real gap and stays null.
 */
export function bucketize(rows: readonly StoredSample[], buckets: Buckets, tierMs: number): Series {
  const sums = SERIES.map(() => new Array<number>(buckets.points).fill(0));
  const counts = new Array<number>(buckets.points).fill(0);
  const values = rows.map(seriesValues);
  rows.forEach((row, r) => {
    const index = Math.floor((row.at - buckets.startMs) / buckets.stepMs);
    if (index < 0 || index >= buckets.points) return;
    counts[index]++;
    SERIES.forEach((name, s) => (sums[s][index] += values[r][name]));
  });

  const series = Object.fromEntries(SERIES.map((name) => [name, [] as Point[]])) as Series;
  for (let index = 0; index < buckets.points; index++) {
    const t = buckets.startMs + index * buckets.stepMs;
    const fill =
      counts[index] === 0 && buckets.stepMs < tierMs ? nearestRow(rows, t + buckets.stepMs / 2, tierMs) : undefined;
    SERIES.forEach((name, s) => {
      const v =
        counts[index] > 0
          ? round(sums[s][index] / counts[index])
          : fill !== undefined
            ? round(values[fill][name])
            : null;
      series[name].push({ t, v });
    });
  }
  return series;
}

/** Index of the row (sorted by time) nearest to `time`, if one is at most `within` ms away. */
function nearestRow(rows: readonly StoredSample[], time: number, within: number): number | undefined {
  let low = 0;
  let high = rows.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (rows[middle].at < time) low = middle + 1;
    else high = middle;
  }
  // rows[low] is the first at or after `time`; the one before it is the last before.
  let best: number | undefined;
  for (const candidate of [low - 1, low]) {
    if (candidate < 0 || candidate >= rows.length) continue;
    const distance = Math.abs(rows[candidate].at - time);
    if (distance <= within && (best === undefined || distance < Math.abs(rows[best].at - time))) best = candidate;
  }
  return best;
}
