import { alignedBuckets, bucketize } from './history-buckets.js';
import type { StoredSample } from './sample-rows.js';

function row(at: number, cpu: number, over: Partial<StoredSample> = {}): StoredSample {
  return {
    source: 's',
    at,
    cpu_percent: cpu,
    cores: 2,
    load1: 0.5,
    load5: 0,
    load15: 0,
    memory_used: 1,
    memory_total: 4,
    swap_used: 0,
    swap_total: 0,
    disk_used: 3,
    disk_total: 4,
    rx_bytes: 0,
    tx_bytes: 0,
    rx_rate: 10,
    tx_rate: 20,
    uptime_seconds: 1,
    process_rss: 1,
    ...over,
  };
}

describe('alignedBuckets', () => {
  test('multiples of the step since the epoch, the last one holding now', () => {
    const now = 1_800_000_007_500;
    const buckets = alignedBuckets(now, 3600, 240);
    expect(buckets.stepMs).toBe(15_000);
    expect(buckets.startMs % 15_000).toBe(0);
    const last = buckets.startMs + 239 * 15_000;
    expect(last).toBeLessThanOrEqual(now);
    expect(last + 15_000).toBeGreaterThan(now);
    // A moment later, within the same bucket: the same buckets.
    expect(alignedBuckets(now + 1000, 3600, 240)).toEqual(buckets);
  });

  test('5 minutes: 1.25 s buckets', () => {
    expect(alignedBuckets(1_800_000_000_000, 300, 240).stepMs).toBe(1250);
  });
});

describe('bucketize', () => {
  const buckets = { startMs: 0, stepMs: 10_000, points: 4 };

  test('averages the rows of each bucket; an empty bucket is null; rows outside are ignored', () => {
    const series = bucketize([row(-1, 99), row(0, 10), row(5000, 20), row(25_000, 60), row(40_000, 99)], buckets, 2000);
    expect(series.cpu).toEqual([
      { t: 0, v: 15 },
      { t: 10_000, v: null },
      { t: 20_000, v: 60 },
      { t: 30_000, v: null },
    ]);
    expect(series.memory.map((point) => point.v)).toEqual([25, null, 25, null]);
    expect(series.disk[0].v).toBe(75);
    expect(series.swap[0].v).toBe(0);
    expect(series.rxRate[0].v).toBe(10);
    expect(series.txRate[0].v).toBe(20);
    expect(series.load1[0].v).toBe(0.5);
  });

  test('values are rounded to two decimals', () => {
    expect(bucketize([row(0, 1), row(1, 1), row(2, 2)], buckets, 2000).cpu[0].v).toBe(1.33);
  });

  test('buckets narrower than the rows: filled from the row nearest their middle, within one row step', () => {
    // 1.25 s buckets over 2 s samples (cpu = the sample's second), with a gap from 6 s to 14 s.
    const narrow = { startMs: 0, stepMs: 1250, points: 16 };
    const rows = [0, 2000, 4000, 6000, 14_000, 16_000].map((at) => row(at, at / 1000));
    const values = bucketize(rows, narrow, 2000).cpu.map((point) => point.v);
    // Bucket 2 (2.5..3.75 s, middle 3.125) takes the 4 s sample; bucket 6 (middle 8.125) is 2.125 s
    // from the nearest sample: a gap. After the last sample, one bucket is still covered.
    expect(values).toEqual([0, 2, 4, 4, 6, 6, null, null, null, null, 14, 14, 16, 16, null, null]);
  });

  test('buckets as wide as the rows or wider are never filled from outside', () => {
    const series = bucketize([row(0, 10), row(25_000, 30)], buckets, 10_000);
    expect(series.cpu.map((point) => point.v)).toEqual([10, null, 30, null]);
  });
});
