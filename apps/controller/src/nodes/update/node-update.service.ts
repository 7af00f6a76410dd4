import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { nodeQueueName } from '#libs/contracts/node-queue.js';
import {
  DEFAULT_LINK_DEADLINE_S,
  NODE_UPDATE_JOB,
  nodeUpdateResultSchema,
  type NodeUpdateJob,
} from '#libs/contracts/node-update.js';
import { conflict, notFound } from '../../http/api-error.js';
import { awaitJob } from '../../queue/await-job.js';
import type { QueueBackend } from '../../queue/queue-backend.js';
import { QUEUE_BACKEND } from '../../runtime.js';
import { AgentInstallService } from '../agent-install/agent-install.service.js';
import { addAgentJob, requireLinkedAgent } from '../agent-reachable.js';
import { AgentLinkRepository } from '../link/agent-link.repository.js';
import { NodesService } from '../nodes.service.js';

export const NODE_UPDATE_STATES = ['installing', 'restarting', 'done', 'rolled-back', 'failed'] as const;
export type NodeUpdateState = (typeof NODE_UPDATE_STATES)[number];

export interface NodeUpdate {
  id: string;
  nodeId: string;
  nodeName: string;
  fromVersion: string;
  toVersion: string;
  sha256: string;
  state: NodeUpdateState;
  error: string | null;
  linkDeadlineSeconds: number;
  startedAt: Date;
  finishedAt: Date | null;
}

/** Downloading, verifying, unpacking and (rarely: a new lock file) `npm ci`: bounded, never forever. */
const INSTALL_WAIT_MS = 15 * 60_000;
/** Past the launcher's deadline, what it takes to stop the new agent and for the old one to link. */
const ROLLBACK_GRACE_MS = 45_000;
const LINK_POLL_MS = 500;

/**
 * Updates a node's agent to the panel's own package (docs/agents.md, "Updating nodes"): a
 * `node-update` job on the node's queue carries the package's version and SHA-256; the agent
 * downloads it from the panel with its credential, verifies, installs it beside the running
 * release, switches and restarts; its launcher rolls back when the new agent does not link in
 * time. This service follows the job, then the node's link: `done` when the agent linked with
 * the new version, `rolled-back` when the previous version linked again after the switch.
 * Updates live in this controller's memory (the last one per node; a restart forgets them).
 */
@Injectable()
export class NodeUpdateService implements OnModuleDestroy {
  private readonly logger = new Logger('node-update');
  private readonly updates = new Map<string, NodeUpdate>();
  /** Nodes whose update is between its checks and its job: a second request meanwhile is a 409. */
  private readonly starting = new Set<string>();
  private stopped = false;
  /** Resolves when the module stops: a follow waiting on a job gives up then, not 15 minutes later. */
  private readonly stopping = new Promise<void>((resolve) => (this.stop = resolve));
  private stop!: () => void;

  constructor(
    private readonly nodes: NodesService,
    private readonly install: AgentInstallService,
    private readonly links: AgentLinkRepository,
    @Inject(QUEUE_BACKEND) private readonly queues: QueueBackend,
  ) {}

  onModuleDestroy(): void {
    this.stopped = true;
    this.stop();
  }

  /** The node's latest update on this controller. */
  latest(nodeId: string): NodeUpdate {
    const update = this.updates.get(nodeId);
    if (!update) throw notFound(`no update of node ${nodeId} was started on this panel since it started`, 'id');
    return update;
  }

  async start(nodeId: string, linkDeadlineSeconds = DEFAULT_LINK_DEADLINE_S): Promise<NodeUpdate> {
    const node = await this.nodes.get(nodeId);
    requireLinkedAgent(node, 'install an update');
    // The local agent runs from the panel's own install: it updates with the panel (install.sh).
    if (node.isLocal)
      throw conflict(
        `node ${node.id} (${node.name}) is the panel's own host: its agent runs from the panel's install and updates with it (deploy/install.sh)`,
        'id',
      );
    const running = this.updates.get(node.id);
    if ((running && !running.finishedAt) || this.starting.has(node.id))
      throw conflict(`node ${node.id} (${node.name}) is already being updated`, 'id');
    // Claimed before the first wait, so parallel requests cannot each queue an update.
    this.starting.add(node.id);
    try {
      return await this.queueUpdate(node, linkDeadlineSeconds);
    } finally {
      this.starting.delete(node.id);
    }
  }

