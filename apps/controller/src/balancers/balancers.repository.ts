import { Inject, Injectable } from '@nestjs/common';
import { LockMode, MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import { Node } from '../revisions/node.entity.js';
import { balancerTargets, usable, type BalancerStrategy, type PickHop } from '../outbounds/balancer-pick.js';
import { Balancer } from './balancer.entity.js';
import { balancerWarnings, type BalancerWarning } from './balancer-warnings.js';

export interface BalancerView {
  id: string;
  nodeId: string;
  tag: string;
  strategy: BalancerStrategy;
  hops: (PickHop & { usable: boolean })[];
  overrideId: string | null;
  current: string[];
  warnings: BalancerWarning[];
  note: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface BalancerFields {
  tag: string;
  strategy: BalancerStrategy;
  hops: string[];
  note: string | null;
}

/**
 * Balancers and what they read of the node: its hops (outbounds) and fail-closed setting
 * (routing_basics), by table name so this module needs neither outbounds' nor routing's internals.
 */
@Injectable()
export class BalancersRepository {
  constructor(@Inject(MikroORM) private readonly orm: MikroORM) {}

  transaction<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    return this.orm.em.fork().transactional(work);
  }

  async list(nodeId: string): Promise<BalancerView[]> {
    const em = this.orm.em.fork();
    const rows = await em.find(Balancer, { node: nodeId }, { orderBy: { tag: 'asc' } });
    return this.views(em, nodeId, rows);
  }

  async get(id: string): Promise<BalancerView | null> {
    const em = this.orm.em.fork();
    const row = await em.findOne(Balancer, { id });
    return row ? (await this.views(em, row.node.id, [row]))[0] : null;
  }

  async lock(em: EntityManager, id: string): Promise<Balancer | null> {
    return em.findOne(Balancer, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  }

  /** The node's hops (not the built-ins) by id. */
  async hops(em: EntityManager, nodeId: string): Promise<Map<string, PickHop>> {
    const rows = await em.execute<PickHop[]>(
      `select id, tag, enabled, health from outbounds where node_id = ? and kind not in ('direct', 'blocked')`,
      [nodeId],
    );
    return new Map(rows.map((row) => [row.id, row]));
  }

  async failClosed(em: EntityManager, nodeId: string): Promise<boolean> {
    const [row] = await em.execute<{ fail_closed: boolean }[]>(
      'select fail_closed from routing_basics where node_id = ?',
      [nodeId],
    );
    return row?.fail_closed ?? true;
  }

  /** Whether an outbound of the node (built-ins included) has this tag: tags name both. */
  async outboundTagged(em: EntityManager, nodeId: string, tag: string): Promise<boolean> {
    const rows = await em.execute<{ id: string }[]>('select id from outbounds where node_id = ? and tag = ?', [
      nodeId,
      tag,
    ]);
    return rows.length > 0;
  }

  async tagTaken(em: EntityManager, nodeId: string, tag: string, except: string | null): Promise<boolean> {
    const row = await em.findOne(Balancer, { node: nodeId, tag }, { fields: ['id'] });
    return row !== null && row.id !== except;
  }

  /** The routing rules that target the balancer (routing_rules, by table name). */
  async rulesUsing(em: EntityManager, id: string): Promise<{ id: string; name: string }[]> {
    return em.execute<{ id: string; name: string }[]>(
      'select id, name from routing_rules where balancer_id = ? order by position, created_at',
      [id],
    );
  }

  async insert(em: EntityManager, nodeId: string, fields: BalancerFields): Promise<string> {
    const row = em.create(Balancer, { node: em.getReference(Node, nodeId), ...fields, overrideId: null });
    await em.flush();
    return row.id;
  }

  async save(em: EntityManager): Promise<void> {
    await em.flush();
  }

  async delete(em: EntityManager, id: string): Promise<void> {
    await em.nativeDelete(Balancer, { id });
  }

  private async views(em: EntityManager, nodeId: string, rows: readonly Balancer[]): Promise<BalancerView[]> {
    if (rows.length === 0) return [];
    const hops = await this.hops(em, nodeId);
    const failClosed = await this.failClosed(em, nodeId);
    return rows.map((row) => ({
      id: row.id,
      nodeId: row.node.id,
      tag: row.tag,
      strategy: row.strategy,
      hops: row.hops
        .map((id) => hops.get(id))
        .filter((hop): hop is PickHop => hop !== undefined)
        .map((hop) => ({ ...hop, usable: usable(hop) })),
      overrideId: row.overrideId ?? null,
      current: balancerTargets(
        { strategy: row.strategy, hops: row.hops, overrideId: row.overrideId ?? null },
        hops,
        failClosed,
      ),
      warnings: balancerWarnings({ tag: row.tag, overrideId: row.overrideId ?? null }, hops, failClosed),
      note: row.note ?? null,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
    }));
  }
}
