/**
 * How usage history is kept (docs/clients.md, "Usage history"): three tiers of one table per
 * subject (client, node), folded as system history is: counter batches add to the current
 * 5-minute bucket, closed 5-minute buckets are summed into hours and closed hours into days, and
 * each tier is pruned past what its longest range needs plus a margin.
 */
export interface UsageTier {
  /** Seconds one row stands for; also the row's `tier` column. */
  seconds: number;
  /** Rows older than this are pruned. */
  retentionSeconds: number;
}

const HOUR = 3600;
const DAY = 86_400;

/** Written by the counter batches: 48 hours of them are kept (and an hour's margin). */
export const FIVE_MINUTES: UsageTier = { seconds: 300, retentionSeconds: 49 * HOUR };
/** Sums of the 5-minute rows per hour: 90 days (and a day's margin). */
export const HOURLY: UsageTier = { seconds: HOUR, retentionSeconds: 91 * DAY };
/** Sums of the hourly rows per day (UTC): two years (and two days' margin). */
export const DAILY: UsageTier = { seconds: DAY, retentionSeconds: 732 * DAY };

/** Finest first. */
export const USAGE_TIERS: readonly UsageTier[] = [FIVE_MINUTES, HOURLY, DAILY];

/** Each rollup folds the `from` tier's closed windows into the `to` tier, once each. */
export const USAGE_ROLLUPS: readonly { from: UsageTier; to: UsageTier }[] = [
  { from: FIVE_MINUTES, to: HOURLY },
  { from: HOURLY, to: DAILY },
];

/**
 * A window is folded once it ended this long ago: a counter batch stamps its bucket when its
 * transaction starts, so one still running as the window closes may add to it a moment later.
 */
export const FOLD_AFTER_MS = 2 * 60_000;

/**
 * Ranges of GET /api/clients/{id}/usage and /api/overview/usage: how far back, the width of a
 * point (a multiple of the tier it reads), and the coarsest tier fine enough and kept long enough.
 */
export const USAGE_RANGES = {
  '1h': { seconds: HOUR, step: 300, tier: FIVE_MINUTES },
  '24h': { seconds: DAY, step: 1800, tier: FIVE_MINUTES },
  '48h': { seconds: 2 * DAY, step: HOUR, tier: FIVE_MINUTES },
  '7d': { seconds: 7 * DAY, step: 3 * HOUR, tier: HOURLY },
  '30d': { seconds: 30 * DAY, step: 12 * HOUR, tier: HOURLY },
  '90d': { seconds: 90 * DAY, step: DAY, tier: DAILY },
  '1y': { seconds: 364 * DAY, step: 7 * DAY, tier: DAILY },
  '2y': { seconds: 728 * DAY, step: 14 * DAY, tier: DAILY },
} as const satisfies Record<string, { seconds: number; step: number; tier: UsageTier }>;

export type UsageRange = keyof typeof USAGE_RANGES;
export const USAGE_RANGE_NAMES = Object.keys(USAGE_RANGES) as UsageRange[];
export const DEFAULT_USAGE_RANGE: UsageRange = '24h';

/** Start of the 5-minute bucket holding `at`: where a counter batch received then adds its bytes. */
export function currentBucket(at: Date): Date {
  const width = FIVE_MINUTES.seconds * 1000;
  return new Date(Math.floor(at.getTime() / width) * width);
}
