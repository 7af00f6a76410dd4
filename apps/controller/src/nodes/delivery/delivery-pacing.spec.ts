import { DeliveryPacing, type PacingClock } from './delivery-pacing.js';

/** A clock that moves only when told to, and records the rests asked of it (each one passes at once). */
function fakeClock(): PacingClock & { advance(ms: number): void; rests: number[] } {
  let now = 1_000;
  const rests: number[] = [];
  return {
    rests,
    now: () => now,
    advance: (ms) => void (now += ms),
    sleep: async (ms) => {
      rests.push(ms);
      now += ms;
    },
  };
}

/** One delivery of `nodeId` that takes `tookMs` on the fake clock. */
async function deliver(pacing: DeliveryPacing, clock: ReturnType<typeof fakeClock>, nodeId: string, tookMs: number) {
  const started = await pacing.rest(nodeId);
  clock.advance(tookMs);
  pacing.ended(nodeId, started, true);
}

test('a node delivered for the first time does not rest', async () => {
  const clock = fakeClock();
  await deliver(new DeliveryPacing(5000, clock), clock, 'a', 300);
  expect(clock.rests).toEqual([]);
});

test('after a delivery of T ms the next starts T ms after it ended, less what already passed', async () => {
  const clock = fakeClock();
  const pacing = new DeliveryPacing(5000, clock);
  await deliver(pacing, clock, 'a', 300);
  await deliver(pacing, clock, 'a', 120);
  clock.advance(20);
  await deliver(pacing, clock, 'a', 50);
  clock.advance(80);
  await deliver(pacing, clock, 'a', 10);
  // 300 after the first; 120 - 20 after the second; none after the third (80 of 50 passed).
  expect(clock.rests).toEqual([300, 100]);
});

test('a rest never exceeds the longest one', async () => {
  const clock = fakeClock();
  const pacing = new DeliveryPacing(5000, clock);
  await deliver(pacing, clock, 'a', 60_000);
  await deliver(pacing, clock, 'a', 1);
  expect(clock.rests).toEqual([5000]);
});

test('nodes are paced apart, a node gone is forgotten, and a shutdown does not wait', async () => {
  const clock = fakeClock();
  const pacing = new DeliveryPacing(5000, clock);
  await deliver(pacing, clock, 'a', 600);
  await deliver(pacing, clock, 'b', 200);
  await deliver(pacing, clock, 'b', 1);
  expect(clock.rests).toEqual([200]);
  // 'a' ended 401 ms ago (b's two deliveries and b's rest), so it still owes 199.
  await deliver(pacing, clock, 'a', 1);
  expect(clock.rests).toEqual([200, 199]);

  pacing.ended('a', await pacing.rest('a', false), false);
  await deliver(pacing, clock, 'a', 1);
  expect(clock.rests).toEqual([200, 199]);

  await deliver(pacing, clock, 'c', 900);
  pacing.ended('c', await pacing.rest('c', false), true);
  expect(clock.rests).toEqual([200, 199]);
});
