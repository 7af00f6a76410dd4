import { BlockList } from 'node:net';
import {
  DEFAULT_ROUTING,
  type DesiredOutbound,
  type DesiredRouting,
  type DesiredRule,
  type HopConfig,
} from '#libs/contracts/routing.js';
import { balancerOutbounds, type BalancerStrategy } from '../outbounds/balancer-pick.js';

/** An outbound row of the node as delivery reads it (secrets included: they go to the agent). */
export interface OutboundRow {
  id: string;
  tag: string;
  kind: 'direct' | 'blocked' | 'wireguard' | 'socks' | 'http' | 'shadowsocks';
  enabled: boolean;
  slot: number | null;
  host: string | null;
  port: number | null;
  username: string | null;
  password: string | null;
  method: string | null;
  private_key: string | null;
  peer_public_key: string | null;
  preshared_key: string | null;
  allowed_ips: string[];
  tunnel_address: string | null;
  mtu: number | null;
  keepalive: number | null;
  interface_name: string | null;
  health: 'up' | 'down' | null;
}

/** A balancer of the node as delivery reads it. */
export interface BalancerRow {
  id: string;
  tag: string;
  strategy: BalancerStrategy;
  hops: string[];
  override_id: string | null;
}

export interface BasicRow {
  default_outbound_id: string | null;
  block_bit_torrent: boolean;
  block_ips: string[];
  block_domains: string[];
  block_ports: string[];
  direct_ips: string[];
  direct_domains: string[];
  fail_closed: boolean;
}

export interface RuleRow {
  id: string;
  /** Exactly one of outbound_id and balancer_id is set. */
  outbound_id: string | null;
  balancer_id: string | null;
  source_ips: string[];
  source_ports: string[];
  network: 'tcp' | 'udp' | 'icmp' | null;
  dest_ips: string[];
  domains: string[];
  ports: string[];
  clients: string[];
  groups: string[];
  interfaces: string[];
}

/** One tunnel address of the node with the client it belongs to. */
export interface ClientAddress {
  ip: string;
  clientId: string;
  groups: string[];
}

function hopConfig(row: OutboundRow): HopConfig {
  switch (row.kind) {
    case 'wireguard':
      return {
        kind: 'wireguard',
        interfaceName: row.interface_name!,
        privateKey: row.private_key!,
        address: row.tunnel_address!,
        peerPublicKey: row.peer_public_key!,
        presharedKey: row.preshared_key,
        endpointHost: row.host!,
        endpointPort: row.port!,
        allowedIps: [...row.allowed_ips],
        mtu: row.mtu!,
        persistentKeepalive: row.keepalive!,
      };
    case 'socks':
    case 'http':
      return { kind: row.kind, host: row.host!, port: row.port!, username: row.username, password: row.password };
    case 'shadowsocks':
      return {
        kind: 'shadowsocks',
        host: row.host!,
        port: row.port!,
        method: row.method as 'aes-256-gcm',
        password: row.password!,
      };
    default:
      throw new Error(`outbound ${row.tag} of kind ${row.kind} is not a hop`);
  }
}

/** The hops a node runs: its enabled outbounds other than the built-ins. */
export function desiredOutbounds(rows: readonly OutboundRow[]): DesiredOutbound[] {
  return rows
    .filter((row) => row.enabled && row.kind !== 'direct' && row.kind !== 'blocked' && row.slot !== null)
    .map((row) => ({ id: row.id, tag: row.tag, slot: row.slot!, config: hopConfig(row) }));
}

/** Whether `ip` (IPv4) lies in one of `cidrs`. */
function within(ip: string, cidrs: readonly string[]): boolean {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [address, prefix] = cidr.split('/');
    if (!address.includes(':')) list.addSubnet(address, Number(prefix), 'ipv4');
  }
  return list.check(ip, 'ipv4');
}

