import { Injectable, Logger } from '@nestjs/common';
import type { AgentMessage, ControllerMessage } from '#libs/contracts/agent-link.js';
import { CounterCommits } from '../../clients/counter-commits.js';
import { RuleHitsService } from '../../routing/rule-hits.service.js';
import { PanelMetrics } from '../../metrics/panel-metrics.js';
import { SystemService } from '../../system/system.service.js';
import { DeliveryService } from '../delivery/delivery.service.js';
import { AgentLinkRepository } from './agent-link.repository.js';
import { RefusedMessage } from './refused-message.js';

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
  /**
   * The highest counter batch recorded (committed) here for each linked node. The agent sends its
   * pending batch again every interval until it is acknowledged, so on a controller short of CPU
   * the resends queue up behind the original on its link; once that is recorded they are
   * duplicates for certain (`counters_seq` only moves forward) and are acknowledged from here,
   * not with a transaction each: the soak (docs/benchmarks.md) measured 35 resends per batch, and
   * acks 2.6 minutes late, when each one went to the database. Forgotten with the link.
   */
  private readonly recordedSeq = new Map<string, number>();
  constructor(
    private readonly agents: AgentLinkRepository,
    private readonly delivery: DeliveryService,
    /** Counter batches belong to the clients domain (several nodes' recorded together), samples to the system domain. */
    private readonly counters: CounterCommits,
    private readonly system: SystemService,
    /** Rule-hit deltas belong to the routing domain. */
    private readonly ruleHits: RuleHitsService,
    private readonly metrics: PanelMetrics,
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
        if (message.seq <= (this.recordedSeq.get(nodeId) ?? 0)) {
          this.metrics.counterBatches.inc({ outcome: 'duplicate' });
          return { type: 'ack', seq: message.seq };
        }
        const outcome = await this.counters.record({
          nodeId,
          seq: message.seq,
          peers: message.peers,
          reading: { at: message.at, since: message.since, hops: message.hops },
        });
        this.metrics.counterBatches.inc({
          outcome: outcome.refused ? 'refused' : outcome.duplicate ? 'duplicate' : 'recorded',
        });
        // By the agent's clock: a skewed host shows as lag (or none: never below 0).
        if (!outcome.refused && !outcome.duplicate)
          this.metrics.counterBatchLag.observe(Math.max(0, Date.now() - message.at) / 1000);
        if (outcome.refused) throw new RefusedMessage(outcome.refused);
        this.recordedSeq.set(nodeId, Math.max(message.seq, this.recordedSeq.get(nodeId) ?? 0));
        return { type: 'ack', seq: message.seq };
      }
      case 'applied':
        this.metrics.applies.inc({ node: nodeId, outcome: message.result.ok ? 'ok' : 'failed' });
        await this.delivery.recordApplied(nodeId, message.result);
        await this.seen(nodeId, true);
        return undefined;
      case 'gap':
        this.delivery.gap(nodeId, message.revision, message.appliedRevision);
        await this.seen(nodeId);
        return undefined;
      case 'rule-hits':
        await this.ruleHits.record(nodeId, message.rules);
        await this.seen(nodeId);
        return undefined;
    }
  }

  async disconnected(nodeId: string): Promise<void> {
    this.lastSeenWritten.delete(nodeId);
    this.recordedSeq.delete(nodeId);
    await this.agents
      .disconnected(nodeId)
      .catch((error: Error) => this.logger.warn(`recording that node ${nodeId} went away failed: ${error.message}`));
  }

  /** The agent says who it is and what its host runs (its applied revision: see DeliveryService.hostReports). */
  private async hello(nodeId: string, message: Extract<AgentMessage, { type: 'hello' }>): Promise<ControllerMessage> {
    const countersSeq = await this.agents.connected(nodeId, {
      version: message.version,
      capabilities: message.capabilities,
      gaps: message.gaps,
    });
    this.lastSeenWritten.set(nodeId, Date.now());
    this.recordedSeq.delete(nodeId);
    await this.delivery.hostReports(nodeId, message.appliedRevision, message.deltas === true);
    return { type: 'welcome', nodeId, countersSeq };
  }

  private async seen(nodeId: string, now = false): Promise<void> {
    const at = Date.now();
    if (!now && at - (this.lastSeenWritten.get(nodeId) ?? 0) < LAST_SEEN_WRITE_MS) return;
    this.lastSeenWritten.set(nodeId, at);
    await this.agents.seen(nodeId);
  }
}
