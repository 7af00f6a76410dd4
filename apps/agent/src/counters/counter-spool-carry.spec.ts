import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PeerReading } from '../host/index.js';
import { CounterSpool } from './counter-spool.js';

/**
 * A restart re-creates an interface, and its counters start from 0 (docs/agent-host.md,
 * "Counters"): the old link's last reading is carried into the next batch, so the peers' bytes
 * add up to what the two links counted, nothing twice, nothing dropped, also across a reload.
 */

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'warren-spool-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const A = `${'A'.repeat(42)}A=`;
const B = `${'B'.repeat(42)}A=`;
const at = (publicKey: string, rxBytes: number, txBytes: number): PeerReading => ({
  interface: 'wg0',
  publicKey,
  rxBytes,
  txBytes,
  lastHandshake: null,
  endpoint: null,
});

/** Cuts a batch, acknowledges it; what each peer was reported as [rx, tx]. */
function cut(spool: CounterSpool, readings: PeerReading[]): Record<string, [number, number]> {
  const batch = spool.cut(readings);
  if (batch) spool.acknowledge(batch.seq);
  return Object.fromEntries((batch?.peers ?? []).map((p) => [p.publicKey, [p.rxBytes, p.txBytes]]));
}

test('the bytes of the old link since the last reading go into the next batch, and the new link counts from 0', () => {
  const spool = new CounterSpool(dir);
  expect(cut(spool, [at(A, 1000, 500), at(B, 10, 10)])).toEqual({ [A]: [1000, 500], [B]: [10, 10] });
  // The restart: A moved 200/100 more on the old link, B nothing; then the link is gone.
  spool.carry([at(A, 1200, 600), at(B, 10, 10)]);
  // Reloaded from disk, as after an agent restart: the carry is kept.
  const reloaded = new CounterSpool(dir);
  // The new link: A from 0 already past its old baseline; B not handshaken yet (absent).
  expect(cut(reloaded, [at(A, 5000, 4000)])).toEqual({ [A]: [5200, 4100] });
  // Counting goes on from the new link's counters; the carry is spent.
  expect(cut(reloaded, [at(A, 5100, 4000), at(B, 7, 0)])).toEqual({ [A]: [100, 0], [B]: [7, 0] });
});

test('a peer gone with the restart still has its carried bytes reported once', () => {
  const spool = new CounterSpool(dir);
  cut(spool, [at(A, 100, 100)]);
  spool.carry([at(A, 150, 130)]);
  expect(cut(spool, [])).toEqual({ [A]: [50, 30] });
  expect(cut(spool, [])).toEqual({});
});

test('a carry while a batch is in flight waits for the next batch', () => {
  const spool = new CounterSpool(dir);
  const first = spool.cut([at(A, 100, 0)])!;
  spool.carry([at(A, 180, 0)]);
  expect(spool.cut([at(A, 0, 0)])).toBeNull(); // the first is not acknowledged yet
  spool.acknowledge(first.seq);
  expect(cut(spool, [at(A, 20, 0)])).toEqual({ [A]: [100, 0] });
});

test('a reading begun before a restart holds the old link: it is dropped, not counted again', () => {
  const spool = new CounterSpool(dir);
  expect(cut(spool, [at(A, 1000, 500)])).toEqual({ [A]: [1000, 500] });
  // A report round starts reading; meanwhile an apply restarts the interface (the old link read
  // 1000/500 last, nothing moved since), and the round's reading of the old link arrives after it.
  const mark = spool.readingMark();
  spool.carry([at(A, 1000, 500)]);
  expect(spool.cut([at(A, 1000, 500)], Date.now(), [], mark)).toBeNull();
  // The next round reads the new link: its bytes alone.
  expect(cut(spool, [at(A, 300, 20)])).toEqual({ [A]: [300, 20] });
});

test('no batch is cut while a restart is under way: the old link, read after its last reading, is not counted twice', () => {
  const spool = new CounterSpool(dir);
  expect(cut(spool, [at(A, 1000, 500)])).toEqual({ [A]: [1000, 500] });
  // The restart begins and takes the old link's last reading (1200/600); a report round reads the
  // link again before it is gone (1300/650: it moved on) and tries to cut.
  spool.holdCuts();
  expect(spool.cut([at(A, 1300, 650)], Date.now(), [], spool.readingMark())).toBeNull();
  spool.carry([at(A, 1200, 600)]);
  // The new link: its bytes and the carried ones, once (the 100/50 after the last reading are lost).
  expect(cut(spool, [at(A, 50, 5)])).toEqual({ [A]: [250, 105] });
});

test('a restart that failed releases the hold and carries nothing', () => {
  const spool = new CounterSpool(dir);
  cut(spool, [at(A, 1000, 500)]);
  spool.holdCuts();
  spool.carry([]);
  expect(cut(spool, [at(A, 1100, 500)])).toEqual({ [A]: [100, 0] });
});
