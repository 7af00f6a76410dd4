import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { UnrecoverableError, type Job } from 'bullmq';
import type { Capabilities } from '#libs/contracts/agent-link.js';
import type { ApplyResult } from '#libs/contracts/node-queue.js';
import { HOST_STATE_JOB } from '#libs/contracts/host-state.js';
import type { SystemSample } from '#libs/contracts/system.js';
import type { AgentConfig } from './config.js';
import { CounterSpool } from './counters/counter-spool.js';
import { AGENT_CONFIG, HOST_DRIVER, type HostDriver } from './host-driver.js';
import { ControllerLink } from './link/controller-link.js';
import { resolveControllerTrust } from './link/controller-trust.js';
import { identityFile, loadOrEnrol, storedControllerUrl, type AgentIdentity } from './link/credential.js';
import { readJsonFile } from '#libs/files/atomic-file.js';
import { SYSTEM_SAMPLER, type SystemSampler } from './system-sampler.js';
import { WARREN_VERSION as AGENT_VERSION } from '#libs/version/warren-version.js';
import { ApplyWorker, parseApplyJob, parseProbeJob } from './work/apply-worker.js';
import type { ProbeResult } from '#libs/contracts/routing.js';
import { PROBE_JOB } from '#libs/contracts/routing.js';
import { NODE_PROBE_JOB, nodeProbeJobSchema, type NodeProbeAnswer } from '#libs/contracts/node-probe.js';
import {
  NODE_UPDATE_JOB,
  nodeUpdateJobSchema,
  RESTART_EXIT_CODE,
  type NodeUpdateResult,
} from '#libs/contracts/node-update.js';
import type { ControllerTrust } from './link/controller-trust.js';
import { installBeside, markLinked } from './update/self-update.js';

/** How often the host is checked for interfaces that vanished behind the agent's back. */
const WATCHDOG_MS = 10_000;

/**
 * The agent: enrols (once), then keeps three loops going: the apply worker (desired state from
 * the node's queue), the report loop (counters and system samples every interval over the link)
 * and the watchdog (re-applies the last state when the host drifted).
 */
