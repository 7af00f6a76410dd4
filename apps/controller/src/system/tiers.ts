/**
 * How system history is kept: three tiers of one table, each serving the ranges it has enough
 * resolution for, each kept as long as its longest range needs plus a margin (so a bucket at the
 * start of a range is never cut by pruning between two runs). docs/system.md explains the choice.
 */
export interface Tier {
  /** Resolution: seconds one row stands for; also the row's `tier` column. */
  seconds: number;
  /** Rows older than this are pruned. */
  retentionSeconds: number;
}

/** The samples as they arrive, one per source every 2 s. */
export const RAW: Tier = { seconds: 2, retentionSeconds: 65 * 60 };
/** Averages of the raw samples per minute. */
export const MINUTE: Tier = { seconds: 60, retentionSeconds: 25 * 3600 };
/** Averages of the minute rows per ten minutes. */
export const TEN_MINUTES: Tier = { seconds: 600, retentionSeconds: 7 * 86400 + 3600 };

export const TIERS: readonly Tier[] = [RAW, MINUTE, TEN_MINUTES];

/**
 * Each rollup recomputes the windows of the last `lookbackSeconds` (and any the previous runs
 * missed, back to the source tier's retention): the current window is partial and is refreshed
 * on every run, and samples flushed late by another replica still land in their window.
 */
export interface Rollup {
  from: Tier;
  to: Tier;
  lookbackSeconds: number;
}
export const ROLLUPS: readonly Rollup[] = [
  { from: RAW, to: MINUTE, lookbackSeconds: 5 * 60 },
  { from: MINUTE, to: TEN_MINUTES, lookbackSeconds: 20 * 60 },
];

/** Every history answer has exactly this many points per series, whatever the range. */
export const HISTORY_POINTS = 240;

/** Ranges of GET /api/system/history and the tier each is read from (the coarsest fine enough). */
export const HISTORY_RANGES = {
  '5m': { seconds: 5 * 60, tier: RAW },
  '1h': { seconds: 3600, tier: RAW },
  '6h': { seconds: 6 * 3600, tier: MINUTE },
  '24h': { seconds: 24 * 3600, tier: MINUTE },
  '48h': { seconds: 48 * 3600, tier: TEN_MINUTES },
  '7d': { seconds: 7 * 86400, tier: TEN_MINUTES },
} as const satisfies Record<string, { seconds: number; tier: Tier }>;

export type HistoryRange = keyof typeof HISTORY_RANGES;
export const HISTORY_RANGE_NAMES = Object.keys(HISTORY_RANGES) as HistoryRange[];
export const DEFAULT_HISTORY_RANGE: HistoryRange = '1h';

/**
 * The history source of the controller's own host. Nodes are their ids; the nil UUID can never
 * be one (ids are random v4), so one uuid column holds both.
 */
export const CONTROLLER_SOURCE = '00000000-0000-0000-0000-000000000000';
