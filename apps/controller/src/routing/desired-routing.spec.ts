import { desiredOutbounds, desiredRouting, type OutboundRow, type RuleRow } from './desired-routing.js';

const outbound = (over: Partial<OutboundRow>): OutboundRow => ({
  id: 'o',
  tag: 'o',
  kind: 'socks',
  enabled: true,
  slot: 1,
  host: '203.0.113.1',
  port: 1080,
  username: null,
  password: null,
  method: null,
  private_key: null,
  peer_public_key: null,
  preshared_key: null,
  allowed_ips: [],
  tunnel_address: null,
  mtu: null,
  keepalive: null,
  interface_name: null,
  health: null,
  ...over,
});

const rule = (over: Partial<RuleRow>): RuleRow => ({
  id: 'r',
  outbound_id: 'direct',
  balancer_id: null,
  source_ips: [],
  source_ports: [],
  network: null,
  dest_ips: [],
  domains: [],
  ports: [],
  clients: [],
  groups: [],
  interfaces: [],
  ...over,
});

const OUTBOUNDS = [
  outbound({ id: 'direct', tag: 'direct', kind: 'direct', slot: null }),
  outbound({ id: 'blocked', tag: 'blocked', kind: 'blocked', slot: null }),
  outbound({ id: 'hop', tag: 'hop', slot: 1 }),
  outbound({ id: 'off', tag: 'off', slot: 2, enabled: false }),
];

const ADDRESSES = [
  { ip: '10.8.0.2', clientId: 'alice', groups: ['staff'] },
  { ip: '10.8.0.3', clientId: 'bob', groups: ['guests'] },
  { ip: '10.9.0.2', clientId: 'alice', groups: ['staff'] },
];

function resolve(rules: RuleRow[], failClosed = false, defaultOutbound: string | null = null) {
  const basic = {
    default_outbound_id: defaultOutbound,
    block_bit_torrent: false,
    block_ips: [],
    block_domains: [],
    block_ports: [],
    direct_ips: [],
    direct_domains: [],
    fail_closed: failClosed,
  };
  return desiredRouting({
    outbounds: OUTBOUNDS,
    basic,
    rules,
    addresses: ADDRESSES,
    interfaceNames: new Map([['if1', 'wg0']]),
  });
}

test('only enabled hops are delivered, never the built-ins', () => {
  expect(desiredOutbounds(OUTBOUNDS).map((hop) => hop.tag)).toEqual(['hop']);
});

test('a rule or default on a disabled hop goes direct, or blocked when fail-closed', () => {
  expect(resolve([rule({ outbound_id: 'off', ports: ['1'] })], false, 'off')).toMatchObject({
    defaultOutbound: 'direct',
    rules: [{ outbound: 'direct' }],
  });
  expect(resolve([rule({ outbound_id: 'off', ports: ['1'] })], true, 'off')).toMatchObject({
    defaultOutbound: 'blocked',
    rules: [{ outbound: 'blocked' }],
  });
  expect(resolve([rule({ outbound_id: 'hop', ports: ['1'] })], true, 'hop')).toMatchObject({
    defaultOutbound: 'hop',
    rules: [{ outbound: 'hop' }],
  });
});

test('clients, groups and sourceIps must all match', () => {
  const [both, groupOnly, narrowed, none] = resolve([
    rule({ id: 'both', clients: ['alice', 'bob'], groups: ['staff'] }),
    rule({ id: 'group', groups: ['guests', 'staff'] }),
    rule({ id: 'narrowed', groups: ['staff'], source_ips: ['10.9.0.0/16'] }),
    rule({ id: 'none', clients: ['carol'] }),
  ]).rules;
  expect(both).toMatchObject({ sourceIps: ['10.8.0.2/32', '10.9.0.2/32'], matchesNothing: false });
  expect(groupOnly.sourceIps).toEqual(['10.8.0.2/32', '10.8.0.3/32', '10.9.0.2/32']);
  expect(narrowed).toMatchObject({ sourceIps: ['10.9.0.2/32'], matchesNothing: false });
  expect(none).toMatchObject({ sourceIps: [], matchesNothing: true });
});

test('interfaces become host names; a rule whose interfaces are all gone matches nothing', () => {
  const [present, gone] = resolve([
    rule({ id: 'a', interfaces: ['if1', 'if-gone'] }),
    rule({ id: 'b', interfaces: ['if-gone'] }),
  ]).rules;
  expect(present).toMatchObject({ inInterfaces: ['wg0'], matchesNothing: false });
  expect(gone).toMatchObject({ inInterfaces: [], matchesNothing: true });
});

describe('balancers', () => {
  const hops = [
    outbound({ id: 'direct', tag: 'direct', kind: 'direct', slot: null }),
    outbound({ id: 'a', tag: 'a', slot: 1, health: 'down' }),
    outbound({ id: 'b', tag: 'b', slot: 2, health: 'up' }),
    outbound({ id: 'c', tag: 'c', slot: 3, health: null }),
    outbound({ id: 'd', tag: 'd', slot: 4, enabled: false }),
  ];
  // No routing basics: fail-closed, the default.
  const routed = (balancer: { strategy: 'failover' | 'hash'; hops: string[]; override_id?: string | null }) =>
    desiredRouting({
      outbounds: hops,
      basic: undefined,
      rules: [rule({ outbound_id: null, balancer_id: 'lb', ports: ['443'] })],
      addresses: [],
      interfaceNames: new Map(),
      balancers: [{ id: 'lb', tag: 'pool', override_id: null, ...balancer }],
    });

  test('a rule names the balancer; failover resolves to the first usable hop in order', () => {
    const routing = routed({ strategy: 'failover', hops: ['d', 'a', 'b', 'c'] });
    expect(routing.rules[0].outbound).toBe('pool');
    expect(routing.balancers).toEqual([{ tag: 'pool', outbounds: ['b'] }]);
  });

  test('hash resolves to the table of the pick of each octet: usable hops keep their clients', () => {
    // a down, d disabled, c unchecked (usable): octet % 4 → a, b, c, d; a's and d's clients go
    // to the usable hop at octet % 2.
    expect(routed({ strategy: 'hash', hops: ['a', 'b', 'c', 'd'] }).balancers).toEqual([
      { tag: 'pool', outbounds: ['b', 'b', 'c', 'c'] },
    ]);
    expect(routed({ strategy: 'hash', hops: ['b', 'c'] }).balancers).toEqual([{ tag: 'pool', outbounds: ['b', 'c'] }]);
  });

  test('an override pins its hop whatever its health; no usable hop is blocked (fail-closed)', () => {
    expect(routed({ strategy: 'failover', hops: ['a', 'b'], override_id: 'a' }).balancers).toEqual([
      { tag: 'pool', outbounds: ['a'] },
    ]);
    expect(routed({ strategy: 'failover', hops: ['a', 'd'] }).balancers).toEqual([
      { tag: 'pool', outbounds: ['blocked'] },
    ]);
  });
});
