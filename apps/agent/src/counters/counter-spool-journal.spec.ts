import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PeerReading } from '../host/index.js';
import { CounterSpool, readCounterSpool, type CounterBatch } from './counter-spool.js';

/**
 * The spool on disk is a snapshot and a journal of what moved (spool-journal.ts). Exactly once
 * must hold across a crash at any point of it: after a batch's record (sent or not), inside a
 * record (torn), and between a compaction's snapshot and the end of the old journal. A "crash"
 * here is a new spool on the same directory, the old one dropped without another call.
 */

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'warren-spool-journal-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const key = (n: number) => `${String(n).padStart(8, '0')}${'J'.repeat(35)}=`;
const reading = (n: number, rxBytes: number, txBytes = 0, iface = 'wg0'): PeerReading => ({
  interface: iface,
  publicKey: key(n),
  rxBytes,
  txBytes,
  lastHandshake: null,
  endpoint: null,
});

const journals = () => readdirSync(dir).filter((name) => name.endsWith('.journal'));
const journalFile = () => join(dir, journals()[0]);

/** Adds up what each peer was reported, [rx, tx] per public key. */
class Reported {
  readonly bytes = new Map<string, [number, number]>();
  add(batch: CounterBatch | null): void {
    for (const peer of batch?.peers ?? []) {
      const [rx, tx] = this.bytes.get(peer.publicKey) ?? [0, 0];
      this.bytes.set(peer.publicKey, [rx + peer.rxBytes, tx + peer.txBytes]);
    }
  }
  of(n: number): [number, number] {
    return this.bytes.get(key(n)) ?? [0, 0];
  }
}

test('a crash after the batch is on disk, before or after it was sent: the same batch again, nothing counted twice', () => {
  const reported = new Reported();
  const first = new CounterSpool(dir);
  const one = first.cut([reading(1, 100, 10), reading(2, 50, 5)], 1000)!;
  reported.add(one); // sent, and recorded by the controller
  first.acknowledge(one.seq);
  const two = first.cut([reading(1, 180, 10), reading(2, 50, 5)], 3000)!;
  // The crash: `two` is cut and on disk; sent or not, its acknowledgement never came.
  const restarted = new CounterSpool(dir);
  expect(restarted.started).toBe(false);
  expect(restarted.pending).toEqual(two);
  // Nothing new is cut while it waits; resent under the same number it is recorded once.
  expect(restarted.cut([reading(1, 200, 10), reading(2, 50, 5)], 5000)).toBeNull();
  reported.add(restarted.pending);
  restarted.resume(1); // the controller recorded batch 1 only: `two` is still due
  expect(restarted.pending?.seq).toBe(two.seq);
  restarted.acknowledge(two.seq);
  const three = restarted.cut([reading(1, 200, 10), reading(2, 57, 5)], 7000)!;
  expect(three.seq).toBe(two.seq + 1);
  reported.add(three);
  expect(reported.of(1)).toEqual([200, 10]);
  expect(reported.of(2)).toEqual([57, 5]);
});

test('rounds without a batch write nothing; a crash after them loses nothing and counts nothing twice', () => {
  const reported = new Reported();
  const spool = new CounterSpool(dir);
  const one = spool.cut([reading(1, 100), reading(2, 50)], 1000)!;
  reported.add(one);
  spool.acknowledge(one.seq);
  const size = statSync(journalFile()).size;
  // Peer 2 removed, peer 3 added at 0, peer 1 idle: no batch, and the disk is left alone.
  expect(spool.cut([reading(1, 100), reading(3, 0)], 3000)).toBeNull();
  expect(spool.cut([reading(1, 100), reading(3, 0)], 5000)).toBeNull();
  expect(statSync(journalFile()).size).toBe(size);
  // The crash: the restarted spool has peer 2's old baseline and no peer 3.
  const restarted = new CounterSpool(dir);
  // Peer 2 re-added (its counters from 0, below the old baseline), peer 3 moved, peer 1 moved.
  const next = restarted.cut([reading(1, 130), reading(2, 5), reading(3, 20)], 7000)!;
  reported.add(next);
  expect(reported.of(1)).toEqual([130, 0]);
  expect(reported.of(2)).toEqual([55, 0]); // 50 before its removal, 5 since it came back
  expect(reported.of(3)).toEqual([20, 0]);
});

