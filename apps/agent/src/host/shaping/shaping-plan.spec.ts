import { ifbName, planInterface, type QdiscFacts } from './shaping-plan.js';
import { qdiscFacts } from './qdisc-facts.js';

const A = '11111111-1111-4111-8111-111111111111';
const B = '22222222-2222-4222-8222-222222222222';
const NOTHING: QdiscFacts = {
  tunnelRoot: false,
  tunnelHtb: false,
  tunnelIngress: false,
  ifbExists: false,
  ifbRoot: false,
  ifbHtb: false,
};
const LOADED: QdiscFacts = {
  tunnelRoot: true,
  tunnelHtb: true,
  tunnelIngress: true,
  ifbExists: true,
  ifbRoot: true,
  ifbHtb: true,
};
const ifb = ifbName('wg0');

test('the ifb name is 15 bytes at most and the same for the same tunnel', () => {
  expect(ifb).toMatch(/^ifb[0-9a-f]{12}$/);
  expect(ifbName('wg0')).toBe(ifb);
  expect(ifbName('wg1')).not.toBe(ifb);
});

test('a first limit builds both directions: HTB on the tunnel, ingress redirected to an ifb with HTB, hashed filters', () => {
  const plan = planInterface('wg0', null, [{ clientId: A, rateBitsPerSec: 10_000_000, ips: ['10.8.1.5'] }], NOTHING);
  expect(plan.ipBefore).toEqual([`link add ${ifb} txqueuelen 1000 type ifb`, `link set ${ifb} up`]);
  const both = (line: (dev: string, at: number, dir: string) => string[]) => [
    ...line('wg0', 16, 'dst'),
    ...line(ifb, 12, 'src'),
  ];
  expect(plan.tc).toEqual([
    'qdisc add dev wg0 root handle 1: htb',
    `qdisc add dev ${ifb} root handle 1: htb`,
    'qdisc add dev wg0 handle ffff: ingress',
    `filter add dev wg0 parent ffff: protocol ip prio 10 u32 match u32 0 0 action mirred egress redirect dev ${ifb}`,
    // The root's filter tables: byte 3, then byte 4.
    ...both((dev, at) => [
      `filter add dev ${dev} parent 1: protocol ip prio 10 handle 200: u32 divisor 256`,
      `filter add dev ${dev} parent 1: protocol ip prio 10 handle 800::1 u32 ht 800:: match u32 0 0 hashkey mask 0x0000ff00 at ${at} link 200:`,
    ]),
    // Group 0: its pass-through class, its qdisc and its table.
    ...both((dev, at) => [
      `class add dev ${dev} parent 1: classid 1:1 htb rate 1000gbit ceil 1000gbit burst 1mb cburst 1mb quantum 10000`,
      `qdisc add dev ${dev} parent 1:1 handle 2: htb`,
      `filter add dev ${dev} parent 2: protocol ip prio 10 handle 100: u32 divisor 256`,
      `filter add dev ${dev} parent 2: protocol ip prio 10 handle 800::1 u32 ht 800:: match u32 0 0 hashkey mask 0x000000ff at ${at} link 100:`,
    ]),
    ...both((dev, at) => [
      `filter add dev ${dev} parent 1: protocol ip prio 10 handle 2: u32 divisor 256`,
      `filter add dev ${dev} parent 1: protocol ip prio 10 handle 200:1:1 u32 ht 200:1: match u32 0 0 hashkey mask 0x000000ff at ${at} link 2:`,
    ]),
    // The client's class, 100 ms of burst at its rate.
    ...both((dev) => [
      `class add dev ${dev} parent 2: classid 2:1 htb rate 10000000bit ceil 10000000bit burst 125000 cburst 125000 quantum 10000`,
    ]),
    ...both((dev, _, dir) => [
      `filter add dev ${dev} parent 1: protocol ip prio 10 handle 2:5:1 u32 ht 2:5: match ip ${dir} 10.8.1.5/32 flowid 1:1`,
      `filter add dev ${dev} parent 2: protocol ip prio 10 handle 100:5:1 u32 ht 100:5: match ip ${dir} 10.8.1.5/32 flowid 2:1`,
    ]),
  ]);
  expect(plan.next).toEqual({
    ifb,
    tables: [1],
    groups: [0],
    clients: { [A]: { rate: 10_000_000, minor: 1, ips: { '10.8.1.5': [1, 1] } } },
  });
  expect(plan.problems).toEqual([]);
});

