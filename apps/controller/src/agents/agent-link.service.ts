import { Inject, Injectable, Logger } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import type { AgentMessage, ControllerMessage } from '#libs/contracts/agent-link.js';
import type { ApplyResult } from '#libs/contracts/node-queue.js';
import { UsageService } from '../clients/usage.service.js';
import { DeliveryService } from '../nodes/delivery.service.js';
import { SystemService } from '../system/system.service.js';

/** How often "still here" reaches the database; the link itself knows at once. */
const LAST_SEEN_WRITE_MS = 10_000;

/**
 * What the controller does with each message of an agent's link. The node is the one the link's
 * credential belongs to (the gateway authenticated it); nothing in a message can name another.
 */
@Injectable()
export class AgentLinkService {
  private readonly logger = new Logger('agent-link');
  private readonly lastSeenWritten = new Map<string, number>();

  constructor(
    @Inject(MikroORM) private readonly orm: MikroORM,
    private readonly usage: UsageService,
    private readonly delivery: DeliveryService,
    private readonly system: SystemService,
  ) {}

  /** Handles one message; returns what to answer (or nothing). */
  async handle(nodeId: string, message: AgentMessage): Promise<ControllerMessage | undefined> {
    switch (message.type) {
      case 'hello':
        return this.hello(nodeId, message);
      case 'heartbeat':
        await this.seen(nodeId);
        return undefined;
      case 'system':
        this.system.record(nodeId, message.sample);
        await this.seen(nodeId);
        return undefined;
      case 'counters': {
        await this.usage.recordCounters(nodeId, message.seq, message.peers);
        return { type: 'ack', seq: message.seq };
      }
      case 'applied':
        await this.applied(nodeId, message.result);
        return undefined;
    }
  }

  async disconnected(nodeId: string): Promise<void> {
    this.lastSeenWritten.delete(nodeId);
    await this.orm.em
      .fork()
      .execute('update node_agents set connected = false, last_seen_at = now() where node_id = ?', [nodeId])
      .catch((error: Error) => this.logger.warn(`recording that node ${nodeId} went away failed: ${error.message}`));
  }

  /**
   * The agent says who it is and what its host runs. Its applied revision is the host's truth
   * (a rebuilt host may be behind what was recorded); a node that is behind gets a full apply.
   */
  private async hello(nodeId: string, message: Extract<AgentMessage, { type: 'hello' }>): Promise<ControllerMessage> {
    const em = this.orm.em.fork();
    const [agent] = await em.execute<{ counters_seq: string }[]>(
      `update node_agents set version = ?, capabilities = ?::jsonb, gaps = ?::jsonb, connected = true,
              connected_at = now(), last_seen_at = now()
        where node_id = ? returning counters_seq`,
      [message.version, JSON.stringify(message.capabilities), JSON.stringify(message.gaps), nodeId],
    );
    this.lastSeenWritten.set(nodeId, Date.now());
    const [node] = await em.execute<{ desired_revision: string }[]>(
      'update nodes set applied_revision = ? where id = ? returning desired_revision',
      [message.appliedRevision, nodeId],
    );
    if (node && Number(node.desired_revision) > message.appliedRevision) this.delivery.deliver(nodeId, true);
    return { type: 'welcome', nodeId, countersSeq: Number(agent?.counters_seq ?? 0) };
  }

  /**
   * An apply finished. Only a complete apply moves the node's applied revision (a node with a
   * failed interface is not in sync); either way the outcome is kept for the node's page.
   */
  private async applied(nodeId: string, result: ApplyResult): Promise<void> {
    const em = this.orm.em.fork();
    await em.execute('update node_agents set last_apply = ?::jsonb, last_seen_at = now() where node_id = ?', [JSON.stringify(result), nodeId]);
    if (result.ok) {
      await em.execute('update nodes set applied_revision = ? where id = ? and applied_revision <> ?', [result.revision, nodeId, result.revision]);
    }
  }

  private async seen(nodeId: string): Promise<void> {
    const now = Date.now();
    if (now - (this.lastSeenWritten.get(nodeId) ?? 0) < LAST_SEEN_WRITE_MS) return;
    this.lastSeenWritten.set(nodeId, now);
    await this.orm.em.fork().execute('update node_agents set last_seen_at = now(), connected = true where node_id = ?', [nodeId]);
  }
}
