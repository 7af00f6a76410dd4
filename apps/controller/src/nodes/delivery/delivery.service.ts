import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import {
  APPLY_JOB,
  applyJobId,
  applyJobIdPrefix,
  applyResultSchema,
  nodeQueueName,
  type ApplyResult,
} from '#libs/contracts/node-queue.js';
import type { QueueBackend } from '../../queue/queue-backend.js';
import { RevisionListener } from '../../revisions/revision-listener.js';
import { PANEL_RUNTIME, QUEUE_BACKEND, type PanelRuntime } from '../../runtime.js';
import { agentState, isUnmanaged } from '../../system/agent-state.js';
import { DeliveryPacing } from './delivery-pacing.js';
import { DeliveryRepository, type NodeAgentFacts } from './delivery.repository.js';

/** A job that failed is offered again after this long (the agent may have been fixed meanwhile). */
const FAILED_RETRY_MS = 60_000;
/** The longest a node's next delivery waits for the one before it (see run); the default sweep period. */
const MAX_REST_MS = 5000;
/**
 * A delivery this large is followed by a full garbage collection (when the panel runs with
 * --expose-gc, as every launcher starts it: docs/memory.md). Its rows, peers and serialised job
 * (tens of MB at 100,000 peers) are garbage once it is queued, and V8 left them for its next full
 * collection, so the next delivery piled its own on top: the controller's RSS peaked at 321-323 MiB
 * at 100,000 clients, against 258 MiB with a collection after each (memory probe, same session).
 * One collection costs tens of milliseconds beside a delivery's hundreds; smaller deliveries
 * leave little garbage and are not worth one.
 */
const LARGE_DELIVERY_PEERS = 10_000;

function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/**
 * Delivers desired state: when a node's revision grows, an `apply` job carrying the node's whole
 * state at that revision goes onto the node's queue. The trigger is PostgreSQL's NOTIFY from
 * bumpRevisions, which arrives only after the change committed; `nodes.delivered_revision` is the
 * outbox mark, so a sweep finds changes no job carries yet (listener down, controller crashed
 * between commit and enqueue, a queue store that lost its jobs) and delivers them.
 *
 * Deliveries of one node never overlap: a revision that grows while one is being delivered is
 * delivered after it, once, with whatever the state is by then (bursts of changes coalesce). And
 * they are paced: after a delivery that took T ms, the node's next one starts no sooner than T ms
 * later (at most MAX_REST_MS; the rule is DeliveryPacing). A delivery carries the node's whole state (15 MB at 100,000 peers),
 * so during a burst of changes back-to-back deliveries would take most of the controller's time;
 * paced, they take at most about half of it, more changes coalesce into each, and a change still
 * reaches the queue within about two deliveries' time.
 *
 * It also records what came of a delivery (recordApplied, the one rule for both reports: the
 * agent's `applied` message and the apply job's return value) and what the host says it runs.
 *
 * An unmanaged node (the local node with WARREN_LOCAL_AGENT=off, no agent linked) gets no job:
 * none would ever be taken. Its apply jobs still waiting from when an agent ran are withdrawn, and
 * `delivered_revision` stays where it is, so the node is delivered as soon as it is managed again
 * (a controller with the local agent on sweeps it; a linked agent's hello asks for a full apply).
 */
