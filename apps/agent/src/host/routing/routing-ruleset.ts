import { createHash } from 'node:crypto';
import type { DesiredRouting, DesiredRule } from '#libs/contracts/routing.js';
import {
  BITTORRENT_PORTS,
  ipv4Element,
  portElement,
  resolverTunnels,
  ruleElements,
} from '#libs/contracts/routing-match.js';
import { tunnelArg } from '../host-arguments.js';
import { renderHopCounters } from './hop-counters.js';
import { hex, REDIRECT_PORT_BASE, MAX_SLOT } from './hop-numbers.js';

/**
 * The agent's policy-routing table, rendered as one `nft -f` file that deletes and re-creates
 * `table ip <name>` in one transaction (as nat.ts does): rules never disappear in between, and
 * nothing outside the table is touched. Only traffic arriving on the agent's tunnel interfaces
 * and not addressed to the host itself is routed.
 *
 * Order in the `route` chain (first match wins): block lists, BitTorrent, direct lists, then the
 * rules in order (each with a counter and its id as comment), then the default outbound. A rule
 * for a hop sets the hop's fwmark (for a balancer, the mark of the hop it picks for the source);
 * `ip rule fwmark → table` (WireGuard hops) or the `redirect`
 * chain (proxy hops: TCP to the local redsocks/ss-redir) does the rest.
 */

export interface HopRoute {
  /** The outbound's id: its traffic counters' names (hop-counters.ts). */
  id: string;
  kind: 'wireguard' | 'socks' | 'http' | 'shadowsocks';
  mark: number;
  port: number;
  /** The hop runs (process alive, interface up) as of this apply. */
  up: boolean;
  /** WireGuard hops: the hop's interface (masqueraded to its address). */
  interfaceName: string | null;
}

export interface Counter {
  packets: number;
  bytes: number;
}

export interface RulesetInput {
  table: string;
  routing: DesiredRouting;
  /** The agent's tunnel interfaces: the only traffic routed. */
  tunnels: readonly string[];
  /** Hops by tag. */
  hops: ReadonlyMap<string, HopRoute>;
  /** Rule counters read from the table being replaced, carried over so no hit is lost. */
  counters: ReadonlyMap<string, Counter>;
  /** The hops' traffic counters read from the table being replaced, by counter name (hop-counters.ts). */
  hopCounters?: ReadonlyMap<string, Counter>;
  /** Elements the resolver put into domain sets, carried over by set name. */
  domainElements: ReadonlyMap<string, readonly string[]>;
  /**
   * The node's resolver runs (or will): clients' DNS (UDP and TCP 53, to any address) on tunnels
   * with domain criteria is redirected to it, so domain sets fill whatever DNS their profile names.
   */
  redirectDns?: boolean;
}

export interface Ruleset {
  text: string;
  /** Domain set name → the domains whose answers fill it (the resolver's `nftset=` lines). */
  domainSets: Map<string, string[]>;
  /** Rules rendered (not skipped as matching nothing). */
  rules: number;
  /** Tunnels whose clients' DNS is redirected to the node's resolver. */
  dnsInterfaces: string[];
}

/** BitTorrent's plain peer handshake starts "\x13BitTorrent prot…" (nft compares at most 128 bits). */
const BT_HANDSHAKE = '0x13426974546f7272656e742070726f74';
/** A DHT query is a bencoded dict starting "d1:ad2:id20:". */
const BT_DHT = '0x64313a6164323a696432303a';

// Shared with the controller's route test (libs/contracts/routing-match.ts): one matcher's semantics.
export { ipv4Element, portElement };