test('a new rate changes the classes in place; nothing else is touched', () => {
  const first = planInterface('wg0', null, [{ clientId: A, rateBitsPerSec: 10_000_000, ips: ['10.8.1.5'] }], NOTHING);
  const plan = planInterface(
    'wg0',
    first.next,
    [{ clientId: A, rateBitsPerSec: 20_000_000, ips: ['10.8.1.5'] }],
    LOADED,
  );
  expect(plan.ipBefore).toEqual([]);
  expect(plan.tc).toEqual([
    'class change dev wg0 parent 2: classid 2:1 htb rate 20000000bit ceil 20000000bit burst 250000 cburst 250000 quantum 10000',
    `class change dev ${ifb} parent 2: classid 2:1 htb rate 20000000bit ceil 20000000bit burst 250000 cburst 250000 quantum 10000`,
  ]);
  // The same limits again: no command at all.
  expect(
    planInterface('wg0', plan.next, [{ clientId: A, rateBitsPerSec: 20_000_000, ips: ['10.8.1.5'] }], LOADED).tc,
  ).toEqual([]);
});

test('a client losing its limit loses its filters, then its classes; a newcomer reuses the freed numbers', () => {
  const first = planInterface(
    'wg0',
    null,
    [
      { clientId: A, rateBitsPerSec: 1_000_000, ips: ['10.8.1.5', '10.9.1.5'] },
      { clientId: B, rateBitsPerSec: 2_000_000, ips: ['10.8.1.6'] },
    ],
    NOTHING,
  );
  // Two addresses sharing their last two bytes (a subnet wider than /16) share buckets: two nodes.
  expect(first.next!.clients[A].ips).toEqual({ '10.8.1.5': [1, 1], '10.9.1.5': [2, 2] });
  const C = '33333333-3333-4333-8333-333333333333';
  const plan = planInterface(
    'wg0',
    first.next,
    [
      { clientId: B, rateBitsPerSec: 2_000_000, ips: ['10.8.1.6'] },
      { clientId: C, rateBitsPerSec: 3_000_000, ips: ['10.8.1.5'] },
    ],
    LOADED,
  );
  const dels = (node: number) =>
    ['wg0', ifb].flatMap((dev) => [
      `filter del dev ${dev} parent 1: protocol ip prio 10 handle 2:5:${node} u32`,
      `filter del dev ${dev} parent 2: protocol ip prio 10 handle 100:5:${node} u32`,
    ]);
  expect(plan.tc).toEqual([
    ...dels(1),
    ...dels(2),
    'class del dev wg0 classid 2:1',
    `class del dev ${ifb} classid 2:1`,
    'class add dev wg0 parent 2: classid 2:1 htb rate 3000000bit ceil 3000000bit burst 37500 cburst 37500 quantum 10000',
    `class add dev ${ifb} parent 2: classid 2:1 htb rate 3000000bit ceil 3000000bit burst 37500 cburst 37500 quantum 10000`,
    'filter add dev wg0 parent 1: protocol ip prio 10 handle 2:5:1 u32 ht 2:5: match ip dst 10.8.1.5/32 flowid 1:1',
    'filter add dev wg0 parent 2: protocol ip prio 10 handle 100:5:1 u32 ht 100:5: match ip dst 10.8.1.5/32 flowid 2:1',
    `filter add dev ${ifb} parent 1: protocol ip prio 10 handle 2:5:1 u32 ht 2:5: match ip src 10.8.1.5/32 flowid 1:1`,
    `filter add dev ${ifb} parent 2: protocol ip prio 10 handle 100:5:1 u32 ht 100:5: match ip src 10.8.1.5/32 flowid 2:1`,
  ]);
});