@Injectable()
export class DeliveryService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('delivery');
  private readonly listener: RevisionListener;
  private sweepTimer?: NodeJS.Timeout;
  private readonly sweepEveryMs: number;
  private closed = false;
  /** Nodes being delivered now; the value says whether another run is due after this one. */
  private readonly inFlight = new Map<string, { again: boolean; force: boolean }>();
  private readonly pacing = new DeliveryPacing(MAX_REST_MS);
  private readonly lastJob = new Map<string, string>();
  /** Per node, the completed job whose result the sweep has read (it reads each once). */
  private readonly resultRead = new Map<string, string>();
  /** Per node, its failed job and when the sweep first saw it failed. */
  private readonly failedSince = new Map<string, { jobId: string; since: number }>();
  private readonly idle = new Set<() => void>();
  /** Unmanaged nodes whose waiting apply jobs this controller has withdrawn (once while unmanaged). */
  private readonly withdrawn = new Set<string>();
  private readonly restoredHandlers: (() => Promise<void>)[] = [];
  private readonly credentialHandlers: ((nodeIds: string[]) => void)[] = [];

  private readonly localAgent: boolean;

  constructor(
    private readonly repository: DeliveryRepository,
    @Inject(QUEUE_BACKEND) private readonly queues: QueueBackend,
    @Inject(PANEL_RUNTIME) runtime: PanelRuntime,
  ) {
    this.sweepEveryMs = runtime.config.intervals.deliverySweepMs;
    this.localAgent = runtime.config.localAgent;
    this.listener = new RevisionListener(
      runtime.databaseUrl,
      (nodeIds) => nodeIds.forEach((id) => this.deliver(id)),
      () => void this.sweep(),
      () => void this.restored(),
      (nodeIds) => this.credentialHandlers.forEach((handler) => handler(nodeIds)),
    );
  }

  /**
   * Runs `handler` on this controller whenever nodes' agent credentials changed or went, through
   * any controller (the notifications share this service's listening connection).
   */
  whenCredentialsChanged(handler: (nodeIds: string[]) => void): void {
    this.credentialHandlers.push(handler);
  }

  /** Runs `handler` on this controller whenever a restore replaced the database (on any controller). */
  whenRestored(handler: () => Promise<void>): void {
    this.restoredHandlers.push(handler);
  }

  private async restored(): Promise<void> {
    this.logger.log('the database was restored from a backup: every node gets its restored state');
    this.lastJob.clear();
    this.resultRead.clear();
    this.failedSince.clear();
    this.withdrawn.clear();
    for (const handler of this.restoredHandlers) {
      await handler().catch((error: Error) => this.logger.warn(`after the restore: ${error.message}`));
    }
    await this.sweep();
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.listener.start();
    this.sweepTimer = setInterval(() => void this.sweep(), this.sweepEveryMs);
    this.sweepTimer.unref();
    void this.sweep();
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweepTimer);
    await this.listener.close();
    await this.settled();
  }

  /**
   * Delivers the node's current state. `force` re-enqueues even when a job for the revision
   * already ran (the agent says it is behind: its host lost state, or the job was lost).
   */
  deliver(nodeId: string, force = false): void {
    const running = this.inFlight.get(nodeId);
    if (running) {
      running.again = true;
      running.force ||= force;
      return;
    }
    this.inFlight.set(nodeId, { again: false, force: false });
    void this.run(nodeId, force);
  }

  /** Resolves when no delivery is running (tests and shutdown). */
  settled(): Promise<void> {
    if (this.inFlight.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.add(resolve));
  }

  /**
   * An apply finished. Only a complete apply moves the node's applied revision (a node with a
   * failed interface is not in sync); either way the outcome is kept for the node's page.
   */
  async recordApplied(nodeId: string, result: ApplyResult): Promise<void> {
    await this.repository.recordApplyResult(nodeId, result);
    if (result.ok) await this.repository.markApplied(nodeId, result.revision);
  }

  /**
   * The agent's applied revision (hello) is the host's truth: a rebuilt host may be behind what
   * was recorded. A node that is behind gets a full apply.
   */
  async hostReports(nodeId: string, appliedRevision: number): Promise<void> {
    const desired = await this.repository.setAppliedRevision(nodeId, appliedRevision);
    if (desired !== undefined && desired > appliedRevision) this.deliver(nodeId, true);
  }

  /** Finds nodes whose state no live job carries and delivers them. */
  async sweep(): Promise<void> {
    if (this.closed) return;
    try {
      for (const node of await this.repository.nodesBehind()) {
        if (this.unmanaged(node)) {
          if (!this.withdrawn.has(node.id)) await this.withdraw(node.id);
          continue;
        }
        this.withdrawn.delete(node.id);
        const desired = node.desiredRevision;
        if (desired > node.deliveredRevision) {
          this.deliver(node.id);
          continue;
        }
        // The job's state, not the job: getJob reads its data, the node's whole desired state (about
        // 15 MB at 100,000 clients), and this runs every 5 s for as long as an agent is behind.
        // ioredis keeps a buffer of three times the largest reply it parsed (docs/memory.md).
        const queue = this.queues.queue(nodeQueueName(node.id));
        const jobId = applyJobId(node.id, desired);
        const state = await queue.getJobState(jobId);
        if (state === 'unknown') {
          this.deliver(node.id, true);
        } else if (state === 'completed' && this.resultRead.get(node.id) !== jobId) {
          // The job's return value is the agent's report of that apply. It normally arrives on the
          // link first; when that message was lost (the link was down and the agent restarted
          // before its welcome), the completed job still brings the node in sync. A failed outcome
          // changes nothing here: it is reported on the link and the job is not delivered again.
          // Read once per job, for the same reason as above.
          this.resultRead.set(node.id, jobId);
          const returned = applyResultSchema.safeParse((await queue.getJob(jobId))?.returnvalue);
          if (returned.success && returned.data.ok) await this.recordApplied(node.id, returned.data);
        } else if (state === 'failed') {
          // Offered again once it has stayed failed this long (the agent may have been fixed).
          const seen = this.failedSince.get(node.id);
          const since = seen?.jobId === jobId ? seen.since : Date.now();
          this.failedSince.set(node.id, { jobId, since });
          if (Date.now() - since > FAILED_RETRY_MS) {
            this.failedSince.delete(node.id);
            this.deliver(node.id, true);
          }
        }
      }
    } catch (error) {
      this.logger.warn(`delivery sweep failed: ${(error as Error).message}`);
    }
  }

  private async run(nodeId: string, force: boolean): Promise<void> {
    const started = await this.pacing.rest(nodeId, !this.closed);
    let exists = true;
    try {
      const peers = await this.enqueue(nodeId, force);
      exists = peers !== undefined;
      if (peers !== undefined && peers >= LARGE_DELIVERY_PEERS) collectGarbage();
    } catch (error) {
      // The sweep retries: delivered_revision did not move.
      this.logger.warn(`delivering node ${nodeId} failed: ${(error as Error).message}`);
    }
    this.pacing.ended(nodeId, started, exists);
    const state = this.inFlight.get(nodeId)!;
    if (state.again && !this.closed) {
      this.inFlight.set(nodeId, { again: false, force: false });
      void this.run(nodeId, state.force);
      return;
    }
    this.inFlight.delete(nodeId);
    if (this.inFlight.size === 0) {
      for (const resolve of this.idle) resolve();
      this.idle.clear();
    }
  }

  /** Whether no agent is meant to run for the node and none is linked (system/agent-state.ts). */
  private unmanaged(node: NodeAgentFacts): boolean {
    return (
      agentState({ ...node, unmanaged: isUnmanaged(node, { localAgent: this.localAgent }) }, Date.now()) === 'unmanaged'
    );
  }

  /**
   * Removes the node's apply jobs that wait for an agent no longer meant to run. By id (apply
   * jobs' ids say so), not by reading the jobs: each carries the node's whole state.
   */
  private async withdraw(nodeId: string): Promise<void> {
    const queue = this.queues.queue(nodeQueueName(nodeId));
    const waiting = await queue.getRanges(['waiting', 'delayed', 'prioritized'], 0, -1);
    const prefix = applyJobIdPrefix(nodeId);
    for (const jobId of waiting.filter((id) => id.startsWith(prefix))) await queue.remove(jobId).catch(() => undefined);
    this.lastJob.delete(nodeId);
    this.withdrawn.add(nodeId);
  }

  /**
   * Enqueues the node's state; returns how many peers it carries (0 for an unmanaged node, which
   * gets none), undefined when the node no longer exists.
   */
  private async enqueue(nodeId: string, force: boolean): Promise<number | undefined> {
    // Only the local node can be unmanaged, and only here: a panel with its local agent on asks nothing.
    if (!this.localAgent) {
      const facts = await this.repository.agentFactsOf(nodeId);
      if (!facts) return undefined; // the node was deleted
      if (this.unmanaged(facts)) return 0;
    }
    const state = await this.repository.desiredState(nodeId);
    if (!state) return undefined; // the node was deleted
    const queue = this.queues.queue(nodeQueueName(nodeId));
    const jobId = applyJobId(nodeId, state.revision);
    if (force) {
      // By state, not getJob: that would read the whole state of the finished job back (see sweep).
      const existing = await queue.getJobState(jobId);
      if (existing === 'completed' || existing === 'failed') await queue.remove(jobId);
    }
    await queue.add(APPLY_JOB, state, {
      jobId,
      attempts: 5,
      backoff: { type: 'exponential', delay: 1000 },
      removeOnComplete: { count: 10 },
      removeOnFail: { count: 20 },
    });
    // An older job still waiting is superseded: the agent would apply it only to apply this next.
    const previous = this.lastJob.get(nodeId);
    if (previous && previous !== jobId) await queue.remove(previous).catch(() => undefined);
    this.lastJob.set(nodeId, jobId);
    await this.repository.markDelivered(nodeId, state.revision);
    return state.interfaces.reduce((sum, iface) => sum + iface.peers.length, 0);
  }
}
