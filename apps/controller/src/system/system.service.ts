import { Inject, Injectable } from '@nestjs/common';
import { systemSampleSchema, type SystemSample } from '#libs/contracts/system.js';
import { createSampler, type Sampler } from '#libs/system/sampler.js';
import type { Capabilities } from '#libs/contracts/agent-link.js';
import type { WarrenConfig } from '../config/config.js';
import { notFound } from '../http/api-error.js';
import { isId } from '../http/id.js';
import { WARREN_CONFIG } from '../runtime.js';
import { agentState, isUnmanaged, type AgentState } from './agent-state.js';
import { alignedBuckets, bucketize, type Series } from './history-buckets.js';
import { SystemHistoryRepository } from './history.repository.js';
import { NodeFactsRepository } from './node-facts.repository.js';
import { metricValues, sampleFromRow, type StoredSample } from './sample-rows.js';
import { SampleWriter } from './sample-writer.js';
import { CONTROLLER_SOURCE, HISTORY_POINTS, HISTORY_RANGES, RAW, type HistoryRange } from './tiers.js';

/** A sample as the API shows it: the contract's fields and `at` again as an ISO time. */
export type SampleView = SystemSample & { sampledAt: string };

export interface NodeSystemView {
  id: string;
  name: string;
  isLocal: boolean;
  agent: {
    state: AgentState;
    version: string | null;
    lastSeenAt: Date | null;
    capabilities: Capabilities | null;
    gaps: string[];
  };
  sync: { desiredRevision: number; appliedRevision: number; inSync: boolean };
  /** The newest sample within the raw tier's retention, or null. */
  system: SampleView | null;
}

export interface SystemSnapshot {
  controller: SampleView;
  nodes: NodeSystemView[];
}

export interface SystemHistory {
  range: HistoryRange;
  points: number;
  /** Seconds per point. */
  step: number;
  /** null: the controller's own host. */
  nodeId: string | null;
  series: Series;
}

interface Latest {
  sample: SystemSample;
  receivedAt: number;
}

/**
 * A memory sample older than this may mean another replica holds the node's link now, so the
 * database is asked too (it has whatever any replica flushed).
 */
const MEMORY_FRESH_MS = 10_000;

/**
 * The database's newest raw row of a node is asked at most this often: replicas write their
 * samples every 2 s (sample-writer.ts), so asking more often finds nothing newer, and the snapshot
 * (GET /api/system, GET /api/overview/full on every dashboard refresh) would otherwise probe the
 * database on every request for each node without a live link here.
 */
const STORED_ASK_MS = 2000;

const view = (sample: SystemSample): SampleView => ({ ...sample, sampledAt: new Date(sample.at).toISOString() });

/** The closest two samples of one node may be in the history. */
const MIN_HISTORY_SPACING_MS = 1000;

/**
 * Host state and history of the controller's own host and of every node. Samples arrive through
 * record(): the agent link for nodes (every 2 s per agent), the controller's own sampler for its
 * host (controller-host-sampler.ts). The newest one per source is kept in memory for the
 * snapshot; each goes to the raw tier of the history through the batching writer (a node's at most
 * one a second).
 */
@Injectable()
export class SystemService {
  private readonly latest = new Map<string, Latest>();
  /** Per node, the time of its last sample that went to the history. */
  private readonly lastWritten = new Map<string, number>();
  /** Per node, the database's newest raw row (or none) and when it was asked. */
  private readonly storedNewest = new Map<string, { askedAt: number; sample: StoredSample | undefined }>();
  private readonly ownHost: Sampler;

  constructor(
    @Inject(WARREN_CONFIG) private readonly config: WarrenConfig,
    private readonly samples: SystemHistoryRepository,
    private readonly nodes: NodeFactsRepository,
    private readonly writer: SampleWriter,
  ) {
    // The disk that matters on the controller's host is the one holding its data directory.
    this.ownHost = createSampler({ diskPath: config.dataDir });
  }

  /**
   * Takes one sample of a node (`nodeId`) or of the controller's own host (null). Synchronous
   * and cheap: it is called for every sample of every agent. The sample is checked against the
   * contract here too, so one bad sample cannot fail the batch insert of everyone else's.
   * `receivedAt` is its time in the history: the controller's clock, not the agent's, so a host
   * with a wrong clock still lands in the right buckets (tests pass a chosen time).
   */
  record(nodeId: string | null, sample: SystemSample, receivedAt: Date = new Date()): void {
    if (nodeId !== null && !isId(nodeId)) throw new Error(`not a node id: ${nodeId}`);
    const checked = systemSampleSchema.parse(sample);
    const source = nodeId ?? CONTROLLER_SOURCE;
    const at = receivedAt.getTime();
    const previous = this.latest.get(source);
    if (!previous || previous.receivedAt <= at) this.latest.set(source, { sample: checked, receivedAt: at });
    // Agents sample every 2 s; one that sends faster (a bug, or a node that floods) would fill the
    // raw tier with a row per millisecond. A node's history keeps at most one sample a second.
    if (nodeId !== null) {
      const written = this.lastWritten.get(nodeId);
      if (written !== undefined && at >= written && at - written < MIN_HISTORY_SPACING_MS) return;
      this.lastWritten.set(nodeId, at);
    }
    this.writer.add({ source, at, values: metricValues(checked) });
  }