test('client 257 opens a second group: its own pass-through class and qdisc, 256 classes each', () => {
  const limits = Array.from({ length: 257 }, (_, i) => ({
    clientId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    rateBitsPerSec: 1_000_000,
    ips: [`10.8.${i >> 8}.${i & 255}`],
  }));
  const plan = planInterface('wg0', null, limits, NOTHING);
  expect(plan.next!.groups).toEqual([0, 1]);
  expect(plan.tc).toContain('qdisc add dev wg0 parent 1:2 handle 3: htb');
  expect(plan.tc).toContain(
    'class add dev wg0 parent 3: classid 3:101 htb rate 1000000bit ceil 1000000bit burst 18000 cburst 18000 quantum 10000',
  );
  expect(plan.tc.filter((l) => l.startsWith('class add dev wg0 parent 2: '))).toHaveLength(256);
});

test('no limits left: the qdiscs and the ifb go; a drifted host is rebuilt from scratch', () => {
  const first = planInterface('wg0', null, [{ clientId: A, rateBitsPerSec: 10_000_000, ips: ['10.8.1.5'] }], NOTHING);
  const none = planInterface('wg0', first.next, [], LOADED);
  expect(none.tc).toEqual(['qdisc del dev wg0 root', 'qdisc del dev wg0 ingress']);
  expect(none.ipAfter).toEqual([`link del ${ifb}`]);
  expect(none.next).toBeNull();
  // The tunnel was re-created (no qdisc of ours on it) while the ifb stayed.
  const drifted = planInterface('wg0', first.next, [{ clientId: A, rateBitsPerSec: 10_000_000, ips: ['10.8.1.5'] }], {
    ...NOTHING,
    ifbExists: true,
    ifbRoot: true,
    ifbHtb: true,
  });
  expect(drifted.ipBefore).toEqual([`link set ${ifb} up`]);
  expect(drifted.tc.slice(0, 2)).toEqual([`qdisc del dev ${ifb} root`, 'qdisc add dev wg0 root handle 1: htb']);
  expect(drifted.tc.filter((l) => l.startsWith('class add'))).toHaveLength(4);
});

test('an address claimed twice is limited once, and said so', () => {
  const plan = planInterface(
    'wg0',
    null,
    [
      { clientId: A, rateBitsPerSec: 1_000_000, ips: ['10.8.1.5'] },
      { clientId: B, rateBitsPerSec: 2_000_000, ips: ['10.8.1.5'] },
    ],
    NOTHING,
  );
  expect(plan.problems).toEqual(['10.8.1.5 is limited twice; only its first limit is applied']);
  expect(plan.tc.filter((l) => l.includes('10.8.1.5'))).toHaveLength(4);
});

test('tc qdisc show is read per device: ours, defaults, and devices that do not exist', () => {
  const output = [
    'qdisc noqueue 0: dev lo root refcnt 2',
    'qdisc htb 1: dev wg0 root refcnt 2 r2q 10 default 0 direct_packets_stat 0 direct_qlen 500',
    'qdisc ingress ffff: dev wg0 parent ffff:fff1 ----------------',
    `qdisc htb 1: dev ${ifb} root refcnt 2 r2q 10 default 0 direct_packets_stat 0 direct_qlen 1000`,
    'qdisc pfifo_fast 0: dev wg1 root refcnt 2 bands 3 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1',
  ].join('\n');
  expect(qdiscFacts(output, 'wg0', ifb)).toEqual(LOADED);
  expect(qdiscFacts(output, 'wg1', ifbName('wg1'))).toEqual(NOTHING);
});
