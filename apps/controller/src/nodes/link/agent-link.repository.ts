import { Inject, Injectable } from '@nestjs/common';
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import type { Capabilities } from '#libs/contracts/agent-link.js';
import { NotificationEvents } from '../../notifications/events/notification-events.js';
import { NodeAgent } from '../node-agent.entity.js';

interface LinkState {
  connected: boolean;
  connected_at: Date | string | null;
  name: string;
}

/** What the link writes about a node's agent: who it is, whether it is there, when it was last heard. */
@Injectable()
export class AgentLinkRepository {
  constructor(
    @Inject(MikroORM) private readonly orm: MikroORM,
    private readonly notifications: NotificationEvents,
  ) {}

  /** The node's link state before a change, its row held until the transaction ends. */
  private async lockState(em: EntityManager, nodeId: string): Promise<LinkState | undefined> {
    const [row] = await em.execute<LinkState[]>(
      `select a.connected, a.connected_at, n.name from node_agents a join nodes n on n.id = a.node_id
        where a.node_id = ? for update of a`,
      [nodeId],
    );
    return row;
  }

  /**
   * The agent said hello; returns the last counter sequence number recorded for the node. A node
   * that was offline is back: `node.online`, once for this connection (keyed by when it began),
   * in the same transaction. A hello while the row still says connected (the controller was
   * killed under a live link, or the agent reconnected before its drop was written) is no crossing.
   */
  async connected(
    nodeId: string,
    agent: { version: string; capabilities: Capabilities; gaps: string[] },
  ): Promise<number> {
    return this.orm.em.fork().transactional(async (em) => {
      const now = new Date();
      const before = await this.lockState(em, nodeId);
      await em.nativeUpdate(
        NodeAgent,
        { node: nodeId },
        { ...agent, connected: true, connectedAt: now, lastSeenAt: now },
      );
      if (before && !before.connected)
        await this.notifications.record(em, {
          kind: 'node.online',
          crossing: `node.online:${nodeId}:${now.toISOString()}`,
          subject: { type: 'node', id: nodeId, name: before.name },
          details: { version: agent.version },
          occurredAt: now,
        });
      const row = await em.findOne(NodeAgent, { node: nodeId }, { fields: ['countersSeq'] });
      return row?.countersSeq ?? 0;
    });
  }

  /** What the node's agent last said on a link, and since when that link is up (a node update follows it). */
  async linkOf(
    nodeId: string,
  ): Promise<{ version: string | null; connected: boolean; connectedAt: Date | null } | undefined> {
    const row = await this.orm.em
      .fork()
      .findOne(NodeAgent, { node: nodeId }, { fields: ['version', 'connected', 'connectedAt'] });
    return row
      ? { version: row.version ?? null, connected: row.connected, connectedAt: row.connectedAt ?? null }
      : undefined;
  }

  async seen(nodeId: string): Promise<void> {
    await this.orm.em.fork().nativeUpdate(NodeAgent, { node: nodeId }, { lastSeenAt: new Date(), connected: true });
  }

  /** The link went away: `node.offline`, once for the connection that ended (keyed by when it began). */
  async disconnected(nodeId: string): Promise<void> {
    await this.orm.em.fork().transactional(async (em) => {
      const now = new Date();
      const before = await this.lockState(em, nodeId);
      await em.nativeUpdate(NodeAgent, { node: nodeId }, { connected: false, lastSeenAt: now });
      if (before?.connected)
        await this.notifications.record(em, {
          kind: 'node.offline',
          crossing: `node.offline:${nodeId}:${before.connected_at ? new Date(before.connected_at).toISOString() : 'never'}`,
          subject: { type: 'node', id: nodeId, name: before.name },
          details: { connectedSince: before.connected_at ? new Date(before.connected_at).toISOString() : null },
          occurredAt: now,
        });
    });
  }
}
