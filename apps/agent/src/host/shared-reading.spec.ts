import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { SharedReading } from './shared-reading.js';

/**
 * A reader that counts its reads, each one settled by the test: reading n answers n (or fails with
 * "read n"), so who got which reading shows.
 */
function countingReader() {
  const pending: { resolve: (n: number) => void; reject: (error: Error) => void; n: number }[] = [];
  let reads = 0;
  const shared = new SharedReading<number>(
    () =>
      new Promise<number>((resolve, reject) => {
        reads += 1;
        pending.push({ resolve, reject, n: reads });
      }),
  );
  return {
    shared,
    reads: () => reads,
    /** Settles the oldest read still open: its number, or a failure. */
    finish(fail = false) {
      const read = pending.shift()!;
      if (fail) read.reject(new Error(`read ${read.n}`));
      else read.resolve(read.n);
    },
  };
}

test('a reading in flight serves everyone who asks for one begun at or before its start', async () => {
  const { shared, reads, finish } = countingReader();
  const asked = performance.now();
  const first = shared.since(asked);
  const second = shared.since(asked);
  expect(reads()).toBe(1);
  finish();
  expect(await first).toBe(1);
  expect(await second).toBe(1);
});

test('a reading begun before the moment asked for is not shared: a new one is read, and then shared', async () => {
  const { shared, reads, finish } = countingReader();
  const early = shared.since(performance.now());
  await sleep(5);
  // The quota correction's case: the kernel was read after `early` began.
  const kernelRead = performance.now();
  const late = shared.since(kernelRead);
  expect(reads()).toBe(2);
  expect(shared.since(kernelRead)).toBe(late);
  // Asking for a reading begun after a moment earlier still: the latest (the late one) serves.
  expect(shared.since(kernelRead - 10)).toBe(late);
  expect(reads()).toBe(2);
  finish();
  finish();
  expect(await early).toBe(1);
  expect(await late).toBe(2);
});

test('a settled reading is forgotten: the next asker reads anew, whatever moment it asks for', async () => {
  const { shared, reads, finish } = countingReader();
  const asked = performance.now();
  const first = shared.since(asked);
  finish();
  expect(await first).toBe(1);
  const again = shared.since(asked);
  expect(reads()).toBe(2);
  finish();
  expect(await again).toBe(2);
});

test('a failed reading fails those who shared it, and the next round reads anew', async () => {
  const { shared, reads, finish } = countingReader();
  const asked = performance.now();
  const first = shared.since(asked);
  const second = shared.since(asked);
  finish(true);
  await expect(first).rejects.toThrow('read 1');
  await expect(second).rejects.toThrow('read 1');
  const next = shared.since(asked);
  expect(reads()).toBe(2);
  finish();
  expect(await next).toBe(2);
});