/**
 * The node's routing as its agent must realise it (libs/contracts/routing.ts): rules in order,
 * disabled ones left out; every target a tag the node runs. A rule or default pointing at a
 * disabled hop goes to `blocked` when fail-closed is on and to `direct` otherwise, as the hop
 * being down would. Client and group criteria become the tunnel addresses of those clients'
 * devices on this node (all of them must match: a client of the named ones, in a named group,
 * inside the rule's own sourceIps when it has them); interface ids become host interface names.
 * A rule whose clients, groups or interfaces name nothing on this node matches nothing. A rule
 * for a balancer names the balancer's tag; `balancers` says what each sends traffic to now.
 */
export function desiredRouting(input: {
  outbounds: readonly OutboundRow[];
  basic: BasicRow | undefined;
  rules: readonly RuleRow[];
  addresses: readonly ClientAddress[];
  interfaceNames: ReadonlyMap<string, string>;
  balancers?: readonly BalancerRow[];
}): DesiredRouting {
  const failClosed = input.basic?.fail_closed ?? DEFAULT_ROUTING.failClosed;
  const byId = new Map(input.outbounds.map((row) => [row.id, row]));
  const target = (outboundId: string | null): string => {
    const row = outboundId === null ? undefined : byId.get(outboundId);
    if (!row) return 'direct';
    if (row.kind === 'direct' || row.kind === 'blocked' || row.enabled) return row.tag;
    return failClosed ? 'blocked' : 'direct';
  };
  const hops = new Map(
    input.outbounds.map((row) => [row.id, { id: row.id, tag: row.tag, enabled: row.enabled, health: row.health }]),
  );
  // Each balancer resolved now (the controller knows the hops' health; the agent needs none).
  const balancers = (input.balancers ?? []).map((row) => ({
    id: row.id,
    tag: row.tag,
    outbounds: balancerOutbounds(
      { strategy: row.strategy, hops: row.hops, overrideId: row.override_id },
      hops,
      failClosed,
    ),
  }));
  const balancerTags = new Map(balancers.map((balancer) => [balancer.id, balancer.tag]));
  const rules = input.rules.map((rule): DesiredRule => {
    let sourceIps = [...rule.source_ips];
    let matchesNothing = false;
    if (rule.clients.length > 0 || rule.groups.length > 0) {
      const clients = new Set(rule.clients);
      const groups = new Set(rule.groups);
      const matching = input.addresses.filter(
        (address) =>
          (clients.size === 0 || clients.has(address.clientId)) &&
          (groups.size === 0 || address.groups.some((group) => groups.has(group))) &&
          (rule.source_ips.length === 0 || within(address.ip, rule.source_ips)),
      );
      sourceIps = [...new Set(matching.map((address) => `${address.ip}/32`))];
      matchesNothing = sourceIps.length === 0;
    }
    const inInterfaces = rule.interfaces
      .map((id) => input.interfaceNames.get(id))
      .filter((name): name is string => name !== undefined);
    if (rule.interfaces.length > 0 && inInterfaces.length === 0) matchesNothing = true;
    return {
      id: rule.id,
      outbound: rule.balancer_id !== null ? (balancerTags.get(rule.balancer_id) ?? 'direct') : target(rule.outbound_id),
      sourceIps,
      sourcePorts: [...rule.source_ports],
      network: rule.network,
      destIps: [...rule.dest_ips],
      domains: [...rule.domains],
      ports: [...rule.ports],
      inInterfaces,
      matchesNothing,
    };
  });
  return {
    defaultOutbound: target(input.basic?.default_outbound_id ?? null),
    failClosed,
    blockBitTorrent: input.basic?.block_bit_torrent ?? false,
    blockIps: [...(input.basic?.block_ips ?? [])],
    blockDomains: [...(input.basic?.block_domains ?? [])],
    blockPorts: [...(input.basic?.block_ports ?? [])],
    directIps: [...(input.basic?.direct_ips ?? [])],
    directDomains: [...(input.basic?.direct_domains ?? [])],
    rules,
    ...(balancers.length ? { balancers: balancers.map(({ tag, outbounds }) => ({ tag, outbounds })) } : {}),
  };
}