export function domainSetName(domains: readonly string[]): string {
  const key = [...new Set(domains.map((d) => d.toLowerCase()))].sort().join(',');
  return `d_${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
}

const list = (items: readonly string[]) => `{ ${items.join(', ')} }`;
const quoted = (names: readonly string[]) => list(names.map((n) => `"${n}"`));

export function renderRuleset(input: RulesetInput): Ruleset {
  const { table, routing } = input;
  const head = [`table ip ${table} {}`, `delete table ip ${table}`];
  const domainSets = new Map<string, string[]>();
  if (input.tunnels.length === 0) return { text: `${head.join('\n')}\n`, domainSets, rules: 0, dnsInterfaces: [] };

  const sets: string[] = [];
  const chain: string[] = [];
  const ipSet = (name: string, cidrs: readonly string[]): boolean => {
    const elements = cidrs.map(ipv4Element).filter((e): e is string => e !== null);
    if (elements.length === 0) return false;
    sets.push(
      `\tset ${name} {\n\t\ttype ipv4_addr; flags interval; auto-merge;\n\t\telements = ${list(elements)}\n\t}`,
    );
    return true;
  };
  const domainSet = (domains: readonly string[]): string => {
    const name = domainSetName(domains);
    if (!domainSets.has(name)) {
      domainSets.set(name, [...new Set(domains.map((d) => d.toLowerCase()))]);
      const carried = (input.domainElements.get(name) ?? []).map(ipv4Element).filter((e): e is string => e !== null);
      sets.push(
        `\tset ${name} {\n\t\ttype ipv4_addr;${carried.length ? `\n\t\telements = ${list(carried)}` : ''}\n\t}`,
      );
    }
    return name;
  };
  const ports = (items: readonly string[]) => items.map(portElement).filter((p): p is string => p !== null);

  const hopVerdict = (tag: string): string => {
    if (tag === 'blocked') return 'drop';
    if (tag === 'direct') return 'accept';
    const hop = input.hops.get(tag);
    // A hop that is not running (or not on this node): dropped when fail-closed, else direct.
    if (!hop || !hop.up) return routing.failClosed ? 'drop' : 'accept';
    return `meta mark set ${hex(hop.mark)} accept`;
  };
  const balancers = new Map((routing.balancers ?? []).map((balancer) => [balancer.tag, balancer.outbounds]));
  const markChains = new Map<string, string>();
  // A balancer's pick by source address (balancerPick): one outbound is its verdict; several are
  // a verdict map on the address's last octet, each hop's mark set in a chain of its own.
  const verdict = (tag: string): string => {
    const outbounds = balancers.get(tag);
    if (!outbounds) return hopVerdict(tag);
    if (outbounds.length === 1) return hopVerdict(outbounds[0]);
    const entries = Array.from({ length: 256 }, (_, octet) => {
      const target = hopVerdict(outbounds[octet % outbounds.length]);
      if (!target.startsWith('meta mark set ')) return `0.0.0.${octet} : ${target}`;
      const name = `mark_${target.split(' ')[3]}`;
      markChains.set(name, `\tchain ${name} {\n\t\t${target}\n\t}`);
      return `0.0.0.${octet} : goto ${name}`;
    });
    return `ip saddr & 0.0.0.255 vmap ${list(entries)}`;
  };

  chain.push(`\t\tiifname != ${quoted(input.tunnels.map(tunnelArg))} return`, '\t\tfib daddr type local return');
  if (ipSet('block_ips', routing.blockIps)) chain.push('\t\tip daddr @block_ips drop');
  if (routing.blockDomains.length) chain.push(`\t\tip daddr @${domainSet(routing.blockDomains)} drop`);
  const blockPorts = ports(routing.blockPorts);
  if (blockPorts.length) chain.push(`\t\tmeta l4proto { tcp, udp } th dport ${list(blockPorts)} drop`);
  if (routing.blockBitTorrent) {
    chain.push(
      `\t\tmeta l4proto tcp @ih,0,128 ${BT_HANDSHAKE} drop`,
      `\t\tmeta l4proto udp @ih,0,96 ${BT_DHT} drop`,
      `\t\tmeta l4proto { tcp, udp } th dport ${BITTORRENT_PORTS} drop`,
    );
  }
  if (ipSet('direct_ips', routing.directIps)) chain.push('\t\tip daddr @direct_ips accept');
  if (routing.directDomains.length) chain.push(`\t\tip daddr @${domainSet(routing.directDomains)} accept`);

  // Tunnels whose traffic some domain criterion applies to (the lists apply to all of them).
  const domainTunnels = resolverTunnels(routing, input.tunnels);
  let rendered = 0;
  routing.rules.forEach((rule, index) => {
    const match = ruleMatch(rule, index, ipSet, domainSet);
    if (match === null) return;
    const counter = input.counters.get(rule.id) ?? { packets: 0, bytes: 0 };
    chain.push(
      `\t\t${match}counter packets ${counter.packets} bytes ${counter.bytes} ${verdict(rule.outbound)} comment "${uuidArg(rule.id)}"`,
    );
    rendered++;
  });
  const fallback = verdict(routing.defaultOutbound);
  if (fallback !== 'accept') chain.push(`\t\t${fallback}`);
  const dnsInterfaces = input.redirectDns ? input.tunnels.filter((tunnel) => domainTunnels.has(tunnel)) : [];
  if (dnsInterfaces.length) {
    // DNS the node's resolver will answer is local traffic, like DNS to the gateway: never
    // routed, blocked or dropped by a rule (the redirect below makes it local after this chain).
    chain.splice(
      2,
      0,
      `\t\tiifname ${quoted(dnsInterfaces.map(tunnelArg))} meta l4proto { tcp, udp } th dport 53 return`,
    );
  }

  const body = [
    ...sets,
    ...markChains.values(),
    '\tchain route {',
    '\t\ttype filter hook prerouting priority mangle; policy accept;',
    ...chain,
    '\t}',
  ];

  if (dnsInterfaces.length) {
    // Profiles name public resolvers (1.1.1.1 by default); the resolver listens on the tunnel
    // gateways only. `redirect` sends each query to the address of the tunnel it came in on.
    body.push(
      '\tchain dns_redirect {',
      '\t\ttype nat hook prerouting priority dstnat; policy accept;',
      `\t\tiifname ${quoted(dnsInterfaces.map(tunnelArg))} meta l4proto { tcp, udp } th dport 53 redirect to :53`,
      '\t}',
    );
  }

  const proxies = [...input.hops.values()].filter((h) => h.kind !== 'wireguard' && h.up);
  if (proxies.length) {
    body.push(
      '\tchain to_redirector {',
      '\t\ttype nat hook prerouting priority dstnat; policy accept;',
      ...proxies.map((h) => `\t\tmeta mark ${hex(h.mark)} meta l4proto tcp redirect to :${h.port}`),
      '\t}',
    );
    // The guard against reaching the redirectors directly is a table of its own
    // (renderRedirectorGuard), loaded before any redirector starts and kept while one runs.
    if (routing.failClosed) {
      // Proxy hops carry TCP only: their UDP and ICMP would leave directly, which fail-closed forbids.
      body.push(
        '\tchain proxy_udp {',
        '\t\ttype filter hook forward priority filter; policy accept;',
        `\t\tmeta mark ${list(proxies.map((h) => hex(h.mark)))} drop`,
        '\t}',
      );
    }
  }
  body.push(
    ...renderHopCounters(
      input.hops.values(),
      input.tunnels,
      input.hopCounters ?? new Map(),
      quoted(input.tunnels.map(tunnelArg)),
    ),
  );
  const wireguard = [...input.hops.values()].filter((h) => h.kind === 'wireguard' && h.interfaceName);
  if (wireguard.length) {
    body.push(
      '\tchain hop_masquerade {',
      '\t\ttype nat hook postrouting priority srcnat; policy accept;',
      `\t\toifname ${quoted(wireguard.map((h) => tunnelArg(h.interfaceName!)))} masquerade`,
      '\t}',
    );
  }
  return {
    text: `${[...head, `table ip ${table} {`, ...body, '}'].join('\n')}\n`,
    domainSets,
    rules: rendered,
    dnsInterfaces,
  };
}

/**
 * The redirector guard, a table of its own (`<table>_guard`). The redirectors (redsocks,
 * ss-redir) listen on 0.0.0.0: an nft `redirect` sends a connection to the primary address of
 * the interface it came in on, so a listener bound to 127.0.0.1 or to one tunnel's address would
 * miss the others (reaching 127.0.0.1 would take a `dnat` plus route_localnet, which opens
 * loopback services to the network, worse than this). So nobody may reach a redirector port
 * except through the redirect, or it would be an open proxy into the hop. Not part of the
 * routing table because that one exists only while tunnels are up and is loaded after the hops
 * start; this one is loaded before the first redirector starts and removed after the last
 * stops. (Masked: `ct status != dnat` compares the whole status word, which always has other
 * bits set.)
 */
export function renderRedirectorGuard(table: string): string {
  const name = `${table}_guard`;
  return [
    `table ip ${name} {}`,
    `delete table ip ${name}`,
    `table ip ${name} {`,
    '\tchain redirector_guard {',
    '\t\ttype filter hook input priority filter; policy accept;',
    `\t\ttcp dport ${REDIRECT_PORT_BASE + 1}-${REDIRECT_PORT_BASE + MAX_SLOT} ct status & dnat == 0 drop`,
    '\t}',
    '}',
    '',
  ].join('\n');
}

/**
 * The match part of one rule ("… " ending in a space), or null when the rule can match nothing
 * (ruleElements, which the route test's matcher reads the same way).
 */
function ruleMatch(
  rule: DesiredRule,
  index: number,
  ipSet: (name: string, cidrs: readonly string[]) => boolean,
  domainSet: (domains: readonly string[]) => string,
): string | null {
  const elements = ruleElements(rule);
  if (elements === null) return null;
  const parts: string[] = [];
  if (elements.inInterfaces.length) parts.push(`iifname ${quoted(elements.inInterfaces)}`);
  if (elements.protocol === 'tcp-udp') parts.push('meta l4proto { tcp, udp }');
  else if (elements.protocol !== 'any') parts.push(`meta l4proto ${elements.protocol}`);
  if (elements.sourceIps.length) {
    ipSet(`r${index}_src`, elements.sourceIps);
    parts.push(`ip saddr @r${index}_src`);
  }
  if (elements.destIps.length) {
    ipSet(`r${index}_dst`, elements.destIps);
    parts.push(`ip daddr @r${index}_dst`);
  }
  if (elements.domains.length) parts.push(`ip daddr @${domainSet(elements.domains)}`);
  if (elements.sourcePorts.length) parts.push(`th sport { ${elements.sourcePorts.join(', ')} }`);
  if (elements.ports.length) parts.push(`th dport { ${elements.ports.join(', ')} }`);
  return parts.length ? `${parts.join(' ')} ` : '';
}

function uuidArg(id: string): string {
  if (!/^[0-9a-fA-F-]{36}$/.test(id)) throw new Error(`rule id ${JSON.stringify(id)} is not a UUID`);
  return id;
}
