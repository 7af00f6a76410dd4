import { Inject, Injectable } from '@nestjs/common';
import { LockMode, MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import { Node } from '../revisions/node.entity.js';
import { Outbound } from './outbound.entity.js';
import { OutboundSubscription } from './outbound-subscription.entity.js';

export interface OutboundSubView {
  id: string;
  nodeId: string;
  name: string;
  url: string;
  enabled: boolean;
  intervalSeconds: number;
  position: number;
  lastFetchedAt: Date | null;
  lastError: string | null;
  skipped: string[];
  count: number;
  kept: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface NewOutboundSub {
  nodeId: string;
  name: string;
  url: string;
  enabled: boolean;
  intervalSeconds: number;
}

/** Subscription rows, their hops (outbounds by subscription_id) and their order. */
@Injectable()
export class OutboundSubsRepository {
  constructor(@Inject(MikroORM) private readonly orm: MikroORM) {}

  transaction<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    return this.orm.em.fork().transactional(work);
  }

  /** Every subscription (or one node's) in its order, with the hops it has now. */
  async list(nodeId?: string): Promise<OutboundSubView[]> {
    const em = this.orm.em.fork();
    const rows = await em.find(OutboundSubscription, nodeId ? { node: nodeId } : {}, {
      orderBy: { position: 'asc', name: 'asc' },
    });
    const counts = await this.counts(
      em,
      rows.map((row) => row.id),
    );
    return rows.map((row) => view(row, counts.get(row.id)));
  }

  async get(id: string): Promise<OutboundSubView | null> {
    const em = this.orm.em.fork();
    const row = await em.findOne(OutboundSubscription, { id });
    return row ? view(row, (await this.counts(em, [id])).get(id)) : null;
  }

  async find(id: string): Promise<OutboundSubscription | null> {
    return this.orm.em.fork().findOne(OutboundSubscription, { id });
  }

  async total(em: EntityManager): Promise<number> {
    return em.count(OutboundSubscription, {});
  }

  /** Locks the subscription row until the transaction ends (before its hops and its node: the lock order). */
  async lock(em: EntityManager, id: string): Promise<OutboundSubscription | null> {
    return em.findOne(OutboundSubscription, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  }

  /** The subscription's hops, locked (outbound rows before the node row: the lock order). */
  async lockHops(em: EntityManager, id: string): Promise<Outbound[]> {
    return em.find(
      Outbound,
      { subscription: id },
      { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true, orderBy: { id: 'asc' } },
    );
  }

  async insert(em: EntityManager, input: NewOutboundSub): Promise<string> {
    const { nodeId, ...fields } = input;
    const [{ next }] = await em.execute<{ next: number }[]>(
      'select coalesce(max(position) + 1, 0)::int as next from outbound_subscriptions',
    );
    const row = em.create(OutboundSubscription, {
      ...fields,
      position: next,
      node: em.getReference(Node, nodeId),
    });
    await em.flush();
    return row.id;
  }

  async delete(em: EntityManager, id: string): Promise<void> {
    await em.nativeDelete(OutboundSubscription, { id });
  }

  async ids(em: EntityManager): Promise<string[]> {
    return (await em.find(OutboundSubscription, {}, { fields: ['id'] })).map((row) => row.id);
  }

  /** position = index in `ids` (every subscription); rows already in place are left alone. */
  async setOrder(em: EntityManager, ids: readonly string[]): Promise<void> {
    await em.execute(
      `update outbound_subscriptions t set position = o.position - 1, updated_at = now()
         from unnest(array[?]::uuid[]) with ordinality as o(id, position)
        where t.id = o.id and t.position <> o.position - 1`,
      [[...ids]],
    );
  }

  /** Enabled subscriptions with a schedule whose last fetch is older than their interval, or never fetched. */
  async due(now: Date): Promise<string[]> {
    const rows = await this.orm.em.fork().execute<{ id: string }[]>(
      `select id from outbound_subscriptions
        where enabled and interval_seconds > 0
          and (last_fetched_at is null or last_fetched_at <= ?::timestamptz - make_interval(secs => interval_seconds))
        order by position, name`,
      [now.toISOString()],
    );
    return rows.map((row) => row.id);
  }

  private async counts(
    em: EntityManager,
    ids: readonly string[],
  ): Promise<Map<string, { count: number; kept: number }>> {
    if (ids.length === 0) return new Map();
    const rows = await em.execute<{ id: string; count: number; kept: number }[]>(
      `select subscription_id as id, count(*)::int as count, count(*) filter (where subscription_gone)::int as kept
         from outbounds where subscription_id = any(array[?]::uuid[]) group by subscription_id`,
      [[...ids]],
    );
    return new Map(rows.map((row) => [row.id, { count: row.count, kept: row.kept }]));
  }
}

function view(row: OutboundSubscription, counts: { count: number; kept: number } | undefined): OutboundSubView {
  return {
    id: row.id,
    nodeId: row.node.id,
    name: row.name,
    url: row.url,
    enabled: row.enabled,
    intervalSeconds: row.intervalSeconds,
    position: row.position,
    lastFetchedAt: row.lastFetchedAt ?? null,
    lastError: row.lastError ?? null,
    skipped: [...row.skipped],
    count: counts?.count ?? 0,
    kept: counts?.kept ?? 0,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
