import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import {
  APPLY_JOB,
  applyJobId,
  applyJobIdPrefix,
  applyResultSchema,
  nodeQueueName,
  resyncJobId,
  type ApplyResult,
} from '#libs/contracts/node-queue.js';
import type { DesiredState } from '#libs/contracts/desired-state.js';
import type { QueueBackend } from '../../queue/queue-backend.js';
import { RevisionListener } from '../../revisions/revision-listener.js';
import { PANEL_RUNTIME, QUEUE_BACKEND, type PanelRuntime } from '../../runtime.js';
import { agentState, isUnmanaged } from '../../system/agent-state.js';
import { DeliveryPacing } from './delivery-pacing.js';
import { buildDesiredDelta } from './desired-delta-builder.js';
import { patchDesiredState, type ReadState } from './desired-state-patch.js';
import { PanelMetrics } from '../../metrics/panel-metrics.js';
import { DeliveryRepository, type NodeAgentFacts } from './delivery.repository.js';

/**
 * How old the state last enqueued may be for the next delivery to patch it from the peer journal
 * (currentState); the journal keeps its rows JOURNAL_KEPT_MINUTES after they were stamped with
 * their revision (at the bump that ends the transaction that wrote them, however long it was
 * open), longer than this: the margin covers a transaction's commit after its bump.
 */
const JOURNAL_TRUSTED_MS = 10 * 60_000;
const JOURNAL_KEPT_MINUTES = 20;
const JOURNAL_PRUNE_EVERY_MS = 60_000;

/**
 * A patch reads the journal's accounts and their clients' peers; past this many journal rows the
 * whole state costs about as much, and the delta would go as the whole state anyway
 * (desired-delta-builder.ts, MAX_CHANGED_SHARE).
 */
function maxPatchedChanges(base: DesiredState): number {
  return Math.max(1000, base.interfaces.reduce((sum, iface) => sum + iface.peers.length, 0) / 2);
}

/** A job that failed is offered again after this long (the agent may have been fixed meanwhile). */
const FAILED_RETRY_MS = 60_000;
/** The longest a node's next delivery waits for the one before it (see run); the default sweep period. */
const MAX_REST_MS = 5000;
/**
 * A full delivery this large is followed by a full garbage collection (when the panel runs with
 * --expose-gc, as every launcher starts it: docs/memory.md). Its rows, peers and serialised job
 * (tens of MB at 100,000 peers) are garbage once it is queued, and V8 left them for its next full
 * collection, so the next delivery piled its own on top: the controller's RSS peaked at 321-323 MiB
 * at 100,000 clients, against 258 MiB with a collection after each (memory probe, same session).
 * One collection costs tens of milliseconds beside a delivery's hundreds; smaller deliveries
 * leave little garbage and are not worth one, and neither is a delta (its job is a few hundred
 * bytes; the state read for it stays as the next delta's base: see `delivered`).
 */
const LARGE_DELIVERY_PEERS = 10_000;

