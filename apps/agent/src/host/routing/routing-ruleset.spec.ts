import { DEFAULT_ROUTING, type DesiredRule } from '#libs/contracts/routing.js';
import { hopCounterNames, hopOfCounter, parseHopCounters } from './hop-counters.js';
import { hopNumbers } from './hop-numbers.js';
import { policyRouteCommands } from './policy-routes.js';
import {
  domainSetName,
  ipv4Element,
  portElement,
  renderRedirectorGuard,
  renderRuleset,
  type HopRoute,
} from './routing-ruleset.js';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
function rule(n: number, outbound: string, criteria: Partial<DesiredRule> = {}): DesiredRule {
  return {
    id: id(n),
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
const hops = new Map<string, HopRoute>([
  ['wg', { id: id(103), kind: 'wireguard', mark: 0x5703, port: 12303, up: true, interfaceName: 'hop0' }],
  ['socks', { id: id(107), kind: 'socks', mark: 0x5707, port: 12307, up: true, interfaceName: null }],
  ['down', { id: id(108), kind: 'socks', mark: 0x5708, port: 12308, up: false, interfaceName: null }],
]);
const render = (routing: Partial<typeof DEFAULT_ROUTING>, counters = new Map()) =>
  renderRuleset({
    table: 'warren_routing',
    routing: { ...DEFAULT_ROUTING, ...routing },
    tunnels: ['wg0'],
    hops,
    counters,
    domainElements: new Map(),
  });

test('elements are checked into nft form: host bits cleared, IPv6 and bad ports left out', () => {
  expect(ipv4Element('10.8.0.5/24')).toBe('10.8.0.0/24');
  expect(ipv4Element('10.8.0.5/32')).toBe('10.8.0.5');
  expect(ipv4Element('2001:db8::/32')).toBeNull();
  expect(portElement('6881-6889')).toBe('6881-6889');
  expect(portElement('9-1')).toBeNull();
  expect(portElement('70000')).toBeNull();
  expect(domainSetName(['b.com', 'A.com'])).toBe(domainSetName(['a.com', 'b.com']));
});

test('first match wins in position order; verdicts per outbound; counters carried; default last', () => {
  const { text, rules } = render(
    {
      defaultOutbound: 'blocked',
      failClosed: false,
      rules: [
        rule(1, 'wg', { sourceIps: ['10.8.0.2/32'] }),
        rule(2, 'socks', { ports: ['443'] }),
        rule(3, 'down'),
        rule(4, 'direct', { matchesNothing: true }),
      ],
    },
    new Map([[id(1), { packets: 5, bytes: 300 }]]),
  );
  expect(rules).toBe(3);
  const lines = text.split('\n').map((l) => l.trim());
  const route = lines.slice(lines.indexOf('chain route {'));
  expect(route).toContain(
    `ip saddr @r0_src counter packets 5 bytes 300 meta mark set 0x5703 accept comment "${id(1)}"`,
  );
  expect(route).toContain(
    `meta l4proto { tcp, udp } th dport { 443 } counter packets 0 bytes 0 meta mark set 0x5707 accept comment "${id(2)}"`,
  );
  // A hop that is not running: direct without fail-closed.
  expect(route).toContain(`counter packets 0 bytes 0 accept comment "${id(3)}"`);
  expect(text).not.toContain(id(4));
  expect(
    route.indexOf(`ip saddr @r0_src counter packets 5 bytes 300 meta mark set 0x5703 accept comment "${id(1)}"`),
  ).toBeLessThan(route.findIndex((l) => l.includes(id(2))));
  expect(route[route.indexOf('}') - 1]).toBe('drop');
  expect(text).toContain('meta mark 0x5707 meta l4proto tcp redirect to :12307');
  expect(text).not.toContain('redirect to :12308');
  // The redirector guard is a table of its own (renderRedirectorGuard), loaded before redirectors start.
  expect(text).not.toContain('redirector_guard');
  expect(text).toContain('oifname { "hop0" } masquerade');
});

test('the redirector guard: its own table, every redirector port, only connections that were not redirected dropped', () => {
  const text = renderRedirectorGuard('warren_routing');
  expect(text.split('\n').slice(0, 3)).toEqual([
    'table ip warren_routing_guard {}',
    'delete table ip warren_routing_guard',
    'table ip warren_routing_guard {',
  ]);
  expect(text).toContain('type filter hook input priority filter; policy accept;');
  expect(text).toContain('tcp dport 12301-12550 ct status & dnat == 0 drop');
});

test('fail-closed drops what a missing hop would carry, and proxy hops’ UDP', () => {
  const { text } = render({ failClosed: true, rules: [rule(1, 'down'), rule(2, 'gone')] });
  expect(text).toContain(`counter packets 0 bytes 0 drop comment "${id(1)}"`);
  expect(text).toContain(`counter packets 0 bytes 0 drop comment "${id(2)}"`);
  expect(text).toContain('meta mark { 0x5707 } drop');
});

test('DNS of tunnels with domain criteria goes to the node’s resolver while it runs (issue 19 item 10)', () => {
  const input = (routing: Partial<typeof DEFAULT_ROUTING>, redirectDns: boolean) =>
    renderRuleset({
      table: 't',
      routing: { ...DEFAULT_ROUTING, ...routing },
      tunnels: ['wg0', 'wg1'],
      hops,
      counters: new Map(),
      domainElements: new Map(),
      redirectDns,
    });
  const onWg1 = { rules: [rule(1, 'wg', { domains: ['a.test'], inInterfaces: ['wg1'] })] };
  const one = input(onWg1, true);
  expect(one.dnsInterfaces).toEqual(['wg1']);
  expect(one.text).toContain('type nat hook prerouting priority dstnat; policy accept;');
  expect(one.text).toContain('iifname { "wg1" } meta l4proto { tcp, udp } th dport 53 redirect to :53');
  // Never routed by a rule: returned right after the local check, before any rule or list.
  const lines = one.text.split('\n').map((line) => line.trim());
  const local = lines.indexOf('fib daddr type local return');
  expect(lines[local + 1]).toBe('iifname { "wg1" } meta l4proto { tcp, udp } th dport 53 return');
  // A list applies to every tunnel.
  expect(input({ blockDomains: ['b.test'] }, true).dnsInterfaces).toEqual(['wg0', 'wg1']);
  // No domains, or the resolver not running: nothing redirected.
  expect(input({ rules: [rule(1, 'wg', { sourceIps: ['10.8.0.2/32'] })] }, true).text).not.toContain('dport 53');
  expect(input(onWg1, false).text).not.toContain('dport 53');
});

test('no tunnels: the table is only removed', () => {
  const { text } = renderRuleset({
    table: 't',
    routing: DEFAULT_ROUTING,
    tunnels: [],
    hops,
    counters: new Map(),
    domainElements: new Map(),
  });
  expect(text).toBe('table ip t {}\ndelete table ip t\n');
});

test('policy routes: only what differs, only at the agent’s preferences and tables', () => {
  const n = hopNumbers(3);
  const hop = { slot: 3, interfaceName: 'hop0', address: '10.66.0.2', up: true };
  const fresh = policyRouteCommands(
    [
      { priority: 0, src: 'all', table: 'local' },
      { priority: 32766, src: 'all', table: 'main' },
    ],
    [],
    [hop],
    true,
  );
  expect(fresh).toEqual([
    `rule add pref ${n.markRulePref} fwmark 0x5703 lookup ${n.table}`,
    `rule add pref ${n.sourceRulePref} from 10.66.0.2 lookup ${n.table}`,
    `route replace default dev hop0 table ${n.table}`,
    `route replace unreachable default table ${n.table} metric 4000000000`,
  ]);
  const rules = [
    { priority: n.markRulePref, src: 'all', fwmark: '0x5703', table: String(n.table) },
    { priority: n.sourceRulePref, src: '10.66.0.2', table: String(n.table) },
    { priority: 22009, src: 'all', fwmark: '0x5709', table: '22281' },
  ];
  const routes = [
    { dst: 'default', dev: 'hop0', table: String(n.table) },
    { type: 'unreachable', dst: 'default', table: String(n.table), metric: 4000000000 },
    { dst: 'default', dev: 'eth0', table: 'main' },
  ];
  expect(policyRouteCommands(rules, routes, [hop], true)).toEqual(['rule del pref 22009']);
  expect(policyRouteCommands(rules, routes, [hop], false)).toEqual([
    'rule del pref 22009',
    `route del unreachable default table ${n.table} metric 4000000000`,
  ]);
});

test('hop traffic: two named counters per hop by outbound id, carried over; proxies count TCP; replies by ct mark', () => {
  const names = hopCounterNames(id(103));
  expect(names).toEqual({ up: 'hu_00000000000040008000000000000103', down: 'hd_00000000000040008000000000000103' });
  expect(hopOfCounter(names.down)).toEqual({ id: id(103), way: 'down' });
  expect(hopOfCounter('hu_nothex')).toBeNull();
  const { text } = renderRuleset({
    table: 'warren_routing',
    routing: DEFAULT_ROUTING,
    tunnels: ['wg0'],
    hops,
    counters: new Map(),
    hopCounters: new Map([[names.up, { packets: 3, bytes: 4242 }]]),
    domainElements: new Map(),
  });
  expect(text).toContain(`counter ${names.up} {\n\t\tpackets 3 bytes 4242\n\t}`);
  expect(text).toContain(`counter ${names.down} {\n\t\tpackets 0 bytes 0\n\t}`);
  // A hop that is down keeps its counters (it may come back): only the route chain skips it.
  expect(text).toContain(`counter ${hopCounterNames(id(108)).up} {`);
  expect(text).toContain(`meta mark 0x5703 ct mark set 0x5703 counter name "${names.up}" return`);
  expect(text).toContain(
    `meta mark 0x5707 meta l4proto tcp ct mark set 0x5707 counter name "${hopCounterNames(id(107)).up}" return`,
  );
  expect(text).toContain(`ct mark 0x5703 counter name "${names.down}"`);
  expect(text).toContain('type filter hook postrouting priority -140; policy accept;');
  expect(
    parseHopCounters(JSON.stringify({ nftables: [{ counter: { name: names.up, packets: 1, bytes: 9 } }] })),
  ).toEqual(new Map([[names.up, { packets: 1, bytes: 9 }]]));
});

describe('balancers', () => {
  test("a rule for a balancer with one pick takes that hop's verdict", () => {
    const { text } = render({
      rules: [rule(1, 'pool', { ports: ['443'] })],
      balancers: [{ tag: 'pool', outbounds: ['socks'] }],
    });
    expect(text).toContain(`meta mark set 0x5707 accept comment "${id(1)}"`);
    expect(text).not.toContain('vmap');
  });

  test('a hash balancer is a verdict map on the last octet of the source, each hop by its own mark chain', () => {
    const { text } = render({
      rules: [rule(1, 'pool', { ports: ['443'] })],
      defaultOutbound: 'pool',
      balancers: [{ tag: 'pool', outbounds: ['wg', 'socks', 'down'] }],
    });
    expect(text).toContain('\tchain mark_0x5703 {\n\t\tmeta mark set 0x5703 accept\n\t}');
    expect(text).toContain('\tchain mark_0x5707 {\n\t\tmeta mark set 0x5707 accept\n\t}');
    // balancerPick: octet % 3 → wg, socks, down (not running: dropped, fail-closed).
    expect(text).toContain(
      'ip saddr & 0.0.0.255 vmap { 0.0.0.0 : goto mark_0x5703, 0.0.0.1 : goto mark_0x5707, 0.0.0.2 : drop, 0.0.0.3 : goto mark_0x5703',
    );
    expect(text).toContain('0.0.0.255 : goto mark_0x5703 }');
    // The default names the balancer too.
    expect(text.split('\n').filter((line) => line.includes('vmap'))).toHaveLength(2);
  });
});
