import { randomUUID } from 'node:crypto';
import {
  balancerPick,
  hashPick,
  hashTable,
  matchRoute,
  resolverTunnels,
  ruleElements,
  type RouteQuery,
} from './routing-match.js';
import { DEFAULT_ROUTING, type DesiredRouting, type DesiredRule } from './routing.js';

function rule(outbound: string, criteria: Partial<DesiredRule> = {}): DesiredRule {
  return {
    id: randomUUID(),
    outbound,
    sourceIps: [],
    sourcePorts: [],
    network: null,
    destIps: [],
    domains: [],
    ports: [],
    inInterfaces: [],
    matchesNothing: false,
    ...criteria,
  };
}

const query = (over: Partial<RouteQuery> = {}): RouteQuery => ({
  sourceIp: '10.8.0.2',
  inInterface: 'wg0',
  destIp: '93.184.216.34',
  domain: null,
  protocol: 'tcp',
  port: 443,
  sourcePort: null,
  ...over,
});
const routing = (over: Partial<DesiredRouting>): DesiredRouting => ({ ...DEFAULT_ROUTING, ...over });
const tunnels = ['wg0', 'wg1'];

test('the first rule whose criteria all match decides; the matched criteria are named', () => {
  const first = rule('hop-a', { sourceIps: ['10.8.0.0/24'], ports: ['80'] });
  const second = rule('hop-b', { sourceIps: ['10.8.0.2/32'], network: 'tcp', ports: ['400-500'] });
  const decided = matchRoute(routing({ rules: [first, second] }), tunnels, query());
  expect(decided).toEqual({
    step: 'rule',
    ruleId: second.id,
    ruleIndex: 1,
    matched: ['network', 'sourceIps', 'ports'],
    outbound: 'hop-b',
    balancer: null,
  });
  expect(matchRoute(routing({ rules: [first, second] }), tunnels, query({ port: 80 })).outbound).toBe('hop-a');
  expect(matchRoute(routing({ rules: [first], defaultOutbound: 'hop-z' }), tunnels, query())).toMatchObject({
    step: 'default',
    outbound: 'hop-z',
  });
});

test('ports without a network mean TCP or UDP; ICMP never matches a rule with ports', () => {
  const ports = rule('hop', { ports: ['443'] });
  expect(matchRoute(routing({ rules: [ports] }), tunnels, query({ protocol: 'udp' })).matched).toEqual(['ports']);
  expect(matchRoute(routing({ rules: [ports] }), tunnels, query({ protocol: 'icmp' })).step).toBe('default');
  expect(ruleElements(rule('hop', { network: 'icmp', ports: ['1'] }))).toBeNull();
});

test('domains match the name and names under it, only when the destination came from one', () => {
  const domains = rule('hop', { domains: ['example.com'] });
  const on = (domain: string | null) => matchRoute(routing({ rules: [domains] }), tunnels, query({ domain })).step;
  expect(on('example.com')).toBe('rule');
  expect(on('www.Example.com')).toBe('rule');
  expect(on('notexample.com')).toBe('default');
  expect(on(null)).toBe('default');
});

test('lists come before rules: block IPs, domains, ports, BitTorrent, then direct lists', () => {
  const all = rule('hop');
  const base = { rules: [all] };
  expect(matchRoute(routing({ ...base, blockIps: ['93.184.0.0/16'] }), tunnels, query())).toMatchObject({
    step: 'block-list',
    matched: ['blockIps'],
    outbound: 'blocked',
  });
  expect(matchRoute(routing({ ...base, blockPorts: ['440-450'] }), tunnels, query()).matched).toEqual(['blockPorts']);
  expect(
    matchRoute(routing({ ...base, blockDomains: ['b.test'] }), tunnels, query({ domain: 'x.b.test', port: 80 })),
  ).toMatchObject({ step: 'block-list', matched: ['blockDomains'] });
  expect(matchRoute(routing({ ...base, blockBitTorrent: true }), tunnels, query({ port: 6881 })).step).toBe(
    'bittorrent',
  );
  expect(matchRoute(routing({ ...base, directIps: ['93.184.216.34/32'] }), tunnels, query())).toMatchObject({
    step: 'direct-list',
    outbound: 'direct',
  });
});

