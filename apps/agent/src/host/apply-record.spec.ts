import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DesiredDelta } from '#libs/contracts/desired-delta.js';
import type { ApplyResult } from '#libs/contracts/node-queue.js';
import { desiredInterface, desiredPeer, desiredState, testNodeId } from '../../../../test/support/desired-state.js';
import { ApplyRecord } from './apply-record.js';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'warren-apply-record-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const peer = (ip: string) => desiredPeer(ip, { presharedKey: null });
const base = desiredState(7, [desiredInterface('wg0', 8, { peers: [peer('10.8.0.2'), peer('10.8.0.3')] })]);
const ok = (revision: number): ApplyResult => ({
  revision,
  ok: true,
  interfaces: [{ name: 'wg0', state: 'up', driver: 'wireguard-go', peers: 2 }],
  durationMs: 1,
});
const delta = (revision: number, baseRevision: number): DesiredDelta => ({
  kind: 'delta',
  nodeId: testNodeId,
  revision,
  baseRevision,
  interfaces: [{ name: 'wg0', peers: [peer(`10.8.0.${revision + 10}`)], removedPeers: [] }],
});

test('a delta fits only on top of the revision last applied; an older one is stale, any other a gap', () => {
  const record = new ApplyRecord(join(dir, 'applied.json'));
  // Nothing applied yet: whatever the delta, the whole state is needed.
  expect(record.fit(delta(8, 7))).toEqual({ verdict: 'gap', appliedRevision: 0 });
  record.record(base, ok(7));
  const fits = record.fit(delta(8, 7));
  expect(fits.verdict).toBe('fits');
  expect(fits.verdict === 'fits' && fits.state.interfaces[0].peers).toHaveLength(3);
  // A delta lost on the way (8) makes the next one (9, on top of 8) a gap.
  expect(record.fit(delta(9, 8))).toEqual({ verdict: 'gap', appliedRevision: 7 });
  // One already applied (taken again after a newer one) changes nothing.
  expect(record.fit(delta(7, 6))).toEqual({ verdict: 'stale', result: ok(7) });
  // Another node's, or one naming an interface the base lacks.
  expect(record.fit({ ...delta(8, 7), nodeId: randomUUID() }).verdict).toBe('gap');
  expect(record.fit({ ...delta(8, 7), interfaces: [{ name: 'wg9', peers: [], removedPeers: [] }] }).verdict).toBe(
    'gap',
  );
});

test('deltas are journalled and replayed on load; a torn last line is dropped', () => {
  const file = join(dir, 'applied.json');
  const record = new ApplyRecord(file);
  record.record(base, ok(7));
  for (const revision of [8, 9]) {
    const change = delta(revision, revision - 1);
    const fit = record.fit(change);
    if (fit.verdict !== 'fits') throw new Error(fit.verdict);
    record.recordDelta(change, fit.state, ok(revision));
  }
  // The whole file was written once, at revision 7; the deltas went to the journal.
  expect(JSON.parse(readFileSync(file, 'utf8')).state.revision).toBe(7);
  const reloaded = new ApplyRecord(file);
  expect(reloaded.applied.revision).toBe(9);
  expect(reloaded.applied.state).toEqual(record.applied.state);
  appendFileSync(`${file}.journal`, '{"delta":{"kind":"del');
  expect(new ApplyRecord(file).applied.revision).toBe(9);
  // A whole apply replaces the journal.
  record.record({ ...base, revision: 10 }, ok(10));
  expect(new ApplyRecord(file).applied.state?.interfaces[0].peers).toHaveLength(2);
});
