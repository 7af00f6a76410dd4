import { usageBuckets, usageParts, usageSeries } from './usage-buckets.js';
import { DAILY, FIVE_MINUTES, HOURLY, USAGE_RANGES, USAGE_RANGE_NAMES } from './usage-tiers.js';

const HOUR = 3_600_000;
const now = Date.UTC(2026, 10, 26, 18, 7, 30);

test('every range has whole points, its step a multiple of its tier, the last point holding now', () => {
  for (const range of USAGE_RANGE_NAMES) {
    const { seconds, step, tier } = USAGE_RANGES[range];
    expect([range, Number.isInteger(seconds / step), step % tier.seconds]).toEqual([range, true, 0]);
    const { startMs, stepMs, points } = usageBuckets(range, now);
    expect(startMs % stepMs).toBe(0);
    expect(startMs + (points - 1) * stepMs <= now && now < startMs + points * stepMs).toBe(true);
  }
});

test('a range reads its tier up to where it is folded, then the finer tiers, each window once', () => {
  const start = usageBuckets('90d', now).startMs;
  const hourFolded = Date.UTC(2026, 10, 26, 17);
  const dayFolded = Date.UTC(2026, 10, 26);
  const folded = new Map([
    [HOURLY, hourFolded],
    [DAILY, dayFolded],
  ]);
  expect(usageParts('90d', start, folded)).toEqual([
    { tier: DAILY, fromMs: start, toMs: dayFolded },
    { tier: HOURLY, fromMs: dayFolded, toMs: hourFolded },
    { tier: FIVE_MINUTES, fromMs: hourFolded, toMs: null },
  ]);
  // Nothing folded yet: everything from the 5-minute rows.
  expect(usageParts('7d', start, new Map([[HOURLY, null]]))).toEqual([
    { tier: FIVE_MINUTES, fromMs: start, toMs: null },
  ]);
  // A short range never reads coarser rows, whatever is folded.
  expect(usageParts('24h', start, folded)).toEqual([{ tier: FIVE_MINUTES, fromMs: start, toMs: null }]);
});

test('rows are summed into their points; rows outside the range are left out', () => {
  const { startMs } = usageBuckets('7d', now);
  const series = usageSeries('7d', now, [
    { at: startMs - HOUR, up: 999, down: 999 },
    { at: startMs, up: 1, down: 10 },
    { at: startMs + 2 * HOUR, up: 2, down: 20 },
    { at: now - 60_000, up: 4, down: 40 },
  ]);
  expect(series.points).toBe(56);
  expect(series.series.up[0]).toEqual({ t: startMs, v: 3 });
  expect(series.series.down.at(-1)!.v).toBe(40);
  expect([series.upBytes, series.downBytes]).toEqual([7, 70]);
  expect(series.series.up.every((point, i) => point.t === startMs + i * 3 * HOUR)).toBe(true);
  expect(usageSeries('2y', now, []).series.down).toHaveLength(52);
});
