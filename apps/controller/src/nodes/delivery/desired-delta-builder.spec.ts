import { randomUUID } from 'node:crypto';
import { applyDelta } from '#libs/contracts/desired-delta.js';
import type { DesiredPeer, DesiredState } from '#libs/contracts/desired-state.js';
import { desiredInterface, desiredPeer, desiredState, testNodeId } from '../../../../../test/support/desired-state.js';
import { buildDesiredDelta } from './desired-delta-builder.js';

const peer = (n: number) => desiredPeer(`10.8.${n >> 8}.${n & 255}`);

const base = desiredState(4, [
  desiredInterface('wg0', 8, { peers: Array.from({ length: 10 }, (_, i) => peer(2 + i)) }),
  desiredInterface('wg1', 9, { peers: [desiredPeer('10.9.0.2')] }),
]);
/** The base's wg0 with its first three peers replaced by `first` (the rest kept). */
const withPeers = (first: DesiredPeer[]) =>
  desiredState(5, [
    { ...base.interfaces[0], peers: [...first, ...base.interfaces[0].peers.slice(3)] },
    base.interfaces[1],
  ]);

test('a device added, one changed and one removed travel as the changes alone, on top of the base revision', () => {
  const [a, b, c] = base.interfaces[0].peers;
  const added = peer(9);
  const changed = { ...b, ip: '10.8.0.77' };
  const next = withPeers([a, changed, added]);
  const delta = buildDesiredDelta(base, next)!;
  expect(delta).toEqual({
    kind: 'delta',
    nodeId: testNodeId,
    revision: 5,
    baseRevision: 4,
    interfaces: [{ name: 'wg0', peers: [changed, added], removedPeers: [c.publicKey] }],
  });
  // The base with the delta applied is the next state (peers in any order).
  const merged = applyDelta(base, delta)!;
  expect(merged.revision).toBe(5);
  expect(new Set(merged.interfaces[0].peers)).toEqual(new Set(next.interfaces[0].peers));
  expect(merged.interfaces[1]).toBe(base.interfaces[1]);
});

test('a preshared key removed is a change; an unchanged state is an empty delta', () => {
  const [a, b, c] = base.interfaces[0].peers;
  const delta = buildDesiredDelta(base, withPeers([a, { ...b, presharedKey: null }, c]))!;
  expect(delta.interfaces).toEqual([{ name: 'wg0', peers: [{ ...b, presharedKey: null }], removedPeers: [] }]);
  expect(buildDesiredDelta(base, { ...base, revision: 5 })).toMatchObject({ interfaces: [], baseRevision: 4 });
});

test('speed limits and quotas travel by client, added, changed and removed', () => {
  const [a, b] = base.interfaces[0].peers;
  const [kept, dropped] = [randomUUID(), randomUUID()];
  const limited = {
    ...base,
    interfaces: [
      {
        ...base.interfaces[0],
        speedLimits: [
          { clientId: kept, rateBitsPerSec: 1000, ips: [a.ip] },
          { clientId: dropped, rateBitsPerSec: 1000, ips: [b.ip] },
        ],
      },
      base.interfaces[1],
    ],
    quotas: [
      { client: kept, remainingBytes: 100, ips: [a.ip] },
      { client: dropped, remainingBytes: 100, ips: [b.ip] },
    ],
  };
  const next: DesiredState = {
    ...limited,
    revision: 5,
    interfaces: [
      { ...limited.interfaces[0], speedLimits: [{ clientId: kept, rateBitsPerSec: 2000, ips: [a.ip] }] },
      base.interfaces[1],
    ],
    quotas: [{ client: kept, remainingBytes: 50, ips: [a.ip] }],
  };
  const delta = buildDesiredDelta(limited, next)!;
  expect(delta.interfaces).toEqual([
    {
      name: 'wg0',
      peers: [],
      removedPeers: [],
      speedLimits: [{ clientId: kept, rateBitsPerSec: 2000, ips: [a.ip] }],
      removedSpeedLimits: [dropped],
    },
  ]);
  expect(delta.quotas).toEqual([{ client: kept, remainingBytes: 50, ips: [a.ip] }]);
  expect(delta.removedQuotas).toEqual([dropped]);
  expect(applyDelta(limited, delta)).toEqual(next);
});

test('anything but peers, speed limits and quotas goes as the whole state', () => {
  const next = (change: Partial<DesiredState>) => buildDesiredDelta(base, { ...base, revision: 5, ...change });
  // An interface's own settings, an interface added or removed, renamed, hops and routing, the setting.
  expect(
    next({ interfaces: [{ ...base.interfaces[0], mtu: base.interfaces[0].mtu + 20 }, base.interfaces[1]] }),
  ).toBeNull();
  expect(next({ interfaces: [{ ...base.interfaces[0], down: true }, base.interfaces[1]] })).toBeNull();
  expect(next({ interfaces: [{ ...base.interfaces[0], restartSerial: 1 }, base.interfaces[1]] })).toBeNull();
  expect(next({ interfaces: [base.interfaces[0]] })).toBeNull();
  expect(next({ interfaces: [...base.interfaces, desiredInterface('wg2', 10)] })).toBeNull();
  expect(next({ interfaces: [base.interfaces[0], { ...base.interfaces[1], name: 'wg9' }] })).toBeNull();
  expect(next({ allowPrivateTargets: true })).toBeNull();
  expect(next({ outbounds: [] })).toBeNull();
  // Not newer than the base, or another node's.
  expect(buildDesiredDelta(base, base)).toBeNull();
  expect(buildDesiredDelta(base, { ...base, revision: 5, nodeId: randomUUID() })).toBeNull();
});

test('more than half of the peers changed goes as the whole state', () => {
  const peers = Array.from({ length: 10 }, (_, i) => peer(10 + i));
  const from = desiredState(1, [desiredInterface('wg0', 8, { peers })]);
  const some = peers.map((p, i) => (i < 5 ? { ...p, ip: `10.8.1.${i}` } : p));
  const most = peers.map((p, i) => (i < 6 ? { ...p, ip: `10.8.1.${i}` } : p));
  expect(buildDesiredDelta(from, desiredState(2, [{ ...from.interfaces[0], peers: some }]))).not.toBeNull();
  expect(buildDesiredDelta(from, desiredState(2, [{ ...from.interfaces[0], peers: most }]))).toBeNull();
});
