import { Injectable } from '@nestjs/common';
import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import { matchRoute, inElements } from '#libs/contracts/routing-match.js';
import { domainName, type DesiredRouting } from '#libs/contracts/routing.js';
import { forbiddenReason } from '#libs/net/forbidden-targets.js';
import { isIpv4 } from '#libs/wireguard/ipv4.js';
import type { OperatorScope } from '../auth/operator-scope.js';
import { badRequest, forbidden, notFound } from '../http/api-error.js';
import { isId } from '../http/id.js';
import { OutboundsService } from '../outbounds/outbounds.service.js';
import { SettingsService } from '../settings/settings.service.js';
import type { RouteTestDto, RouteTestResultDto } from './dto/route-test.dto.js';
import { RouteTestRepository, type RuleLabel, type TunnelRow } from './route-test.repository.js';

/** How long a domain may take to resolve before the test answers it does not. */
const RESOLVE_TIMEOUT_MS = 3000;

/**
 * `POST /api/routing/test`: which rule of a node decides a packet and which outbound carries it.
 * It reads the routing exactly as delivery sends it to the agent (nodeRouting: disabled rules
 * out, clients and groups as tunnel addresses, disabled hops as blocked or direct) and decides
 * with the matcher the agent's ruleset is rendered from (libs/contracts/routing-match.ts).
 */
@Injectable()
export class RouteTestService {
  constructor(
    private readonly repository: RouteTestRepository,
    private readonly outbounds: OutboundsService,
    private readonly settings: SettingsService,
  ) {}

  async test(input: RouteTestDto, scope: OperatorScope): Promise<RouteTestResultDto> {
    const notes: string[] = [];
    if (input.clientId === undefined && input.source === undefined)
      throw badRequest('give clientId or source (a tunnel address)', 'clientId');
    if (input.clientId !== undefined && input.source !== undefined)
      throw badRequest('give clientId or source, not both', 'source');
    // A reseller reaches routing only through their own clients (docs/roles.md).
    if (scope.ownerId !== null && input.clientId === undefined)
      throw forbidden('a reseller tests the routes of their own clients: give clientId', 'clientId');
    if (input.source !== undefined && !isIpv4(input.source))
      throw badRequest('source must be an IPv4 tunnel address', 'source');
    const protocol = input.protocol ?? 'tcp';
    const destination = destinationOf(input.destination);
    const nodeId = await this.outbounds.nodeOf(input.nodeId);
    const snapshot = await this.repository.snapshot(nodeId);

    let source: { address: string; interface: string; clientId: string | null };
    if (input.clientId !== undefined) {
      const addresses = isId(input.clientId)
        ? await this.repository.clientAddresses(nodeId, input.clientId.toLowerCase(), scope.ownerId)
        : null;
      if (addresses === null) throw notFound('client not found', 'clientId');
      if (addresses.length === 0) throw badRequest('the client has no device on this node', 'clientId');
      const [first] = addresses;
      if (addresses.length > 1)
        notes.push(`the client has ${addresses.length} tunnel addresses on this node; ${first.ip} is tested`);
      if (!first.active) notes.push('the client or its device is disabled: the node does not accept its traffic now');
      source = { address: first.ip, interface: first.interface, clientId: input.clientId.toLowerCase() };
    } else {
      const tunnel = tunnelOf(snapshot.tunnels, input.source!);
      if (!tunnel)
        throw badRequest('source is in no enabled tunnel subnet of this node: only tunnel traffic is routed', 'source');
      source = { address: input.source!, interface: tunnel.name, clientId: null };
    }

    let address = destination.address;
    let resolved: string[] | null = null;
    if (destination.domain !== null) {
      resolved = await resolve(destination.domain);
      if (resolved.length === 0)
        throw badRequest(
          `${destination.domain} has no IPv4 address (the node's resolver would answer none)`,
          'destination',
        );
      if (!(await this.settings.get()).allowPrivateTargets) assertPublicAnswers(destination.domain, resolved);
      address = resolved[0];
      notes.push(
        `${destination.domain} resolved to ${resolved.join(', ')} by the panel's resolver; a client's traffic matches the domain's rules only when it resolved the name through the node's resolver (the tunnel gateway)`,
      );
    } else if (hasDomainCriteria(snapshot.routing)) {
      notes.push(
        'tested by address: rules and lists on domains match an address only after a client resolved one of their names through the node, so they are not matched here',
      );
    }
    const port = protocol === 'icmp' ? null : (input.port ?? null);
    if (protocol !== 'icmp' && port === null) notes.push('no port given: rules on ports do not match');

    const match = matchRoute(
      snapshot.routing,
      snapshot.tunnels.map((tunnel) => tunnel.name),
      {
        sourceIp: source.address,
        inInterface: source.interface,
        destIp: address,
        domain: destination.domain,
        protocol,
        port,
        sourcePort: protocol === 'icmp' ? null : (input.sourcePort ?? null),
      },
    );
    const label = match.ruleId === null ? undefined : snapshot.rules.get(match.ruleId);
    if (match.balancer !== null)
      notes.push(
        `balancer ${match.balancer} picks ${match.outbound} now, by its hops' last checks; its pick moves when their health does`,
      );
    if (match.outbound !== null && !['direct', 'blocked'].includes(match.outbound))
      notes.push(
        snapshot.routing.failClosed
          ? `while hop ${match.outbound} is down its traffic is dropped (fail-closed)`
          : `while hop ${match.outbound} is down its traffic leaves directly (fail-closed is off)`,
      );
    if (
      match.step === 'rule' &&
      match.outbound !== null &&
      protocol !== 'tcp' &&
      snapshot.hops.get(match.outbound) !== 'wireguard' &&
      snapshot.hops.has(match.outbound)
    )
      notes.push(
        `hop ${match.outbound} carries TCP only: this ${protocol.toUpperCase()} traffic is dropped when fail-closed, else leaves directly`,
      );
    return {
      nodeId,
      source,
      destination: { address, domain: destination.domain, resolved },
      protocol,
      port,
      step: match.step,
      rule: label ? { id: label.id, name: label.name, position: label.position } : null,
      matched: label ? namedCriteria(match.matched, label) : match.matched,
      outbound: match.outbound,
      balancer: match.balancer,
      notes,
    };
  }
}