  /** Reads the controller's own host now and records it. */
  async sampleControllerHost(): Promise<SystemSample> {
    const sample = await this.ownHost.sample();
    this.record(null, sample, new Date(sample.at));
    return sample;
  }

  /** Writes every sample recorded so far (the writer does it every 2 s by itself). */
  flush(): Promise<void> {
    return this.writer.flush();
  }

  async snapshot(): Promise<SystemSnapshot> {
    const controller = this.latest.get(CONTROLLER_SOURCE)?.sample ?? (await this.sampleControllerHost());
    const nodes = await this.nodes.all();
    const now = Date.now();
    const oldest = now - RAW.retentionSeconds * 1000;
    const unsure = nodes
      .filter((node) => (this.latest.get(node.id)?.receivedAt ?? 0) < now - MEMORY_FRESH_MS)
      .map((node) => node.id);
    const stored = await this.storedNewestOf(unsure, now, oldest);

    return {
      controller: view(controller),
      nodes: nodes.map((node) => ({
        id: node.id,
        name: node.name,
        isLocal: node.isLocal,
        agent: {
          state: agentState({ ...node, unmanaged: isUnmanaged(node, this.config) }, now),
          version: node.version,
          lastSeenAt: node.lastSeenAt,
          capabilities: node.capabilities,
          gaps: node.gaps,
        },
        sync: {
          desiredRevision: node.desiredRevision,
          appliedRevision: node.appliedRevision,
          inSync: node.appliedRevision === node.desiredRevision,
        },
        system: this.newestSample(node.id, stored.get(node.id), oldest),
      })),
    };
  }

  /** The newest stored raw row of each node, asked again only when the last answer is STORED_ASK_MS old. */
  private async storedNewestOf(
    nodeIds: readonly string[],
    now: number,
    oldest: number,
  ): Promise<Map<string, StoredSample>> {
    const ask = nodeIds.filter((id) => now - (this.storedNewest.get(id)?.askedAt ?? -Infinity) >= STORED_ASK_MS);
    if (ask.length > 0) {
      const found = await this.samples.newestRaw(ask, oldest);
      for (const id of ask) this.storedNewest.set(id, { askedAt: now, sample: found.get(id) });
    }
    const stored = new Map<string, StoredSample>();
    for (const id of nodeIds) {
      const sample = this.storedNewest.get(id)?.sample;
      if (sample && sample.at >= oldest) stored.set(id, sample);
    }
    // Nodes that have a live link here again, or were deleted, are forgotten.
    if (this.storedNewest.size > nodeIds.length) {
      const wanted = new Set(nodeIds);
      for (const id of this.storedNewest.keys()) if (!wanted.has(id)) this.storedNewest.delete(id);
    }
    return stored;
  }

  /** The newer of what this replica received and what the database holds; nothing too old to chart. */
  private newestSample(nodeId: string, stored: StoredSample | undefined, oldest: number): SampleView | null {
    const memory = this.latest.get(nodeId);
    if (memory && memory.receivedAt >= oldest && (!stored || memory.receivedAt >= stored.at))
      return view(memory.sample);
    return stored ? view(sampleFromRow(stored)) : null;
  }

  /**
   * `points` buckets ending at now for one source, read from the tier the range is served from.
   * The raw tier's answer includes samples still waiting in the write buffer, so the newest
   * buckets are filled without waiting for the next flush.
   */
  async history(range: HistoryRange, nodeId?: string): Promise<SystemHistory> {
    if (nodeId !== undefined && !(await this.nodes.exists(nodeId))) throw notFound('node not found', 'nodeId');
    const source = nodeId ?? CONTROLLER_SOURCE;
    const { seconds, tier } = HISTORY_RANGES[range];
    const buckets = alignedBuckets(Date.now(), seconds, HISTORY_POINTS);
    const tierMs = tier.seconds * 1000;
    // One tier step either side: the 5-minute range fills a bucket from a row just outside it.
    const fromMs = buckets.startMs - tierMs;
    const toMs = buckets.startMs + buckets.points * buckets.stepMs + tierMs;
    let rows = await this.samples.range(source, tier, fromMs, toMs);
    if (tier === RAW) {
      const pending = this.writer
        .pending(source)
        .filter((sample) => sample.at >= fromMs && sample.at < toMs)
        .map((sample): StoredSample => ({ source, at: sample.at, ...sample.values }));
      if (pending.length > 0) rows = [...rows, ...pending].sort((a, b) => a.at - b.at);
    }
    return {
      range,
      points: HISTORY_POINTS,
      step: buckets.stepMs / 1000,
      nodeId: nodeId ?? null,
      series: bucketize(rows, buckets, tierMs),
    };
  }
}
