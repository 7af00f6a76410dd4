import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PeerReading } from '../host/index.js';
import { CounterSpool } from './counter-spool.js';

/**
 * Issue 27: at 100,000 peers a node sends only the peers whose counters moved. A peer that did
 * not move is absent from the batch (the controller adds deltas: absence adds nothing, it is no
 * zero and no reset), and what it moves later is counted from where it stood, once.
 */

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'warren-spool-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const reading = (n: number, rxBytes: number, txBytes: number, lastHandshake: number | null = null): PeerReading => ({
  interface: 'wg0',
  publicKey: `${String(n).padStart(8, '0')}${'B'.repeat(35)}=`,
  rxBytes,
  txBytes,
  lastHandshake,
  endpoint: null,
});

test('a batch holds the peers that moved; idle ones are absent and later count from where they stood', () => {
  const spool = new CounterSpool(dir);
  const peers = Array.from({ length: 1000 }, (_, n) => reading(n, 100, 50, 1_700_000_000_000));
  const first = spool.cut(peers, 1000)!;
  expect(first.peers).toHaveLength(1000); // all new, all with bytes and a handshake
  spool.acknowledge(first.seq);

  // Nothing moved: no batch at all.
  expect(spool.cut(peers, 3000)).toBeNull();

  // Two peers moved (one by bytes, one only by a new handshake): only they are sent.
  const next = peers.slice();
  next[7] = reading(7, 160, 50, 1_700_000_000_000);
  next[500] = reading(500, 100, 50, 1_700_000_002_000);
  const second = spool.cut(next, 5000)!;
  expect(second.peers.map((p) => [p.publicKey, p.rxBytes, p.txBytes])).toEqual([
    [next[7].publicKey, 60, 0],
    [next[500].publicKey, 0, 0],
  ]);
  spool.acknowledge(second.seq);

  // Peer 3 was idle in every batch so far; it now moves: counted from its last reading, once.
  const later = next.slice();
  later[3] = reading(3, 130, 90, 1_700_000_000_000);
  const third = spool.cut(later, 7000)!;
  expect(third.peers.map((p) => [p.publicKey, p.rxBytes, p.txBytes])).toEqual([[later[3].publicKey, 30, 40]]);
});
