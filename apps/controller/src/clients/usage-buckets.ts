import type { TierPart, UsageRow } from './usage-history.repository.js';
import { FIVE_MINUTES, USAGE_RANGES, USAGE_TIERS, type UsageRange, type UsageTier } from './usage-tiers.js';

export interface UsagePoint {
  /** Start of the bucket, ms since the epoch. */
  t: number;
  /** Bytes in the bucket (0 when nothing moved). */
  v: number;
}

export interface UsageSeries {
  range: UsageRange;
  /** Seconds per point. */
  step: number;
  points: number;
  series: { up: UsagePoint[]; down: UsagePoint[] };
  /** Sums of the series: the bytes of the whole range. */
  upBytes: number;
  downBytes: number;
}

/**
 * Where each tier's rows stop being folded into the next coarser one: the end of the coarser
 * tier's newest window (null: that tier has no rows yet). Rows past it are read from the finer tier.
 */
export type FoldedUntil = ReadonlyMap<UsageTier, number | null>;

/** The buckets of a range: aligned to multiples of the step since the epoch, the last holding `nowMs`. */
export function usageBuckets(range: UsageRange, nowMs: number): { startMs: number; stepMs: number; points: number } {
  const { seconds, step } = USAGE_RANGES[range];
  const stepMs = step * 1000;
  const points = seconds / step;
  const lastStart = Math.floor(nowMs / stepMs) * stepMs;
  return { startMs: lastStart - (points - 1) * stepMs, stepMs, points };
}

/**
 * Which rows a range reads: its tier up to where that tier is folded, then each finer tier from
 * there, the 5-minute tier to the end. A window is in exactly one tier's part, so no byte is
 * counted twice, and the partial current hour and day come from the finer rows.
 */
export function usageParts(range: UsageRange, startMs: number, folded: FoldedUntil): TierPart[] {
  const wanted = USAGE_RANGES[range].tier;
  const tiers = USAGE_TIERS.slice(0, USAGE_TIERS.indexOf(wanted) + 1).reverse();
  const parts: TierPart[] = [];
  let cursor = startMs;
  for (const tier of tiers) {
    if (tier === FIVE_MINUTES) {
      parts.push({ tier, fromMs: cursor, toMs: null });
      break;
    }
    const until = folded.get(tier) ?? null;
    if (until === null || until <= cursor) continue;
    parts.push({ tier, fromMs: cursor, toMs: until });
    cursor = until;
  }
  return parts;
}

/** Sums rows (each within one bucket: steps are whole multiples of the tiers' windows) into the buckets. */
export function usageSeries(range: UsageRange, nowMs: number, rows: readonly UsageRow[]): UsageSeries {
  const { startMs, stepMs, points } = usageBuckets(range, nowMs);
  const up = new Array<number>(points).fill(0);
  const down = new Array<number>(points).fill(0);
  for (const row of rows) {
    const index = Math.floor((row.at - startMs) / stepMs);
    if (index < 0 || index >= points) continue;
    up[index] += row.up;
    down[index] += row.down;
  }
  const t = (index: number) => startMs + index * stepMs;
  return {
    range,
    step: stepMs / 1000,
    points,
    series: { up: up.map((v, i) => ({ t: t(i), v })), down: down.map((v, i) => ({ t: t(i), v })) },
    upBytes: up.reduce((sum, v) => sum + v, 0),
    downBytes: down.reduce((sum, v) => sum + v, 0),
  };
}
