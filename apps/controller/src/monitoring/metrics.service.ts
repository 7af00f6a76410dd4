import { Inject, Injectable } from '@nestjs/common';
import { nodeQueueName } from '#libs/contracts/node-queue.js';
import { withTimeout } from '../common/with-timeout.js';
import { PanelMetrics } from '../metrics/panel-metrics.js';
import { HOP_STATES } from '../outbounds/dto/outbound.response.js';
import { OutboundsRepository } from '../outbounds/outbounds.repository.js';
import { nodeStates } from '../overview/panel-state.js';
import type { QueueBackend } from '../queue/queue-backend.js';
import { QUEUE_BACKEND } from '../runtime.js';
import { SystemService } from '../system/system.service.js';

/** The queue states a scrape reads per node: what is still to do, and what failed (kept by BullMQ). */
const QUEUE_STATES = ['waiting', 'delayed', 'active', 'prioritized', 'failed'] as const;
/** A scrape must answer even when the queue store does not: its gauges then say so. */
const QUEUE_READ_MS = 2000;

/**
 * GET /api/metrics: what the services counted as it happened (PanelMetrics), plus the state read
 * now: nodes by sync state (the overview's rule, overview/panel-state.ts), connected agents, and
 * each node's queue depth, and hops by state. Nodes come from SystemService's snapshot (a handful of rows), queue
 * depth costs one queue-store round trip per node.
 */
@Injectable()
export class MetricsService {
  constructor(
    private readonly metrics: PanelMetrics,
    private readonly system: SystemService,
    private readonly outbounds: OutboundsRepository,
    @Inject(QUEUE_BACKEND) private readonly queues: QueueBackend,
  ) {}

  readonly contentType = this.metrics.registry.contentType;

  async scrape(): Promise<string> {
    await this.readState();
    return this.metrics.registry.metrics();
  }

  private async readState(): Promise<void> {
    const { nodes } = await this.system.snapshot();
    const m = this.metrics;
    const states = nodeStates(nodes);
    m.nodes.set({ state: 'in_sync' }, states.inSync);
    m.nodes.set({ state: 'behind' }, states.behind);
    m.nodes.set({ state: 'offline' }, states.offline);
    m.nodes.set({ state: 'unmanaged' }, states.unmanaged);
    m.agentsConnected.set(nodes.filter((node) => node.agent.state === 'connected').length);
    const hops = await this.outbounds.hopStates();
    for (const state of HOP_STATES) m.outbounds.set({ state }, hops.filter((hop) => hop.state === state).length);
    m.outboundUp.reset();
    for (const hop of hops) m.outboundUp.set({ node: hop.nodeId, outbound: hop.id }, hop.state === 'up' ? 1 : 0);
    // Removed nodes leave no series behind.
    m.nodeInSync.reset();
    m.nodeInfo.reset();
    for (const node of nodes) {
      // An unmanaged node has nothing to be in sync with: no series that an alert on 0 would fire on.
      if (node.agent.state !== 'unmanaged') m.nodeInSync.set({ node: node.id }, node.sync.inSync ? 1 : 0);
      m.nodeInfo.set({ node: node.id, name: node.name }, 1);
    }
    const counts = await withTimeout(
      Promise.all(
        nodes.map(
          async (node) =>
            [node.id, await this.queues.queue(nodeQueueName(node.id)).getJobCounts(...QUEUE_STATES)] as const,
        ),
      ),
      QUEUE_READ_MS,
      `the ${this.queues.kind} queue store`,
    ).catch(() => undefined);
    m.queueJobs.reset();
    m.queueStoreUp.set(counts ? 1 : 0);
    for (const [node, byState] of counts ?? [])
      for (const state of QUEUE_STATES) m.queueJobs.set({ node, state }, byState[state] ?? 0);
  }
}
