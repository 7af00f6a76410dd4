import { Injectable } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import { MAX_RULES_PER_NODE } from '#libs/contracts/routing.js';
import { normalizeCidr, normalizeDomain, normalizeList, normalizePortRange } from '../common/network-text.js';
import { badRequest, conflict, notFound } from '../http/api-error.js';
import { isId } from '../http/id.js';
import { isStorableText } from '../http/storable-text.js';
import { OutboundsService } from '../outbounds/outbounds.service.js';
import { bumpRevisions, lockNode } from '../revisions/revisions.js';
import type { CreateRuleDto, UpdateRoutingDto, UpdateRuleDto } from './dto/routing.dto.js';
import type { RoutingRule } from './routing-rule.entity.js';
import {
  RoutingRepository,
  type OutboundRef,
  type RoutingBasicView,
  type RoutingRuleView,
  type RuleCriteria,
} from './routing.repository.js';

export interface RoutingView {
  nodeId: string;
  basic: RoutingBasicView;
  rules: RoutingRuleView[];
}

const CRITERIA = [
  'sourceIps',
  'sourcePorts',
  'network',
  'destIps',
  'domains',
  'ports',
  'clients',
  'groups',
  'interfaces',
] as const;

/**
 * Policy routing per node: the basic settings and the ordered rules (docs/outbounds.md). Every
 * write locks the node row (a rule row first when it changes one), checks what it names under
 * that lock, and bumps the node's revision in the same transaction.
 */
@Injectable()
export class RoutingService {
  constructor(
    private readonly routing: RoutingRepository,
    private readonly outbounds: OutboundsService,
  ) {}

  async get(nodeId: string | undefined): Promise<RoutingView> {
    const node = await this.outbounds.nodeOf(nodeId);
    return this.view(node);
  }

  async updateBasic(nodeId: string | undefined, changes: UpdateRoutingDto): Promise<RoutingView> {
    const node = await this.outbounds.nodeOf(nodeId);
    const lists = {
      blockIps: changes.blockIps && normalizeList(changes.blockIps, 'blockIps', normalizeCidr),
      blockDomains: changes.blockDomains && normalizeList(changes.blockDomains, 'blockDomains', normalizeDomain),
      blockPorts: changes.blockPorts && normalizeList(changes.blockPorts, 'blockPorts', normalizePortRange),
      directIps: changes.directIps && normalizeList(changes.directIps, 'directIps', normalizeCidr),
      directDomains: changes.directDomains && normalizeList(changes.directDomains, 'directDomains', normalizeDomain),
    };
    await this.routing.transaction(async (em) => {
      await lockNode(em, node, 'nodeId');
      const current = await this.routing.basic(node, em);
      const tag = changes.defaultOutbound ?? current.defaultOutbound;
      const target = await this.routing.outboundByTag(em, node, tag);
      if (!target) throw badRequest(`there is no outbound tagged "${tag}" on this node`, 'defaultOutbound');
      if (!target.enabled)
        throw badRequest(`outbound "${tag}" is disabled; enable it before making it the default`, 'defaultOutbound');
      const next = {
        blockBitTorrent: changes.blockBitTorrent ?? current.blockBitTorrent,
        blockIps: lists.blockIps ?? current.blockIps,
        blockDomains: lists.blockDomains ?? current.blockDomains,
        blockPorts: lists.blockPorts ?? current.blockPorts,
        directIps: lists.directIps ?? current.directIps,
        directDomains: lists.directDomains ?? current.directDomains,
        failClosed: changes.failClosed ?? current.failClosed,
      };
      // Nothing changes: no pointless apply.
      if (sameBasic(current, { defaultOutbound: tag, ...next })) return;
      // `direct` is the default without a reference: a row that names it stays valid forever.
      await this.routing.upsertBasic(em, node, { ...next, defaultOutboundId: tag === 'direct' ? null : target.id });
      await bumpRevisions(em, [node]);
    });
    return this.view(node);
  }