test('DNS of tunnels with domain criteria is the resolver’s; rules that match nothing are skipped', () => {
  const onWg1 = rule('hop', { domains: ['a.test'], inInterfaces: ['wg1'] });
  expect([...resolverTunnels(routing({ rules: [onWg1] }), tunnels)]).toEqual(['wg1']);
  const dns = (inInterface: string) =>
    matchRoute(routing({ rules: [onWg1, rule('hop2')] }), tunnels, query({ port: 53, protocol: 'udp', inInterface }));
  expect(dns('wg1').step).toBe('resolver');
  expect(dns('wg0').outbound).toBe('hop2');
  const nothing = rule('hop', { matchesNothing: true });
  const v6 = rule('hop', { sourceIps: ['2001:db8::/32'] });
  expect(matchRoute(routing({ rules: [nothing, v6] }), tunnels, query()).step).toBe('default');
  const elsewhere = rule('hop', { inInterfaces: ['wg1'] });
  expect(matchRoute(routing({ rules: [elsewhere] }), tunnels, query()).step).toBe('default');
  expect(matchRoute(routing({ rules: [elsewhere] }), tunnels, query({ inInterface: 'wg1' })).matched).toEqual([
    'interfaces',
  ]);
});

test('source ports match only a given source port', () => {
  const sport = rule('hop', { sourcePorts: ['5000-6000'] });
  expect(matchRoute(routing({ rules: [sport] }), tunnels, query()).step).toBe('default');
  expect(matchRoute(routing({ rules: [sport] }), tunnels, query({ sourcePort: 5500 })).matched).toEqual([
    'sourcePorts',
  ]);
});

test('a balancer named by a rule or the default resolves to its pick for the source address', () => {
  const balancers = [
    { tag: 'pool', outbounds: ['a', 'b', 'c'] },
    { tag: 'one', outbounds: ['b'] },
  ];
  const routed = routing({ rules: [rule('pool', { ports: ['443'] })], defaultOutbound: 'one', balancers });
  expect(matchRoute(routed, tunnels, query({ sourceIp: '10.8.0.4' }))).toMatchObject({
    step: 'rule',
    balancer: 'pool',
    outbound: 'b', // 4 % 3
  });
  expect(matchRoute(routed, tunnels, query({ sourceIp: '10.8.0.6' })).outbound).toBe('a');
  expect(matchRoute(routed, tunnels, query({ port: 80 }))).toMatchObject({
    step: 'default',
    balancer: 'one',
    outbound: 'b',
  });
  expect(matchRoute(routing({}), tunnels, query()).balancer).toBeNull();
});

test('hash: a down hop moves only its own clients, over the usable hops, and they return with it', () => {
  const hops = ['a', 'b', 'c'];
  const address = (octet: number) => `10.8.0.${octet}`;
  const octets = Array.from({ length: 256 }, (_, octet) => octet);
  const own = octets.map((octet) => hashPick(hops, hops, address(octet)));
  expect(own.slice(0, 4)).toEqual(['a', 'b', 'c', 'a']);
  // c down: c's clients spread over a and b (octet % 2), everyone else keeps their hop.
  const withoutC = octets.map((octet) => hashPick(hops, ['a', 'b'], address(octet)));
  octets.forEach((octet) => {
    if (own[octet] !== 'c') expect(withoutC[octet]).toBe(own[octet]);
    else expect(withoutC[octet]).toBe(['a', 'b'][octet % 2]);
  });
  expect(new Set(withoutC.filter((_, octet) => own[octet] === 'c'))).toEqual(new Set(['a', 'b']));
  // The table the node gets picks the same for every octet, whatever the hop counts.
  const tags = Array.from({ length: 16 }, (_, i) => `h${i}`);
  for (const [listed, ready] of [
    [hops, hops],
    [hops, ['a', 'b']],
    [hops, ['b']],
    [tags, tags.slice(1)],
    [tags.slice(0, 15), tags.slice(0, 14)],
  ]) {
    const table = hashTable(listed, ready);
    expect(table.length).toBeLessThanOrEqual(240);
    for (const octet of octets)
      expect(balancerPick(table, address(octet))).toBe(hashPick(listed, ready, address(octet)));
  }
  expect(hashTable(hops, ['a', 'b'])).toEqual(['a', 'b', 'a', 'a', 'b', 'b']);
});
