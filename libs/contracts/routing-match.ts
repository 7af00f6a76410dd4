import { intToIp, ipToInt, isIpv4, prefixMask } from '../wireguard/ipv4.js';
import type { DesiredRouting, DesiredRule } from './routing.js';

/**
 * How a node's routing (DesiredRouting) decides one packet: the semantics of the agent's
 * `route` chain (apps/agent/src/host/routing/routing-ruleset.ts renders it from the same
 * `ruleElements` below), as a pure function the controller's route test (`POST
 * /api/routing/test`) runs. Order, first match wins: the DNS of tunnels with domain criteria
 * (answered by the node's resolver), block lists, BitTorrent ports, direct lists, the rules in
 * order, the default outbound. A domain criterion matches addresses the node's resolver handed
 * out for a listed name (or one under it), so a query names the domain it resolved, if any.
 */

/** An IPv4 CIDR or address as nft writes it, host bits cleared; null for IPv6 and anything else. */
export function ipv4Element(text: string): string | null {
  const slash = text.indexOf('/');
  const address = slash === -1 ? text : text.slice(0, slash);
  if (!isIpv4(address)) return null;
  const prefix = slash === -1 ? 32 : Number(text.slice(slash + 1));
  if (
    !Number.isInteger(prefix) ||
    prefix < 0 ||
    prefix > 32 ||
    (slash !== -1 && !/^\d{1,2}$/.test(text.slice(slash + 1)))
  )
    return null;
  const network = intToIp((ipToInt(address) & prefixMask(prefix)) >>> 0);
  return prefix === 32 ? network : `${network}/${prefix}`;
}

/** `443` or `6881-6889` checked into nft's form; null when out of range. */
export function portElement(text: string): string | null {
  const match = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(text);
  if (!match) return null;
  const from = Number(match[1]);
  const to = match[2] === undefined ? from : Number(match[2]);
  if (from > 65535 || to > 65535 || to < from) return null;
  return from === to ? String(from) : `${from}-${to}`;
}

const TUNNEL_NAME = /^[A-Za-z0-9_.-]{1,15}$/;
export const BITTORRENT_PORTS = '6881-6889';

/**
 * What of one rule the node can match on, as the ruleset writes it; null when the rule can
 * match nothing (its clients are not on this node, only IPv6 addresses, ports with ICMP…). An
 * empty list means any.
 */
export interface RuleElements {
  inInterfaces: string[];
  /** `any`: no protocol criterion; `tcp-udp`: ports given without a network. */
  protocol: 'any' | 'tcp' | 'udp' | 'icmp' | 'tcp-udp';
  sourceIps: string[];
  destIps: string[];
  domains: string[];
  sourcePorts: string[];
  ports: string[];
}

export function ruleElements(rule: DesiredRule): RuleElements | null {
  if (rule.matchesNothing) return null;
  const inInterfaces = rule.inInterfaces.filter((name) => TUNNEL_NAME.test(name));
  if (rule.inInterfaces.length && !inInterfaces.length) return null;
  const sourcePorts = elements(rule.sourcePorts, portElement);
  const ports = elements(rule.ports, portElement);
  if ((rule.sourcePorts.length && !sourcePorts.length) || (rule.ports.length && !ports.length)) return null;
  const needsPorts = sourcePorts.length > 0 || ports.length > 0;
  if (rule.network === 'icmp' && needsPorts) return null;
  const sourceIps = elements(rule.sourceIps, ipv4Element);
  const destIps = elements(rule.destIps, ipv4Element);
  if ((rule.sourceIps.length && !sourceIps.length) || (rule.destIps.length && !destIps.length)) return null;
  return {
    inInterfaces,
    protocol: rule.network ?? (needsPorts ? 'tcp-udp' : 'any'),
    sourceIps,
    destIps,
    domains: rule.domains,
    sourcePorts,
    ports,
  };
}

function elements(items: readonly string[], check: (text: string) => string | null): string[] {
  return items.map(check).filter((e): e is string => e !== null);
}

/** One packet (its first, for a connection) as it arrives on a tunnel of the node. */
export interface RouteQuery {
  sourceIp: string;
  /** The tunnel interface (host name) it arrives on. */
  inInterface: string;
  destIp: string;
  /** The name the destination was resolved from through the node's resolver; null: an address. */
  domain: string | null;
  protocol: 'tcp' | 'udp' | 'icmp';
  /** Destination port (TCP and UDP). */
  port: number | null;
  sourcePort: number | null;
}

