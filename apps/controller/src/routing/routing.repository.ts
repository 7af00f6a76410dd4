import { Inject, Injectable } from '@nestjs/common';
import { LockMode, MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import { DEFAULT_ROUTING } from '#libs/contracts/routing.js';
import { Balancer } from '../balancers/balancer.entity.js';
import { Outbound } from '../outbounds/outbound.entity.js';
import { Node } from '../revisions/node.entity.js';
import { RoutingBasic } from './routing-basic.entity.js';
import { RoutingRule, type RuleNetwork } from './routing-rule.entity.js';
import { setPositions } from '../database/positions.js';

export interface RoutingBasicView {
  defaultOutbound: string;
  blockBitTorrent: boolean;
  blockIps: string[];
  blockDomains: string[];
  blockPorts: string[];
  directIps: string[];
  directDomains: string[];
  failClosed: boolean;
}

export interface RuleCriteria {
  sourceIps: string[];
  sourcePorts: string[];
  network: RuleNetwork | null;
  destIps: string[];
  domains: string[];
  ports: string[];
  clients: string[];
  groups: string[];
  interfaces: string[];
}

export interface RoutingRuleView extends RuleCriteria {
  id: string;
  nodeId: string;
  name: string;
  enabled: boolean;
  position: number;
  /** The outbound's or the balancer's tag. */
  outboundTag: string;
  outboundId: string | null;
  balancerId: string | null;
  hits: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface OutboundRef {
  id: string;
  tag: string;
  enabled: boolean;
  /** A balancer's tag names it as a target too (balancers/). */
  balancer?: true;
}

export type NewRule = RuleCriteria & {
  nodeId: string;
  name: string;
  enabled: boolean;
  position: number;
  target: OutboundRef;
};
export type BasicFields = Omit<RoutingBasicView, 'defaultOutbound'> & { defaultOutboundId: string | null };

function ruleView(row: RoutingRule): RoutingRuleView {
  return {
    id: row.id,
    nodeId: row.node.id,
    name: row.name,
    enabled: row.enabled,
    position: row.position,
    sourceIps: [...row.sourceIps],
    sourcePorts: [...row.sourcePorts],
    network: row.network ?? null,
    destIps: [...row.destIps],
    domains: [...row.domains],
    ports: [...row.ports],
    clients: [...row.clients],
    groups: [...row.groups],
    interfaces: [...row.interfaces],
    outboundTag: row.balancer?.tag ?? row.outbound?.tag ?? '',
    outboundId: row.outbound?.id ?? null,
    balancerId: row.balancer?.id ?? null,
    hits: row.hits,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/**
 * Routing basics and rules of a node, their locks and views. Clients, devices and interfaces
 * (clients/ and interfaces/, below routing/ in the dependency order but reached through plain
 * table reads to keep this module's imports small) are read by table name.
 */
@Injectable()
export class RoutingRepository {
  constructor(@Inject(MikroORM) private readonly orm: MikroORM) {}

  transaction<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    return this.orm.em.fork().transactional(work);
  }

  async basic(nodeId: string, em: EntityManager = this.orm.em.fork()): Promise<RoutingBasicView> {
    const row = await em.findOne(RoutingBasic, { node: nodeId }, { populate: ['defaultOutbound'] });
    if (!row) {
      const { defaultOutbound, blockBitTorrent, failClosed } = DEFAULT_ROUTING;
      return {
        defaultOutbound,
        blockBitTorrent,
        blockIps: [],
        blockDomains: [],
        blockPorts: [],
        directIps: [],
        directDomains: [],
        failClosed,
      };
    }
    return {
      defaultOutbound: row.defaultOutbound?.tag ?? 'direct',
      blockBitTorrent: row.blockBitTorrent,
      blockIps: [...row.blockIps],
      blockDomains: [...row.blockDomains],
      blockPorts: [...row.blockPorts],
      directIps: [...row.directIps],
      directDomains: [...row.directDomains],
      failClosed: row.failClosed,
    };
  }

  async rules(nodeId: string, em: EntityManager = this.orm.em.fork()): Promise<RoutingRuleView[]> {
    const rows = await em.find(
      RoutingRule,
      { node: nodeId },
      { populate: ['outbound', 'balancer'], orderBy: { position: 'asc', createdAt: 'asc', id: 'asc' } },
    );
    return rows.map(ruleView);
  }

  async rule(id: string): Promise<RoutingRuleView | null> {
    const row = await this.orm.em.fork().findOne(RoutingRule, { id }, { populate: ['outbound', 'balancer'] });
    return row && ruleView(row);
  }

  /** Locks the rule row until the transaction ends and reads it fresh (before the node row: the lock order). */
  async lockRule(em: EntityManager, id: string): Promise<RoutingRule | null> {
    return em.findOne(RoutingRule, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  }

  async outboundByTag(em: EntityManager, nodeId: string, tag: string): Promise<OutboundRef | null> {
    const row = await em.findOne(Outbound, { node: nodeId, tag }, { fields: ['id', 'tag', 'enabled'] });
    return row && { id: row.id, tag: row.tag, enabled: row.enabled };
  }

  /** An outbound or, failing one, a balancer of the node by tag (tags are unique across both). */
  async targetByTag(em: EntityManager, nodeId: string, tag: string): Promise<OutboundRef | null> {
    const outbound = await this.outboundByTag(em, nodeId, tag);
    if (outbound) return outbound;
    const row = await em.findOne(Balancer, { node: nodeId, tag }, { fields: ['id', 'tag'] });
    return row && { id: row.id, tag: row.tag, enabled: true, balancer: true };
  }

  /** Which of these client ids exist (clients, by table name). */
  async existingClients(em: EntityManager, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await em.execute<{ id: string }[]>('select id from clients where id = any(array[?]::uuid[])', [
      [...ids],
    ]);
    return new Set(rows.map((row) => row.id));
  }

  /** Which of these interface ids are interfaces of the node (interfaces, by table name). */
  async interfacesOfNode(em: EntityManager, nodeId: string, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await em.execute<{ id: string }[]>(
      'select id from interfaces where node_id = ? and id = any(array[?]::uuid[])',
      [nodeId, [...ids]],
    );
    return new Set(rows.map((row) => row.id));
  }

  /** Every node's id: what a re-apply of all routing moves on. */
  async nodeIds(em: EntityManager): Promise<string[]> {
    return (await em.execute<{ id: string }[]>('select id from nodes')).map((row) => row.id);
  }

  async ruleIds(em: EntityManager, nodeId: string): Promise<string[]> {
    const rows = await em.find(RoutingRule, { node: nodeId }, { fields: ['id'] });
    return rows.map((row) => row.id);
  }

  async nextPosition(em: EntityManager, nodeId: string): Promise<number> {
    const [row] = await em.execute<{ next: number }[]>(
      'select coalesce(max(position) + 1, 0)::int as next from routing_rules where node_id = ?',
      [nodeId],
    );
    return row.next;
  }

  async insertRule(em: EntityManager, input: NewRule): Promise<string> {
    const { nodeId, target, ...fields } = input;
    const row = em.create(RoutingRule, {
      ...fields,
      node: em.getReference(Node, nodeId),
      outbound: target.balancer ? null : em.getReference(Outbound, target.id),
      balancer: target.balancer ? em.getReference(Balancer, target.id) : null,
    });
    await em.flush();
    return row.id;
  }

  /** Points a locked rule at another outbound or balancer (then save). */
  setTarget(em: EntityManager, row: RoutingRule, target: OutboundRef): void {
    row.outbound = target.balancer ? null : em.getReference(Outbound, target.id);
    row.balancer = target.balancer ? em.getReference(Balancer, target.id) : null;
  }

  async save(em: EntityManager): Promise<void> {
    await em.flush();
  }

  async deleteRule(em: EntityManager, id: string): Promise<void> {
    await em.nativeDelete(RoutingRule, { id });
  }

  /** position = index in `ids`, which are exactly the node's rules. One statement for any number. */
  async setOrder(em: EntityManager, nodeId: string, ids: readonly string[]): Promise<void> {
    await setPositions(em, 'routing_rules', nodeId, ids);
  }

  async upsertBasic(em: EntityManager, nodeId: string, fields: BasicFields): Promise<void> {
    const { defaultOutboundId, ...rest } = fields;
    const values = {
      ...rest,
      defaultOutbound: defaultOutboundId === null ? null : em.getReference(Outbound, defaultOutboundId),
      updatedAt: new Date(),
    };
    const existing = await em.findOne(RoutingBasic, { node: nodeId });
    if (existing) em.assign(existing, values);
    else em.create(RoutingBasic, { node: em.getReference(Node, nodeId), ...values });
    await em.flush();
  }

  /**
   * Adds an agent's rule-hit deltas, only to rules of its own node (a report naming another
   * node's rule, or one deleted meanwhile, adds nothing). One statement for the whole report.
   */
  async addHits(nodeId: string, hits: readonly { id: string; packets: number }[]): Promise<void> {
    if (hits.length === 0) return;
    await this.orm.em.fork().execute(
      `update routing_rules r set hits = r.hits + h.packets
         from (select unnest(array[?]::uuid[]) as id, unnest(array[?]::bigint[]) as packets) h
        where r.id = h.id and r.node_id = ?`,
      [hits.map((hit) => hit.id), hits.map((hit) => hit.packets), nodeId],
    );
  }
}