@Injectable()
export class AgentService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('agent');
  private identity!: AgentIdentity;
  private link!: ControllerLink;
  private worker!: ApplyWorker;
  private readonly spool: CounterSpool;
  private probe?: { capabilities: Capabilities; gaps: string[] };
  private reportTimer?: NodeJS.Timeout;
  private watchdogTimer?: NodeJS.Timeout;
  private reporting = false;
  private correctingQuotas = false;
  private trust?: ControllerTrust;
  private updating = false;

  constructor(
    @Inject(AGENT_CONFIG) private readonly config: AgentConfig,
    @Inject(HOST_DRIVER) private readonly host: HostDriver,
    @Inject(SYSTEM_SAMPLER) private readonly sampler: SystemSampler,
  ) {
    this.spool = new CounterSpool(config.dataDir);
    // A restarted interface's last counters go into the next batch (its new link counts from 0);
    // no batch is cut while it restarts.
    host.onCountersReset?.({ starting: () => this.spool.holdCuts(), done: (final) => this.spool.carry(final) });
  }

  get nodeId(): string {
    return this.identity.nodeId;
  }

  async onApplicationBootstrap(): Promise<void> {
    const trust = (this.trust = await resolveControllerTrust({
      ...this.config,
      controllerUrl: this.config.controllerUrl ?? storedControllerUrl(this.config.dataDir),
    }));
    this.identity = await loadOrEnrol(this.config, trust);
    this.probe = await this.host.probe();
    for (const gap of this.probe.gaps) this.logger.warn(`host: ${gap}`);
    // An agent that applied before has interfaces whose counters it reported from its spool: with
    // the spool gone, what was reported is unknown, and counting it again would charge twice.
    if (this.spool.started && this.host.applied().state) {
      this.logger.warn(
        'counter spool lost: the next reading becomes the baseline (traffic since the last recorded batch is not counted)',
      );
      this.spool.baselineLost();
    }
    // A restarted host (or agent) first restores what it last applied, before anything else.
    if (this.host.applied().state) await this.reapply('restoring the last applied state');

    this.link = new ControllerLink(
      this.identity.controllerUrl,
      this.identity.credential,
      {
        hello: async () => ({
          type: 'hello',
          version: AGENT_VERSION,
          capabilities: this.probe!.capabilities,
          gaps: this.probe!.gaps,
          appliedRevision: this.host.applied().revision,
          deltas: true,
        }),
        welcome: (message) => {
          // The panel has this agent's hello (its version): the launcher keeps an update now.
          if (this.config.installDir) markLinked(this.config.installDir, AGENT_VERSION);
          this.spool.resume(message.countersSeq);
          const { result } = this.host.applied();
          if (result) this.link.send({ type: 'applied', result });
          this.sendPendingCounters();
        },
        ack: (seq) => this.spool.acknowledge(seq),
        refused: () => this.restartIfCredentialReplaced(),
      },
      trust,
      this.config.linkSilenceMs,
    );
    this.link.start();

    this.worker = new ApplyWorker(this.identity.nodeId, this.identity.queue, this.config.queueDatabaseUrl, (error) =>
      this.logger.warn(`queue: ${error.message}`),
    );
    this.worker.start((job) => this.applyJob(job), {
      [PROBE_JOB]: (job) => this.probeJob(job),
      [NODE_PROBE_JOB]: (job) => this.nodeProbeJob(job),
      [HOST_STATE_JOB]: () => this.host.collectState(),
      [NODE_UPDATE_JOB]: (job) => this.updateJob(job),
    });

    this.reportTimer = setInterval(() => void this.report(), this.config.reportIntervalMs);
    this.watchdogTimer = setInterval(() => void this.watchdog(), WATCHDOG_MS);
    this.logger.log(
      `node ${this.identity.nodeName} (${this.identity.nodeId}): applied revision ${this.host.applied().revision}`,
    );
  }

  /**
   * The link's credential was refused while a different one is in the identity file: someone
   * (the controller of an external local agent, at its every start) replaced it. The queue access
   * came with it, so the whole agent starts again from the file: SIGTERM is the ordinary stop, and
   * its unit (Restart=always) starts it again.
   */
  private restartIfCredentialReplaced(): void {
    const onDisk = readJsonFile<AgentIdentity>(identityFile(this.config.dataDir));
    if (!onDisk || onDisk.credential === this.identity.credential) return;
    this.logger.warn('the identity file holds a newer credential than this agent: restarting to use it');
    process.kill(process.pid, 'SIGTERM');
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.reportTimer);
    clearInterval(this.watchdogTimer);
    await this.worker?.stop();
    await this.link?.stop();
  }

  /**
   * The job's return value is the outcome: the controller's delivery sweep reads it when the
   * `applied` message sent here did not arrive (docs/agents.md). An older revision than the
   * host's newest is not applied; the host driver answers with that newer apply's outcome.
   */
  private async applyJob(job: Job): Promise<ApplyResult> {
    const state = parseApplyJob(job);
    if (state.nodeId !== this.identity.nodeId)
      throw new Error(`job for node ${state.nodeId} on the queue of ${this.identity.nodeId}`);
    let result: ApplyResult;
    if ('kind' in state) {
      const outcome = await this.host.applyDelta(state);
      if ('gap' in outcome) {
        // The controller sends the whole state on this; the job fails (not retried: the same delta
        // would not fit again), which its sweep also acts on should this message be lost.
        this.logger.warn(
          `revision ${state.revision}: delta on top of ${state.baseRevision}, but revision ${outcome.gap} is applied: asking for the whole state`,
        );
        this.link.send({ type: 'gap', revision: state.revision, appliedRevision: outcome.gap });
        throw new UnrecoverableError(`gap: delta on top of revision ${state.baseRevision}, applied ${outcome.gap}`);
      }
      result = outcome.result;
      this.logger.log(
        `revision ${state.revision}: delta of ${outcome.peers} peers applied ${outcome.full ? 'as the whole state' : 'alone'} in ${result.durationMs} ms`,
      );
    } else {
      result = await this.host.apply(state);
    }
    this.link.send({ type: 'applied', result });
    if (!result.ok) {
      const failed = result.interfaces.filter((outcome) => outcome.state === 'failed' || outcome.error);
      this.logger.warn(
        `revision ${state.revision}: ${failed.map((outcome) => `${outcome.name}: ${outcome.error}`).join('; ')}`,
      );
    }
    return result;
  }

  /** A probe of one of this node's outbounds; its result is the job's return value. */
  private probeJob(job: Job): Promise<ProbeResult> {
    return this.host.probeOutbound(parseProbeJob(job));
  }

  /**
   * A node probe (`POST /api/nodes/{id}/probe`): this agent's version and its host's facts,
   * gathered now. The panel times the round trip from queueing the job to reading this answer.
   */
  private async nodeProbeJob(job: Job): Promise<NodeProbeAnswer> {
    nodeProbeJobSchema.parse(job.data);
    const facts = await this.host.hostFacts(this.probe!.capabilities);
    return { agentVersion: AGENT_VERSION, answeredAt: Date.now(), ...facts };
  }

  /**
   * An update from the panel (`POST /api/nodes/{id}/update`): the new release is installed beside
   * this one and `current` switched to it (update/self-update.ts); then this agent stops with
   * RESTART_EXIT_CODE, once the job's result is recorded, and its launcher starts the new one.
   */
  private async updateJob(job: Job): Promise<NodeUpdateResult> {
    const request = nodeUpdateJobSchema.parse(job.data);
    const installDir = this.config.installDir;
    if (!installDir)
      throw new Error(
        'this agent was not started by its launcher from a releases layout (install it again with install-agent.sh): it cannot update itself',
      );
    if (this.updating) throw new Error('an update is already being installed');
    this.updating = true;
    try {
      const result = await installBeside(
        {
          installDir,
          controllerUrl: this.identity.controllerUrl,
          credential: this.identity.credential,
          trust: this.trust,
          runningVersion: AGENT_VERSION,
        },
        request,
      );
      this.logger.log(`updated ${result.from} -> ${result.to}: restarting into it`);
      // After the job's completion is written (the worker's close waits for it), not before.
      setTimeout(() => {
        process.exitCode = RESTART_EXIT_CODE;
        process.kill(process.pid, 'SIGTERM');
      }, 200).unref();
      return result;
    } catch (error) {
      this.updating = false;
      throw error;
    }
  }

  private async reapply(reason: string): Promise<void> {
    const { state } = this.host.applied();
    if (!state) return;
    this.logger.log(`${reason}: re-applying revision ${state.revision}`);
    const result = await this.host.apply(state);
    this.link?.send({ type: 'applied', result });
  }

  private async watchdog(): Promise<void> {
    try {
      const missing = await this.host.missingInterfaces();
      if (missing.length > 0) await this.reapply(`interfaces vanished (${missing.join(', ')})`);
    } catch (error) {
      this.logger.warn(`watchdog: ${(error as Error).message}`);
    }
  }

  /** One report round: a counter batch (when the last one was acknowledged) and a system sample. */
  private async report(): Promise<void> {
    if (this.reporting) return; // a slow round is not stacked on
    this.reporting = true;
    try {
      // Kicked off first: a correction that runs at once reads the kernel, and the counter read
      // below begins after that and serves it too (one reading a round: wireguard-host.ts).
      void this.correctQuotas();
      if (!this.spool.pending) {
        const mark = this.spool.readingMark();
        const readings = await this.host.readCounters();
        // The hops' bytes ride in the same batch: recorded once with it, whatever the link does.
        const hops = this.host.readHopCounters ? await this.host.readHopCounters() : null;
        this.spool.cut(readings, Date.now(), hops, mark);
      }
      this.sendPendingCounters();
      const hits = await this.host.readRuleHits();
      if (hits.length === 0 || this.link.send({ type: 'rule-hits', rules: hits })) this.host.ruleHitsDelivered();
      const sample: SystemSample = await this.sampler.sample();
      this.link.send({ type: 'system', sample });
    } catch (error) {
      this.logger.warn(`report: ${(error as Error).message}`);
    } finally {
      this.reporting = false;
    }
  }

  /**
   * Corrects the kernel quotas each round, whatever the link does (the kernel enforces them on its
   * own). Not awaited by the report: it waits its turn behind applies, and counters must not.
   */
  private async correctQuotas(): Promise<void> {
    if (this.correctingQuotas) return;
    this.correctingQuotas = true;
    try {
      const failure = await this.host.correctQuotas();
      if (failure) this.logger.warn(`quotas: ${failure}`);
    } catch (error) {
      this.logger.warn(`quotas: ${(error as Error).message}`);
    } finally {
      this.correctingQuotas = false;
    }
  }

  private sendPendingCounters(): void {
    const batch = this.spool.pending;
    if (batch)
      this.link.send({
        type: 'counters',
        seq: batch.seq,
        at: batch.at,
        since: batch.since,
        peers: batch.peers,
        ...(batch.hops ? { hops: batch.hops } : {}),
      });
  }
}