function destinationOf(text: string): { address: string; domain: string | null } {
  const value = text.trim();
  if (isIP(value) === 4) return { address: value, domain: null };
  if (isIP(value) === 6) throw badRequest('routing is IPv4 only: give an IPv4 address or a domain', 'destination');
  const name = value.toLowerCase().replace(/\.$/, '');
  if (!domainName.safeParse(name).success || !name.includes('.') || /^[\d.]+$/.test(name))
    throw badRequest('destination must be an IPv4 address or a domain name (example.com)', 'destination');
  return { address: '', domain: name };
}

/**
 * Resellers and viewers may test routes, and the answer names what a domain resolved to: without
 * this, anyone who may test could map the panel's internal DNS one name at a time (the rule
 * docs/outbounds.md states for hop and probe refusals). A domain that resolves to a private,
 * loopback, link-local or the host's own address is refused without naming the address, unless
 * settings allow private targets.
 */
export function assertPublicAnswers(domain: string, addresses: readonly string[], own?: readonly string[]): void {
  if (addresses.some((address) => forbiddenReason(address, own) !== null))
    throw badRequest(
      `${domain} resolves to a forbidden address (private, loopback, link-local or this host's); test it by an address, or allow private targets in settings`,
      'destination',
    );
}

function tunnelOf(tunnels: readonly TunnelRow[], ip: string): TunnelRow | undefined {
  return tunnels.find((tunnel) => inElements(ip, [tunnel.subnet]));
}

/** IPv4 answers as the node's resolver (dnsmasq) would forward them: the host's DNS servers. */
async function resolve(domain: string): Promise<string[]> {
  const resolver = new Resolver({ timeout: RESOLVE_TIMEOUT_MS, tries: 1 });
  try {
    return await resolver.resolve4(domain);
  } catch {
    return [];
  } finally {
    resolver.cancel();
  }
}

function hasDomainCriteria(routing: DesiredRouting): boolean {
  return (
    routing.blockDomains.length > 0 ||
    routing.directDomains.length > 0 ||
    routing.rules.some((rule) => rule.domains.length > 0)
  );
}

/** The criteria in the rule's own words: delivered source addresses came from its clients, groups and sourceIps. */
function namedCriteria(matched: readonly string[], rule: RuleLabel): string[] {
  return matched.flatMap((criterion) => {
    if (criterion !== 'sourceIps') return [criterion];
    const named = [
      ...(rule.clients.length ? ['clients'] : []),
      ...(rule.groups.length ? ['groups'] : []),
      ...(rule.source_ips.length ? ['sourceIps'] : []),
    ];
    return named.length ? named : [criterion];
  });
}
