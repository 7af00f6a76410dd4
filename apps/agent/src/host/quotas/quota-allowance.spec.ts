import { countWire, INITIAL_RATIO, LONG_RUN_BYTES, newArm, nextChange, wireLeft } from './quota-allowance.js';

const peer = 'wg0 key';

test('a new client gets a new kernel quota of its remaining bytes at the starting ratio', () => {
  const arm = newArm(1_000_000, new Map([[peer, 5000]]));
  expect(nextChange(arm, undefined)).toEqual({ kind: 'create', limit: Math.floor(1_000_000 * INITIAL_RATIO) });
});

test('each round counts WireGuard bytes since the arm, learns the ratio and moves the limit in place', () => {
  const arm = newArm(1_000_000, new Map([[peer, 5000]]));
  nextChange(arm, undefined);
  // 200,000 WireGuard bytes moved; the kernel counted 190,000 inner bytes of them.
  countWire(arm, new Map([[peer, 205_000]]));
  expect(wireLeft(arm)).toBe(800_000);
  expect(nextChange(arm, { limit: 940_000, used: 190_000 })).toEqual({
    kind: 'update',
    limit: 190_000 + Math.floor(800_000 * 0.95),
  });
  expect(arm.ratio).toBeCloseTo(0.95);
});

test('a counter that went down restarted: all of it is new', () => {
  const arm = newArm(1_000_000, new Map([[peer, 500_000]]));
  countWire(arm, new Map([[peer, 1000]]));
  expect(arm.wireSince).toBe(1000);
});

test('a quota over its limit with bytes left is made anew (its consumed bytes are capped); with none left it stays', () => {
  const arm = newArm(100_000, new Map([[peer, 0]]));
  nextChange(arm, undefined);
  countWire(arm, new Map([[peer, 98_000]]));
  expect(nextChange(arm, { limit: 94_000, used: 94_000 })).toEqual({ kind: 'create', limit: Math.floor(2000 * 0.94) });
  countWire(arm, new Map([[peer, 100_500]]));
  expect(nextChange(arm, { limit: 1880, used: 1880 })).toEqual({ kind: 'keep' });
});

test('nothing left and not over yet: the limit becomes what was consumed, so the next packet is dropped', () => {
  const arm = newArm(10_000, new Map([[peer, 0]]));
  countWire(arm, new Map([[peer, 10_000]]));
  expect(nextChange(arm, { limit: 9400, used: 9000 })).toEqual({ kind: 'update', limit: 9000 });
});

test('a round whose ratio the read order inflated does not raise the grant above the long-run ratio', () => {
  const arm = newArm(100_000_000, new Map([[peer, 0]]));
  nextChange(arm, undefined);
  // Two rounds of bulk traffic at 0.94, then one where a burst landed in the kernel's count only.
  countWire(arm, new Map([[peer, 5_000_000]]));
  nextChange(arm, { limit: 94_000_000, used: 4_700_000 });
  countWire(arm, new Map([[peer, 10_000_000]]));
  nextChange(arm, { limit: 94_000_000, used: 9_400_000 });
  expect(arm.ratio).toBeCloseTo(0.94);
  countWire(arm, new Map([[peer, 12_000_000]]));
  const change = nextChange(arm, { limit: 94_000_000, used: 11_400_000 });
  // The round alone says 1.0; the long run (11.4 / 12) says 0.95: the grant uses 0.95.
  expect(arm.ratio).toBeCloseTo(0.95);
  expect(change).toEqual({ kind: 'update', limit: 11_400_000 + Math.floor(88_000_000 * arm.ratio) });
});

test('a round of smaller packets lowers the ratio at once, without waiting for the long run', () => {
  const arm = newArm(100_000_000, new Map([[peer, 0]]));
  nextChange(arm, undefined);
  countWire(arm, new Map([[peer, 10_000_000]]));
  nextChange(arm, { limit: 94_000_000, used: 9_600_000 });
  expect(arm.ratio).toBeCloseTo(0.96);
  // 1 MB of small packets at 0.5.
  countWire(arm, new Map([[peer, 11_000_000]]));
  nextChange(arm, { limit: 94_000_000, used: 10_100_000 });
  expect(arm.ratio).toBeCloseTo(0.5);
});

test('a new arm keeps what the client taught the earlier one; the long run follows a change within a few windows', () => {
  const first = newArm(1_000_000_000, new Map([[peer, 0]]));
  nextChange(first, undefined);
  countWire(first, new Map([[peer, 10_000_000]]));
  nextChange(first, { limit: 940_000_000, used: 9_000_000 });
  const second = newArm(500_000_000, new Map([[peer, 10_000_000]]), first);
  expect(second.ratio).toBeCloseTo(0.9);
  expect(second.history).toEqual({ inner: 9_000_000, wire: 10_000_000 });
  expect(second.history).not.toBe(first.history);
  // Rounds of 0.97 for four windows: the long run comes within 1% of it.
  nextChange(second, undefined);
  let wire = 10_000_000;
  let used = 0;
  for (let round = 0; round < (4 * LONG_RUN_BYTES) / 8_000_000; round += 1) {
    wire += 8_000_000;
    used += 7_760_000;
    countWire(second, new Map([[peer, wire]]));
    nextChange(second, { limit: 490_000_000, used });
  }
  expect(second.history.inner / second.history.wire).toBeGreaterThan(0.96);
  expect(second.history.wire).toBeLessThanOrEqual(LONG_RUN_BYTES);
});