  private async queueUpdate(
    node: Awaited<ReturnType<NodesService['get']>>,
    linkDeadlineSeconds: number,
  ): Promise<NodeUpdate> {
    const pkg = await this.install.described();
    const fromVersion = node.agent.version ?? 'unknown';
    if (fromVersion === pkg.version)
      throw conflict(
        `the agent of node ${node.id} (${node.name}) already runs ${pkg.version}, the panel's package`,
        'id',
      );

    const job: NodeUpdateJob = { version: pkg.version, sha256: pkg.sha256, linkDeadlineSeconds };
    const update: NodeUpdate = {
      id: randomUUID(),
      nodeId: node.id,
      nodeName: node.name,
      fromVersion,
      toVersion: pkg.version,
      sha256: pkg.sha256,
      state: 'installing',
      error: null,
      linkDeadlineSeconds,
      startedAt: new Date(),
      finishedAt: null,
    };
    const queue = this.queues.queue(nodeQueueName(node.id));
    const jobId = `node-update:${node.id}:${update.id}`;
    await addAgentJob(queue, { name: NODE_UPDATE_JOB, data: job, jobId, keepSeconds: 3600 }, node, 'be updated');
    this.updates.set(node.id, update);
    this.logger.log(`node ${node.name} (${node.id}): updating its agent ${fromVersion} -> ${pkg.version}`);
    void this.follow(update, jobId).catch((error: Error) => this.finish(update, 'failed', error.message));
    return update;
  }

  private async follow(update: NodeUpdate, jobId: string): Promise<void> {
    const queue = this.queues.queue(nodeQueueName(update.nodeId));
    const outcome = await Promise.race([
      awaitJob(queue, jobId, INSTALL_WAIT_MS, { firstMs: 100, maxMs: 1000 }),
      this.stopping.then(() => ({ state: 'stopped' as const })),
    ]);
    if (outcome.state === 'stopped') {
      // A job no agent has taken yet would run unobserved after this panel is gone.
      await queue.remove(jobId).catch(() => undefined);
      return this.finish(update, 'failed', 'the panel stopped while the agent was installing');
    }
    if (outcome.state === 'pending') {
      await queue.remove(jobId).catch(() => undefined);
      return this.finish(
        update,
        'failed',
        `the agent did not install the update within ${INSTALL_WAIT_MS / 60_000} minutes`,
      );
    }
    if (outcome.state === 'failed')
      return this.finish(
        update,
        'failed',
        /unknown job/.test(outcome.reason)
          ? `the agent is older than updates from the panel (${outcome.reason}): install the panel's package on it by hand (deploy/install-agent.sh)`
          : outcome.reason,
      );
    if (!nodeUpdateResultSchema.safeParse(outcome.value).success)
      return this.finish(update, 'failed', 'the agent answered something that is not an update result');

    update.state = 'restarting';
    const switchedAt = Date.now();
    const giveUpAt = switchedAt + update.linkDeadlineSeconds * 1000 + ROLLBACK_GRACE_MS;
    while (!this.stopped && Date.now() < giveUpAt) {
      const link = await this.links.linkOf(update.nodeId).catch(() => undefined);
      // A hello after the switch: the new version, or (launcher's rollback) the previous one.
      const since = link?.connectedAt ? new Date(link.connectedAt).getTime() : 0;
      if (link?.connected && link.version === update.toVersion) return this.finish(update, 'done', null);
      if (link?.connected && since >= switchedAt && link.version === update.fromVersion)
        return this.finish(
          update,
          'rolled-back',
          `${update.toVersion} did not link within ${update.linkDeadlineSeconds} s: the node's launcher switched back and ${update.fromVersion} linked again`,
        );
      await new Promise((resolve) => setTimeout(resolve, LINK_POLL_MS));
    }
    this.finish(
      update,
      'failed',
      `neither ${update.toVersion} nor ${update.fromVersion} linked within ${Math.round((giveUpAt - switchedAt) / 1000)} s of the switch: see the node's agent log (journalctl -u warren-agent)`,
    );
  }

  private finish(update: NodeUpdate, state: NodeUpdateState, error: string | null): void {
    update.state = state;
    update.error = error;
    update.finishedAt = new Date();
    const how = `node ${update.nodeName} (${update.nodeId}): update ${update.fromVersion} -> ${update.toVersion}: ${state}`;
    if (state === 'done') this.logger.log(how);
    else this.logger.warn(`${how}: ${error}`);
  }
}
