import { Injectable } from '@nestjs/common';
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import type { DesiredRouting, HopKind } from '#libs/contracts/routing.js';
import { nodeRouting } from './node-routing.query.js';

export interface TunnelRow {
  name: string;
  subnet: string;
}

export interface RuleLabel {
  id: string;
  name: string;
  position: number;
  /** What the operator named: the delivered rule has them as source addresses. */
  clients: string[];
  groups: string[];
  source_ips: string[];
}

/** What the route test reads of a node, in one snapshot: the routing delivery sends its agent. */
export interface RouteTestSnapshot {
  routing: DesiredRouting;
  /** The hops the node runs, by tag. */
  hops: Map<string, HopKind>;
  tunnels: TunnelRow[];
  rules: Map<string, RuleLabel>;
}

@Injectable()
export class RouteTestRepository {
  constructor(private readonly orm: MikroORM) {}

  snapshot(nodeId: string): Promise<RouteTestSnapshot> {
    return this.orm.em.fork().transactional(
      async (tx) => {
        const { routing, outbounds } = await nodeRouting(tx, nodeId);
        // The agent's tunnels: the node's enabled interfaces (delivery sends only those).
        const tunnels = await tx.execute<TunnelRow[]>(
          'select name, subnet from interfaces where node_id = ? and enabled order by name',
          [nodeId],
        );
        const labels = await tx.execute<RuleLabel[]>(
          'select id, name, position, clients, groups, source_ips from routing_rules where node_id = ? and enabled',
          [nodeId],
        );
        return {
          routing,
          hops: new Map(outbounds.map((hop) => [hop.tag, hop.config.kind])),
          tunnels,
          rules: new Map(labels.map((row) => [row.id, row])),
        };
      },
      { isolationLevel: 'repeatable read', readOnly: true },
    );
  }

  /**
   * The client's tunnel addresses on the node (enabled devices of an active client, as delivery
   * makes peers of them) with their interface; null when the client is not there or not in
   * `ownerId`'s reach (a reseller's other clients are as absent as missing ones).
   */
  async clientAddresses(
    nodeId: string,
    clientId: string,
    ownerId: string | null,
  ): Promise<{ ip: string; interface: string; active: boolean }[] | null> {
    const em: EntityManager = this.orm.em.fork();
    const [client] = await em.execute<{ id: string }[]>(
      'select id from clients where id = ? and (?::uuid is null or owner_id = ?::uuid)',
      [clientId, ownerId, ownerId],
    );
    if (!client) return null;
    return em.execute<{ ip: string; interface: string; active: boolean }[]>(
      `select a.ip, i.name as interface, (a.enabled and c.status = 'active' and i.enabled) as active
         from accounts a
         join devices d on d.id = a.device_id
         join clients c on c.id = d.client_id
         join interfaces i on i.id = a.interface_id
        where a.node_id = ? and d.client_id = ?
        order by active desc, a.ip`,
      [nodeId, clientId],
    );
  }
}