test('a torn record (cut short, or failing its checksum) and all after it are not replayed; appending goes on after the last whole one', () => {
  const reported = new Reported();
  const spool = new CounterSpool(dir);
  const one = spool.cut([reading(1, 100)], 1000)!;
  reported.add(one);
  spool.acknowledge(one.seq);
  const before = statSync(journalFile()).size;
  // A batch whose record the crash cuts short: never flushed whole, so never sent.
  const lost = spool.cut([reading(1, 250)], 3000)!;
  expect(lost.seq).toBe(2);
  truncateSync(journalFile(), statSync(journalFile()).size - 7);
  expect(readCounterSpool(dir)).toMatchObject({ pending: null, nextSeq: 2 });
  const restarted = new CounterSpool(dir);
  expect(restarted.pending).toBeNull();
  expect(statSync(journalFile()).size).toBe(before); // the torn tail is gone before any append
  // Its bytes are still in the counters: the next batch has them, under the number it had.
  const again = restarted.cut([reading(1, 260)], 5000)!;
  expect(again).toMatchObject({ seq: 2, peers: [{ rxBytes: 160 }] });
  reported.add(again);
  restarted.acknowledge(again.seq);
  // What is appended after the repair is read back (not hidden behind the torn bytes).
  const third = new CounterSpool(dir);
  expect(third.pending).toBeNull();
  const last = third.cut([reading(1, 300)], 7000)!;
  expect(last.seq).toBe(3);
  reported.add(last);
  expect(reported.of(1)).toEqual([300, 0]);

  // A record in the middle whose bytes went bad (a page of it never reached the disk): the
  // replay stops before it; the whole records after it are not taken without it.
  const lines = readFileSync(journalFile(), 'utf8').split('\n');
  const middle = lines.length - 3; // the record of `last`'s cut is lines.length - 2
  lines[middle] = lines[middle].replace(/"nextSeq":\d/, (m) => m.slice(0, -1) + '9');
  writeFileSync(journalFile(), lines.join('\n'));
  const replayed = readCounterSpool(dir)!;
  // As after the record before it: `again` cut and not acknowledged yet.
  expect(replayed).toMatchObject({ nextSeq: 3, pending: { seq: 2 } });
});

test('compaction: snapshots under a new generation, one journal left, state as if never compacted, a stale journal never replayed', () => {
  const compacted = new CounterSpool(dir, { compactAtBytes: 1 });
  const plainDir = mkdtempSync(join(dir, 'plain-'));
  const plain = new CounterSpool(plainDir, { compactAtBytes: 2 ** 40 });
  const reported = new Reported();
  const peers = 200;
  let stale: { name: string; text: Buffer } | undefined;
  const rx = new Array<number>(peers).fill(0);
  const tx = new Array<number>(peers).fill(0);
  for (let round = 1; round <= 30; round++) {
    // A seventh of the peers move each round; peers 1 to 9 go, one a round, for good.
    for (let n = 0; n < peers; n++) {
      if (n % 7 !== round % 7) continue;
      rx[n] += 1000 + n;
      tx[n] += 3;
    }
    const readings = rx
      .map((bytes, n) => reading(n, bytes, tx[n]))
      .filter((_, n) => n === 0 || n >= Math.min(round, 10));
    const [name] = journals();
    const text = readdirSync(dir).includes(name ?? '') ? readFileSync(join(dir, name)) : undefined;
    const batch = compacted.cut(readings, round * 2000);
    expect(plain.cut(readings, round * 2000)).toEqual(batch);
    reported.add(batch);
    if (batch) {
      compacted.acknowledge(batch.seq);
      plain.acknowledge(batch.seq);
    }
    if (name && text && !journals().includes(name)) stale ??= { name, text };
  }
  const snapshot = JSON.parse(readFileSync(join(dir, 'counters.json'), 'utf8'));
  expect(snapshot.generation).toBeGreaterThan(2);
  expect(journals()).toEqual([`counters.${snapshot.generation}.journal`]);
  const { generation: _g, ...state } = readCounterSpool(dir)!;
  const { generation: _p, ...plainState } = readCounterSpool(plainDir)!;
  expect(state).toEqual(plainState);
  expect(Object.keys(state.baseline)).toHaveLength(peers - 9);

  // A crash between a compaction's snapshot and the old journal's removal leaves that journal:
  // it is stale and must not be replayed over the newer snapshot (its baselines are older).
  expect(stale).toBeDefined();
  writeFileSync(join(dir, stale!.name), stale!.text);
  const { generation: _r, ...reloaded } = readCounterSpool(dir)!;
  expect(reloaded).toEqual(plainState);
  const restarted = new CounterSpool(dir, { compactAtBytes: 1 });
  expect(journals()).toEqual([`counters.${snapshot.generation}.journal`]);
  const final = rx.map((bytes, n) => reading(n, bytes + 5, tx[n])).filter((_, n) => n === 0 || n >= 10);
  reported.add(restarted.cut(final, 100_000));
  for (const r of final) expect(reported.bytes.get(r.publicKey)).toEqual([r.rxBytes, r.txBytes]);
});

test('a spool written before the journal (counters.json alone) is read as it was and counted on from it', () => {
  const batch = { seq: 4, at: 1000, peers: [{ ...reading(2, 9), rxBytes: 9 }] };
  writeFileSync(
    join(dir, 'counters.json'),
    JSON.stringify({ nextSeq: 5, baseline: { [`wg0 ${key(1)}`]: [100, 10, null] }, pending: batch, readAt: 1000 }),
  );
  const spool = new CounterSpool(dir);
  expect(spool.started).toBe(false);
  expect(spool.pending).toEqual(batch);
  spool.acknowledge(4);
  expect(journals()).toEqual(['counters.0.journal']);
  const next = new CounterSpool(dir).cut([reading(1, 130, 10)], 3000)!;
  expect(next).toMatchObject({ seq: 5, since: 1000, peers: [{ rxBytes: 30, txBytes: 0 }] });
});