  async createRule(nodeId: string | undefined, input: CreateRuleDto): Promise<RoutingRuleView> {
    const node = await this.outbounds.nodeOf(nodeId);
    const criteria = normalizeCriteria({
      sourceIps: input.sourceIps ?? [],
      sourcePorts: input.sourcePorts ?? [],
      network: input.network ?? null,
      destIps: input.destIps ?? [],
      domains: input.domains ?? [],
      ports: input.ports ?? [],
      clients: input.clients ?? [],
      groups: input.groups ?? [],
      interfaces: input.interfaces ?? [],
    });
    const id = await this.routing.transaction(async (em) => {
      await lockNode(em, node, 'nodeId');
      const target = await this.outboundOf(em, node, input.outboundTag);
      await this.assertNamedExist(em, node, criteria);
      if ((await this.routing.ruleIds(em, node)).length >= MAX_RULES_PER_NODE)
        throw conflict(`a node has at most ${MAX_RULES_PER_NODE} rules`);
      const id = await this.routing.insertRule(em, {
        nodeId: node,
        name: ruleName(input.name),
        enabled: input.enabled ?? true,
        position: await this.routing.nextPosition(em, node),
        target,
        ...criteria,
      });
      await bumpRevisions(em, [node]);
      return id;
    });
    return this.rule(id);
  }

  async updateRule(id: string, changes: UpdateRuleDto): Promise<RoutingRuleView> {
    await this.routing.transaction(async (em) => {
      const row = await this.lockRule(em, id);
      const node = row.node.id;
      await lockNode(em, node, 'nodeId');
      const criteria = normalizeCriteria({
        sourceIps: changes.sourceIps ?? row.sourceIps,
        sourcePorts: changes.sourcePorts ?? row.sourcePorts,
        network: changes.network !== undefined ? changes.network : (row.network ?? null),
        destIps: changes.destIps ?? row.destIps,
        domains: changes.domains ?? row.domains,
        ports: changes.ports ?? row.ports,
        clients: changes.clients ?? row.clients,
        groups: changes.groups ?? row.groups,
        interfaces: changes.interfaces ?? row.interfaces,
      });
      // Only what the change names must exist now: a client deleted since the rule was made does not block renaming it.
      await this.assertNamedExist(em, node, {
        ...criteria,
        clients: changes.clients !== undefined ? criteria.clients : [],
        interfaces: changes.interfaces !== undefined ? criteria.interfaces : [],
      });
      const before = JSON.stringify(snapshot(row));
      if (changes.outboundTag !== undefined && changes.outboundTag !== (row.balancer ?? row.outbound)?.tag) {
        this.routing.setTarget(em, row, await this.outboundOf(em, node, changes.outboundTag));
      }
      if (changes.name !== undefined) row.name = ruleName(changes.name);
      if (changes.enabled !== undefined) row.enabled = changes.enabled;
      Object.assign(row, criteria);
      if (JSON.stringify(snapshot(row)) === before) return;
      await this.routing.save(em);
      await bumpRevisions(em, [node]);
    });
    return this.rule(id);
  }

  async removeRule(id: string): Promise<{ id: string; deleted: true }> {
    return this.routing.transaction(async (em) => {
      const row = await this.lockRule(em, id);
      await lockNode(em, row.node.id, 'nodeId');
      await this.routing.deleteRule(em, id);
      await bumpRevisions(em, [row.node.id]);
      return { id, deleted: true as const };
    });
  }

  /** Sets the matching order: `ids` must be exactly the node's rules, each once. */
  async order(nodeId: string | undefined, ids: readonly string[]): Promise<RoutingView> {
    const node = await this.outbounds.nodeOf(nodeId);
    const seen = new Set<string>();
    ids.forEach((id) => {
      if (!isId(id)) throw badRequest(`"${id}" is not a rule id`, 'ids');
      if (seen.has(id.toLowerCase())) throw badRequest(`rule ${id} is listed twice`, 'ids');
      seen.add(id.toLowerCase());
    });
    await this.routing.transaction(async (em) => {
      await lockNode(em, node, 'nodeId');
      const existing = new Set(await this.routing.ruleIds(em, node));
      const unknown = [...seen].find((id) => !existing.has(id));
      if (unknown) throw notFound(`rule ${unknown} is not a rule of this node`, 'ids');
      if (seen.size !== existing.size) {
        throw badRequest(
          `ids must list every rule of the node once (${existing.size}); ${existing.size - seen.size} missing`,
          'ids',
        );
      }
      await this.routing.setOrder(em, node, [...seen]);
      await bumpRevisions(em, [node]);
    });
    return this.view(node);
  }

