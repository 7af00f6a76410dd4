import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  agentMessageSchema,
  COUNTER_SEQ_WINDOW,
  MAX_PEER_BYTES_PER_BATCH,
  MAX_PEERS_PER_BATCH,
} from '#libs/contracts/agent-link.js';
import type { PeerReading } from '../host/index.js';
import { CounterSpool, type CounterBatch } from './counter-spool.js';

/**
 * The spool cuts only batches the controller accepts (the contract's bounds on peers per batch and
 * bytes per peer): what does not fit waits in the counters for the next batch, to the byte.
 */

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'warren-spool-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const key = (n: number) => `${n.toString(36).padStart(8, '0')}${'A'.repeat(35)}=`;
const reading = (
  n: number,
  rxBytes: number,
  txBytes = 0,
  endpoint: string | null = '192.0.2.1:51820',
): PeerReading => ({
  interface: 'wg0',
  publicKey: key(n),
  rxBytes,
  txBytes,
  lastHandshake: null,
  endpoint,
});
const accepted = (batch: CounterBatch) => agentMessageSchema.safeParse({ type: 'counters', ...batch }).success;
/** Cuts and acknowledges batches until nothing moved; the rx bytes each peer was reported. */
function drain(spool: CounterSpool, readings: PeerReading[]): { batches: number; rx: Map<string, number> } {
  const rx = new Map<string, number>();
  let batches = 0;
  for (let batch = spool.cut(readings); batch; batch = spool.cut(readings)) {
    expect(accepted(batch)).toBe(true);
    for (const peer of batch.peers) rx.set(peer.publicKey, (rx.get(peer.publicKey) ?? 0) + peer.rxBytes);
    spool.acknowledge(batch.seq);
    batches++;
  }
  return { batches, rx };
}

test('a peer that moved more than a batch carries is reported over several batches, to the byte', () => {
  const spool = new CounterSpool(dir);
  const moved = 2 * MAX_PEER_BYTES_PER_BATCH + 12345;
  const { batches, rx } = drain(spool, [reading(1, moved)]);
  expect(batches).toBe(3);
  expect(rx.get(key(1))).toBe(moved);
});

test('more peers than a batch carries: the rest go into the next batch, none lost or repeated', () => {
  const spool = new CounterSpool(dir);
  const readings = Array.from({ length: MAX_PEERS_PER_BATCH + 10 }, (_, n) => reading(n, n + 1));
  const { batches, rx } = drain(spool, readings);
  expect(batches).toBe(2);
  expect(rx.size).toBe(readings.length);
  expect(readings.every((r) => rx.get(r.publicKey) === r.rxBytes)).toBe(true);
  // Counting on from there: only what moved since.
  const more = readings.map((r) => ({ ...r, rxBytes: r.rxBytes + 7 }));
  const next = drain(spool, more);
  expect([...next.rx.values()].every((bytes) => bytes === 7)).toBe(true);
});

test('an endpoint the contract cannot carry is left out, not the batch', () => {
  const spool = new CounterSpool(dir);
  const batch = spool.cut([reading(1, 10, 0, 'not an endpoint'), reading(2, 10)])!;
  expect(accepted(batch)).toBe(true);
  expect(batch.peers.map((peer) => peer.endpoint)).toEqual([null, '192.0.2.1:51820']);
});

test('a spool far ahead of what the controller recorded is renumbered right above it', () => {
  const spool = new CounterSpool(dir);
  spool.resume(5000);
  const pending = spool.cut([reading(1, 10)])!;
  expect(pending.seq).toBe(5001);
  // The controller's database came back from an older backup: it recorded batch 3 last.
  spool.resume(3);
  expect(spool.pending).toMatchObject({ seq: 4, peers: pending.peers });
  spool.acknowledge(4);
  expect(spool.cut([reading(1, 20)])!.seq).toBe(5);
  // Within the window, numbers are kept as they are.
  const near = new CounterSpool(mkdtempSync(join(dir, 'near-')));
  near.resume(10);
  near.cut([reading(1, 10)]);
  near.resume(11 - COUNTER_SEQ_WINDOW);
  expect(near.pending!.seq).toBe(11);
});