function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/**
 * Delivers desired state: when a node's revision grows, an `apply` job goes onto the node's
 * queue carrying what changed since the previous delivery (a delta chained by revision,
 * desired-delta-builder.ts) when the node's agent takes deltas and this controller delivered the
 * revision before, or else the node's whole state at that revision. The whole state goes after
 * every (re)link, a gap the agent reports, a forced delivery, and any change a delta cannot carry. The trigger is PostgreSQL's NOTIFY from
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
  private readonly inFlight = new Map<string, { again: boolean; force: Force }>();
  private readonly pacing = new DeliveryPacing(MAX_REST_MS);
  /**
   * Per node, the last job this controller enqueued: its id, revision, and for a delta the state
   * it applies on top of (what a delta replacing it while it still waits is built against).
   */
  private readonly lastJob = new Map<string, { id: string; revision: number; base?: DesiredState }>();
  /**
   * Per node whose agent takes deltas, the state last enqueued: the next delta's base. Forgotten
   * at every (re)link and gap, so the next delivery carries the whole state. Whole states, kept
   * on purpose (about 200 bytes a peer: docs/memory.md): diffing against them is what lets the
   * job carry only the changes.
   */
  private readonly delivered = new Map<string, { read: ReadState; at: number }>();
  /** When the peer journal was last pruned (pruneJournal). */
  private prunedAt = 0;
  /** Nodes whose linked agent said it applies deltas (hello). */
  private readonly deltaAgents = new Set<string>();
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
    private readonly metrics: PanelMetrics,
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
    this.delivered.clear();
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
   * Delivers the node's current state. `force` re-enqueues the whole state even when a job for
   * the revision already ran (the agent says it is behind: its host lost state, or the job was
   * lost); `resync` also gives it an id of its own (a gap: the delta's job may still be running).
   */
  deliver(nodeId: string, force: boolean | Force = false): void {
    const level: Force = force === true ? 'force' : force === false ? 'none' : force;
    const running = this.inFlight.get(nodeId);
    if (running) {
      running.again = true;
      running.force = stronger(running.force, level);
      return;
    }
    this.inFlight.set(nodeId, { again: false, force: 'none' });
    void this.run(nodeId, level);
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
  async hostReports(nodeId: string, appliedRevision: number, deltas = false): Promise<void> {
    // A (re)link: whatever the agent applied, the next delivery carries the whole state.
    this.delivered.delete(nodeId);
    if (deltas) this.deltaAgents.add(nodeId);
    else this.deltaAgents.delete(nodeId);
    const desired = await this.repository.setAppliedRevision(nodeId, appliedRevision);
    if (desired !== undefined && desired > appliedRevision) this.deliver(nodeId, true);
  }

  /**
   * The agent could not apply a delta (its base is not the state the agent last applied: a job
   * lost or applied out of order): it gets the whole state, under an id of its own.
   */
  gap(nodeId: string, revision: number, appliedRevision: number): void {
    this.logger.log(
      `node ${nodeId}: gap at revision ${revision} (agent at ${appliedRevision}): sending the whole state`,
    );
    this.delivered.delete(nodeId);
    this.deliver(nodeId, 'resync');
  }

  /** Finds nodes whose state no live job carries and delivers them. */
  async sweep(): Promise<void> {
    if (this.closed) return;
    try {
      await this.pruneJournal();
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
        const last = this.lastJob.get(node.id);
        const jobId = last?.revision === desired ? last.id : applyJobId(node.id, desired);
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

  private async run(nodeId: string, force: Force): Promise<void> {
    const started = await this.pacing.rest(nodeId, !this.closed);
    let exists = true;
    try {
      const delivered = await this.enqueue(nodeId, force);
      exists = delivered !== undefined;
      if (delivered?.full && delivered.peers >= LARGE_DELIVERY_PEERS) collectGarbage();
    } catch (error) {
      // The sweep retries: delivered_revision did not move.
      this.logger.warn(`delivering node ${nodeId} failed: ${(error as Error).message}`);
    }
    this.pacing.ended(nodeId, started, exists);
    const state = this.inFlight.get(nodeId)!;
    if (state.again && !this.closed) {
      this.inFlight.set(nodeId, { again: false, force: 'none' });
      void this.run(nodeId, state.force);
      return;
    }
    this.inFlight.delete(nodeId);
    if (this.inFlight.size === 0) {
      for (const resolve of this.idle) resolve();
      this.idle.clear();
    }
  }

  /**
   * The node's state now. For a delta, the state last enqueued patched with the peer journal's
   * changes since (desired-state-patch.ts): rows read in proportion to the change, so one device
   * added to a node of 10,000 peers reads a few rows, not 10,000. The whole state is read instead
   * when there is no such state younger than JOURNAL_TRUSTED_MS, when the change is large, and
   * when the patch cannot say (an interface added or re-enabled).
   */
  private async currentState(nodeId: string, delta: boolean): Promise<ReadState | undefined> {
    const last = delta ? this.delivered.get(nodeId) : undefined;
    if (last && Date.now() - last.at < JOURNAL_TRUSTED_MS) {
      const changes = await this.repository.changesSince(nodeId, last.read.state, maxPatchedChanges(last.read.state));
      if (changes === undefined) return undefined; // the node was deleted
      const patched = changes === 'whole' ? undefined : patchDesiredState(last.read, changes);
      if (patched) {
        this.metrics.deliveryReads.inc({ read: 'journal' });
        return patched;
      }
    }
    this.metrics.deliveryReads.inc({ read: 'whole' });
    return this.repository.wholeState(nodeId);
  }

  /** Journal rows older than the trust window and a margin go (every sweep, in one statement). */
  private async pruneJournal(): Promise<void> {
    if (Date.now() - this.prunedAt < JOURNAL_PRUNE_EVERY_MS) return;
    this.prunedAt = Date.now();
    await this.repository.pruneJournal(JOURNAL_KEPT_MINUTES);
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
    this.delivered.delete(nodeId);
    this.withdrawn.add(nodeId);
  }

  /**
   * Enqueues the node's state, or what changed in it (see the class); returns how many peers it
   * has and whether the job carries them all (0 peers for an unmanaged node, which gets none),
   * undefined when the node no longer exists.
   */
  private async enqueue(nodeId: string, force: Force): Promise<{ peers: number; full: boolean } | undefined> {
    // Only the local node can be unmanaged, and only here: a panel with its local agent on asks nothing.
    if (!this.localAgent) {
      const facts = await this.repository.agentFactsOf(nodeId);
      if (!facts) return undefined; // the node was deleted
      if (this.unmanaged(facts)) return { peers: 0, full: true };
    }
    const takesDeltas = this.deltaAgents.has(nodeId);
    const read = await this.currentState(nodeId, takesDeltas && force === 'none');
    if (!read) return undefined; // the node was deleted
    const { state } = read;
    const queue = this.queues.queue(nodeQueueName(nodeId));
    // A job no agent has taken yet is replaced, not followed: the new job carries its changes too
    // (built against the state it applied on top of), so a burst while the agent is busy or away
    // still ends in one job. Taken (or gone), it stands, and the new delta applies on top of it.
    const previous = this.lastJob.get(nodeId);
    let superseded = false;
    if (previous && previous.revision < state.revision && waiting(await queue.getJobState(previous.id)))
      superseded = (await queue.remove(previous.id).catch(() => 0)) === 1;
    const base =
      force !== 'none' || !takesDeltas
        ? undefined
        : superseded
          ? previous?.base
          : this.delivered.get(nodeId)?.read.state;
    const delta = base ? buildDesiredDelta(base, state) : null;
    const jobId = force === 'resync' ? resyncJobId(nodeId, state.revision) : applyJobId(nodeId, state.revision);
    if (force !== 'none') {
      // By state, not getJob: that would read the whole state of the finished job back (see sweep).
      const existing = await queue.getJobState(jobId);
      if (existing === 'completed' || existing === 'failed') await queue.remove(jobId);
    }
    await queue.add(APPLY_JOB, delta ?? state, {
      jobId,
      attempts: 5,
      backoff: { type: 'exponential', delay: 1000 },
      removeOnComplete: { count: 10 },
      removeOnFail: { count: 20 },
    });
    this.lastJob.set(nodeId, { id: jobId, revision: state.revision, ...(delta && base ? { base } : {}) });
    if (takesDeltas) this.delivered.set(nodeId, { read, at: Date.now() });
    else this.delivered.delete(nodeId);
    await this.repository.markDelivered(nodeId, state.revision);
    return { peers: state.interfaces.reduce((sum, iface) => sum + iface.peers.length, 0), full: delta === null };
  }
}

/** How a delivery is forced: not; the whole state; the whole state under an id of its own (a gap). */
type Force = 'none' | 'force' | 'resync';

function stronger(a: Force, b: Force): Force {
  const order: Force[] = ['none', 'force', 'resync'];
  return order[Math.max(order.indexOf(a), order.indexOf(b))];
}

/** A job's state in which no agent has taken it yet. */
function waiting(state: string): boolean {
  return state === 'waiting' || state === 'delayed' || state === 'prioritized' || state === 'paused';
}