  /**
   * Re-apply now (`POST /api/routing/apply`): the node's revision (every node's when none is
   * named) moves on, so its agent applies the whole desired state again, routing included:
   * the ruleset is rendered afresh, hops and the resolver reconciled.
   */
  async apply(nodeId: string | undefined, all: boolean): Promise<{ nodes: { nodeId: string; revision: number }[] }> {
    const only = all ? null : await this.outbounds.nodeOf(nodeId);
    const revisions = await this.routing.transaction(async (em) => {
      const ids = only ? [only] : await this.routing.nodeIds(em);
      return bumpRevisions(em, ids);
    });
    return {
      nodes: [...revisions]
        .map(([id, revision]) => ({ nodeId: id, revision }))
        .sort((a, b) => a.nodeId.localeCompare(b.nodeId)),
    };
  }

  private async view(nodeId: string): Promise<RoutingView> {
    const [basic, rules] = await Promise.all([this.routing.basic(nodeId), this.routing.rules(nodeId)]);
    return { nodeId, basic, rules };
  }

  private async rule(id: string): Promise<RoutingRuleView> {
    const found = await this.routing.rule(id);
    if (!found) throw notFound('rule not found', 'id');
    return found;
  }

  private async lockRule(em: EntityManager, id: string): Promise<RoutingRule> {
    const row = isId(id) ? await this.routing.lockRule(em, id) : null;
    if (!row) throw notFound('rule not found', 'id');
    await em.populate(row, ['outbound', 'balancer']);
    return row;
  }

  private async outboundOf(em: EntityManager, nodeId: string, tag: string): Promise<OutboundRef> {
    const target = await this.routing.targetByTag(em, nodeId, tag);
    if (!target) throw badRequest(`there is no outbound or balancer tagged "${tag}" on this node`, 'outboundTag');
    return target;
  }

  /** Named clients must exist; named interfaces must be interfaces of this node. */
  private async assertNamedExist(em: EntityManager, nodeId: string, criteria: RuleCriteria): Promise<void> {
    const clients = await this.routing.existingClients(em, criteria.clients);
    const missingClient = criteria.clients.findIndex((id) => !clients.has(id));
    if (missingClient >= 0)
      throw badRequest(`there is no client ${criteria.clients[missingClient]}`, `clients.${missingClient}`);
    const interfaces = await this.routing.interfacesOfNode(em, nodeId, criteria.interfaces);
    const missingInterface = criteria.interfaces.findIndex((id) => !interfaces.has(id));
    if (missingInterface >= 0)
      throw badRequest(
        `there is no interface ${criteria.interfaces[missingInterface]} on this node`,
        `interfaces.${missingInterface}`,
      );
  }
}

function sameBasic(a: RoutingBasicView, b: RoutingBasicView): boolean {
  const key = (v: RoutingBasicView) =>
    JSON.stringify([
      v.defaultOutbound,
      v.blockBitTorrent,
      v.blockIps,
      v.blockDomains,
      v.blockPorts,
      v.directIps,
      v.directDomains,
      v.failClosed,
    ]);
  return key(a) === key(b);
}

function ruleName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0) throw badRequest('name must not be blank', 'name');
  return trimmed;
}

/** Each list checked entry by entry (the field names the entry), normalised; at least one criterion. */
function normalizeCriteria(input: RuleCriteria): RuleCriteria {
  const ids = (values: readonly string[], field: string) =>
    normalizeList(values, field, (value, path) => {
      if (!isId(value)) throw badRequest(`${path} must be an id`, path);
      return value.toLowerCase();
    });
  const criteria: RuleCriteria = {
    sourceIps: normalizeList(input.sourceIps, 'sourceIps', normalizeCidr),
    sourcePorts: normalizeList(input.sourcePorts, 'sourcePorts', normalizePortRange),
    network: input.network,
    destIps: normalizeList(input.destIps, 'destIps', normalizeCidr),
    domains: normalizeList(input.domains, 'domains', normalizeDomain),
    ports: normalizeList(input.ports, 'ports', normalizePortRange),
    clients: ids(input.clients, 'clients'),
    groups: normalizeList(input.groups, 'groups', (value, path) => {
      const name = value.trim();
      if (name.length === 0 || !isStorableText(name)) throw badRequest(`${path} must be a group name`, path);
      return name;
    }),
    interfaces: ids(input.interfaces, 'interfaces'),
  };
  const given = CRITERIA.some((key) => (key === 'network' ? criteria.network !== null : criteria[key].length > 0));
  if (!given) throw badRequest(`a rule needs at least one criterion (${CRITERIA.join(', ')})`, 'sourceIps');
  return criteria;
}

function snapshot(row: RoutingRule) {
  return [row.name, row.enabled, row.outbound?.id, row.balancer?.id, ...CRITERIA.map((key) => row[key] ?? null)];
}