export type RouteStep = 'resolver' | 'block-list' | 'bittorrent' | 'direct-list' | 'rule' | 'default';

/** The criteria of a rule (or list) that matched, in the API's words. */
export type MatchedCriterion =
  | 'interfaces'
  | 'network'
  | 'sourceIps'
  | 'destIps'
  | 'domains'
  | 'sourcePorts'
  | 'ports'
  | 'blockIps'
  | 'blockDomains'
  | 'blockPorts'
  | 'directIps'
  | 'directDomains';

/**
 * The outbound a balancer sends a source address to: with one entry (failover, an override)
 * that one; with several, the entry at the address's last octet modulo their number. The agent's
 * ruleset writes the same choice as an nft verdict map on `ip saddr & 0.0.0.255`. A `hash`
 * balancer's entries are its table (`hashTable`), so this is `hashPick` of its hops.
 */
export function balancerPick(outbounds: readonly string[], sourceIp: string): string {
  if (outbounds.length === 1 || !isIpv4(sourceIp)) return outbounds[0];
  return outbounds[(ipToInt(sourceIp) & 0xff) % outbounds.length];
}

/**
 * The hop a `hash` balancer gives a source address: its own hop, `hops` at the address's last
 * octet modulo their number, while that one is usable; when it is not, the usable hop at the
 * octet modulo their number. So a hop going down moves only its own clients (spread over the
 * others) and they return when it is back; nobody else moves. `usable` is a non-empty subset of
 * `hops`.
 */
export function hashPick(hops: readonly string[], usable: readonly string[], sourceIp: string): string {
  const octet = isIpv4(sourceIp) ? ipToInt(sourceIp) & 0xff : 0;
  const own = hops[octet % hops.length];
  return usable.includes(own) ? own : usable[octet % usable.length];
}

/**
 * `hashPick` as a list `balancerPick` reads (what the desired state carries, so the agent needs
 * no health logic): entry i is the pick for octet i. Its length is the least common multiple of
 * the numbers of hops and usable hops (at most 240 for 16 hops), so the octet modulo it
 * determines both moduli; just the usable hops while all are usable.
 */
export function hashTable(hops: readonly string[], usable: readonly string[]): string[] {
  if (usable.length === hops.length) return [...usable];
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  const length = (hops.length * usable.length) / gcd(hops.length, usable.length);
  return Array.from({ length }, (_, i) => {
    const own = hops[i % hops.length];
    return usable.includes(own) ? own : usable[i % usable.length];
  });
}

export interface RouteMatch {
  step: RouteStep;
  /** The rule that decided (step `rule`): its id and index in `routing.rules`. */
  ruleId: string | null;
  ruleIndex: number | null;
  matched: MatchedCriterion[];
  /** The outbound tag that carries it: `direct`, `blocked` or a hop's tag; null: the resolver answers. */
  outbound: string | null;
  /** The balancer the rule or default named, whose pick `outbound` is; null: none. */
  balancer: string | null;
}

/** Whether the IPv4 `ip` lies in one of the nft elements (addresses or networks). */
export function inElements(ip: string, items: readonly string[]): boolean {
  if (!isIpv4(ip)) return false;
  const address = ipToInt(ip);
  return items.some((item) => {
    const [network, prefix] = item.split('/');
    const mask = prefixMask(prefix === undefined ? 32 : Number(prefix));
    return (address & mask) >>> 0 === (ipToInt(network) & mask) >>> 0;
  });
}

/** dnsmasq's `nftset=/a.com/`: the name itself and every name under it. */
export function domainListed(domain: string, list: readonly string[]): boolean {
  const name = domain.toLowerCase().replace(/\.$/, '');
  return list.some((entry) => {
    const listed = entry.toLowerCase();
    return name === listed || name.endsWith(`.${listed}`);
  });
}

function inPorts(port: number | null, items: readonly string[]): boolean {
  if (port === null) return false;
  return items.some((item) => {
    const [from, to] = item.split('-').map(Number);
    return port >= from && port <= (to ?? from);
  });
}

/** The tunnels whose clients' DNS the node's resolver answers (renderRuleset's dnsInterfaces). */
export function resolverTunnels(routing: DesiredRouting, tunnels: readonly string[]): Set<string> {
  if (routing.blockDomains.length || routing.directDomains.length) return new Set(tunnels);
  const found = new Set<string>();
  for (const rule of routing.rules) {
    if (!rule.domains.length || ruleElements(rule) === null) continue;
    for (const tunnel of tunnels)
      if (!rule.inInterfaces.length || rule.inInterfaces.includes(tunnel)) found.add(tunnel);
  }
  return found;
}

