import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CounterSpool } from './counter-spool.js';

/**
 * The hops' traffic rides in the counter batches (docs/agent-host.md, "Hop traffic"): deltas of
 * the routing table's hop counters, exactly once across agent restarts (the baseline is the
 * spool's file), a batch resent after a crash carrying the same bytes under the same number.
 */

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'warren-spool-hops-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const H = '6f1c2f4e-0d1b-4c55-9a51-6a2b2f0c9e11';
const G = '0b7d9a3c-3f0e-4b8e-8f43-2f5d1c7e6a20';
const hop = (id: string, upBytes: number, downBytes: number) => ({ id, upBytes, downBytes });

test('hop deltas: batches without peers, nothing twice across a restart, a counter made again counts from 0', () => {
  let spool = new CounterSpool(dir);
  const first = spool.cut([], 1000, [hop(H, 5000, 100), hop(G, 0, 0)]);
  expect(first).toMatchObject({ seq: 1, peers: [], hops: [hop(H, 5000, 100)] });
  // Not acknowledged, and the agent restarts: the same batch waits, nothing new is cut.
  spool = new CounterSpool(dir);
  expect(spool.pending).toEqual(first);
  expect(spool.cut([], 2000, [hop(H, 9000, 100)])).toBeNull();
  spool.acknowledge(1);
  expect(spool.cut([], 3000, [hop(H, 9000, 100), hop(G, 10, 20)])).toMatchObject({
    seq: 2,
    hops: [hop(H, 4000, 0), hop(G, 10, 20)],
  });
  spool.acknowledge(2);
  // Nothing moved: no batch. An unreadable table (null) keeps the baseline.
  expect(spool.cut([], 4000, [hop(H, 9000, 100), hop(G, 10, 20)])).toBeNull();
  expect(spool.cut([], 5000, null)).toBeNull();
  expect(spool.cut([], 6000, [hop(H, 9500, 100), hop(G, 10, 20)])).toMatchObject({ seq: 3, hops: [hop(H, 500, 0)] });
  spool.acknowledge(3);
  // The routing table went and came back: its counters start from 0 again.
  expect(spool.cut([], 7000, [])).toBeNull();
  expect(spool.cut([], 8000, [hop(H, 70, 7)])).toMatchObject({ seq: 4, hops: [hop(H, 70, 7)] });
});

test('a lost spool takes the hop counters as they are for the baseline: nothing is counted twice', () => {
  const spool = new CounterSpool(dir);
  spool.baselineLost();
  expect(spool.cut([], 1000, [hop(H, 123_456, 789)])).toBeNull();
  expect(spool.cut([], 2000, [hop(H, 123_556, 789)])).toMatchObject({ hops: [hop(H, 100, 0)] });
});
