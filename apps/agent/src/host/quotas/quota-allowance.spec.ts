import { countWire, INITIAL_RATIO, newArm, nextChange, wireLeft } from './quota-allowance.js';

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