/**
 * The node's decision for `query`. `tunnels` are the node's tunnel interfaces (traffic from
 * elsewhere is never routed; the caller checks the query's interface is one); `redirectDns`
 * whether the node's resolver answers its clients' DNS (it does whenever domain criteria exist).
 */
export function matchRoute(
  routing: DesiredRouting,
  tunnels: readonly string[],
  query: RouteQuery,
  redirectDns = true,
): RouteMatch {
  const match = matchTarget(routing, tunnels, query, redirectDns);
  const balancer = routing.balancers?.find((entry) => entry.tag === match.outbound);
  if (!balancer) return match;
  return { ...match, balancer: balancer.tag, outbound: balancerPick(balancer.outbounds, query.sourceIp) };
}

function matchTarget(
  routing: DesiredRouting,
  tunnels: readonly string[],
  query: RouteQuery,
  redirectDns: boolean,
): RouteMatch {
  const l4 = query.protocol === 'tcp' || query.protocol === 'udp';
  const port = l4 ? query.port : null;
  const sourcePort = l4 ? query.sourcePort : null;
  const decided = (step: RouteStep, outbound: string | null, matched: MatchedCriterion[] = []): RouteMatch => ({
    step,
    ruleId: null,
    ruleIndex: null,
    matched,
    outbound,
    balancer: null,
  });
  const domain = (list: readonly string[]) => query.domain !== null && domainListed(query.domain, list);

  if (redirectDns && port === 53 && resolverTunnels(routing, tunnels).has(query.inInterface))
    return decided('resolver', null);
  if (inElements(query.destIp, elements(routing.blockIps, ipv4Element)))
    return decided('block-list', 'blocked', ['blockIps']);
  if (domain(routing.blockDomains)) return decided('block-list', 'blocked', ['blockDomains']);
  if (inPorts(port, elements(routing.blockPorts, portElement))) return decided('block-list', 'blocked', ['blockPorts']);
  if (routing.blockBitTorrent && inPorts(port, [BITTORRENT_PORTS])) return decided('bittorrent', 'blocked');
  if (inElements(query.destIp, elements(routing.directIps, ipv4Element)))
    return decided('direct-list', 'direct', ['directIps']);
  if (domain(routing.directDomains)) return decided('direct-list', 'direct', ['directDomains']);

  for (const [index, rule] of routing.rules.entries()) {
    const matched = ruleMatches(rule, query, port, sourcePort);
    if (matched)
      return { step: 'rule', ruleId: rule.id, ruleIndex: index, matched, outbound: rule.outbound, balancer: null };
  }
  return decided('default', routing.defaultOutbound);
}

/** The criteria that matched when all of the rule's did, else null. */
function ruleMatches(
  rule: DesiredRule,
  query: RouteQuery,
  port: number | null,
  sourcePort: number | null,
): MatchedCriterion[] | null {
  const elements = ruleElements(rule);
  if (elements === null) return null;
  const matched: MatchedCriterion[] = [];
  const check = (given: boolean, ok: () => boolean, criterion: MatchedCriterion) => {
    if (!given) return true;
    if (!ok()) return false;
    matched.push(criterion);
    return true;
  };
  const protocolOk = () =>
    elements.protocol === 'tcp-udp' ? query.protocol !== 'icmp' : query.protocol === elements.protocol;
  const all =
    check(elements.inInterfaces.length > 0, () => elements.inInterfaces.includes(query.inInterface), 'interfaces') &&
    check(elements.protocol !== 'any', protocolOk, 'network') &&
    check(elements.sourceIps.length > 0, () => inElements(query.sourceIp, elements.sourceIps), 'sourceIps') &&
    check(elements.destIps.length > 0, () => inElements(query.destIp, elements.destIps), 'destIps') &&
    check(
      elements.domains.length > 0,
      () => query.domain !== null && domainListed(query.domain, elements.domains),
      'domains',
    ) &&
    check(elements.sourcePorts.length > 0, () => inPorts(sourcePort, elements.sourcePorts), 'sourcePorts') &&
    check(elements.ports.length > 0, () => inPorts(port, elements.ports), 'ports');
  // `network` is recorded only when the rule named one (ports alone imply TCP or UDP).
  if (all && elements.protocol === 'tcp-udp') matched.splice(matched.indexOf('network'), 1);
  return all ? matched : null;
}
