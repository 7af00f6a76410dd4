import { Inject, Injectable } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import type { Capabilities } from '#libs/contracts/agent-link.js';
import { NodeAgent } from '../node-agent.entity.js';

/** What the link writes about a node's agent: who it is, whether it is there, when it was last heard. */
@Injectable()
export class AgentLinkRepository {
  constructor(@Inject(MikroORM) private readonly orm: MikroORM) {}

  /** The agent said hello; returns the last counter sequence number recorded for the node. */
  async connected(
    nodeId: string,
    agent: { version: string; capabilities: Capabilities; gaps: string[] },
  ): Promise<number> {
    const em = this.orm.em.fork();
    const now = new Date();
    await em.nativeUpdate(
      NodeAgent,
      { node: nodeId },
      { ...agent, connected: true, connectedAt: now, lastSeenAt: now },
    );
    const row = await em.findOne(NodeAgent, { node: nodeId }, { fields: ['countersSeq'] });
    return row?.countersSeq ?? 0;
  }

  async seen(nodeId: string): Promise<void> {
    await this.orm.em.fork().nativeUpdate(NodeAgent, { node: nodeId }, { lastSeenAt: new Date(), connected: true });
  }

  async disconnected(nodeId: string): Promise<void> {
    await this.orm.em.fork().nativeUpdate(NodeAgent, { node: nodeId }, { connected: false, lastSeenAt: new Date() });
  }
}
