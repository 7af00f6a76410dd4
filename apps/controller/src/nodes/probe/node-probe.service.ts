import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { nodeQueueName } from '#libs/contracts/node-queue.js';
import {
  NODE_PROBE_JOB,
  nodeProbeAnswerSchema,
  type NodeProbeAnswer,
  type NodeProbeJob,
} from '#libs/contracts/node-probe.js';
import { versionSkew, type VersionSkew } from '#libs/version/version-skew.js';
import { WARREN_VERSION } from '#libs/version/warren-version.js';
import { ApiError, conflict } from '../../http/api-error.js';
import { awaitJob } from '../../queue/await-job.js';
import type { QueueBackend } from '../../queue/queue-backend.js';
import { QUEUE_BACKEND } from '../../runtime.js';
import { addAgentJob, requireLinkedAgent } from '../agent-reachable.js';
import { NodesService } from '../nodes.service.js';

/**
 * How long the panel waits for the agent's answer. Gathering the facts takes the agent tens of
 * milliseconds (each tool it runs is bounded at 5 s); the rest is the time for its worker to take
 * the job beside a running apply (applies and probes run side by side: apply-worker.ts).
 */
export const NODE_PROBE_WAIT_MS = 10_000;
/** The round trip is read by polling the job's state this often: it is exact to about this. */
const POLL_MS = 10;

export interface NodeProbe extends NodeProbeAnswer {
  nodeId: string;
  nodeName: string;
  /** Queueing the job to reading the agent's answer, by the panel's clock. */
  roundTripMs: number;
  /** The agent's clock minus the panel's at the middle of the round trip (rough: the poll's step). */
  clockOffsetMs: number;
  panelVersion: string;
  versionSkew: VersionSkew;
  /** A sentence when the agent's version is not the panel's; null when they match. */
  versionWarning: string | null;
}

/**
 * Probes a node over its agent's own path: a `node-probe` job on the node's queue (as applies and
 * hop probes travel), answered by the agent with its version and its host's facts, timed here.
 * A node nobody can answer for (unmanaged, or its agent not linked by node_agents, which every
 * controller reads) is a 409 at once; an agent that does not answer within NODE_PROBE_WAIT_MS is
 * a 503 and the job is withdrawn, so a late agent does not answer a question nobody waits for.
 */
@Injectable()
export class NodeProbeService {
  constructor(
    private readonly nodes: NodesService,
    @Inject(QUEUE_BACKEND) private readonly queues: QueueBackend,
  ) {}

  async probe(nodeId: string): Promise<NodeProbe> {
    const node = await this.nodes.get(nodeId);
    requireLinkedAgent(node, 'answer a probe');

    const queue = this.queues.queue(nodeQueueName(node.id));
    const sentAt = Date.now();
    const job: NodeProbeJob = { sentAt };
    const jobId = `node-probe:${node.id}:${randomUUID()}`;
    await addAgentJob(queue, { name: NODE_PROBE_JOB, data: job, jobId, keepSeconds: 300 }, node, 'be probed');
    const outcome = await awaitJob(queue, jobId, NODE_PROBE_WAIT_MS, { firstMs: POLL_MS, maxMs: POLL_MS });
    const answeredAt = Date.now();
    if (outcome.state === 'pending') {
      await queue.remove(jobId).catch(() => undefined);
      throw new ApiError(
        503,
        `the agent of node ${node.id} (${node.name}) did not answer within ${NODE_PROBE_WAIT_MS} ms (is it still linked?)`,
        'id',
      );
    }
    if (outcome.state === 'failed')
      throw conflict(
        `the agent of node ${node.id} (${node.name}) could not answer the probe: ${outcome.reason}${
          /unknown job/.test(outcome.reason) ? ' (an agent older than node probes: update it)' : ''
        }`,
        'id',
      );
    const parsed = nodeProbeAnswerSchema.safeParse(outcome.value);
    if (!parsed.success)
      throw conflict(`the agent of node ${node.id} (${node.name}) answered something that is not a node probe`, 'id');
    const answer = parsed.data;
    const skew = versionSkew(answer.agentVersion, WARREN_VERSION);
    return {
      nodeId: node.id,
      nodeName: node.name,
      roundTripMs: answeredAt - sentAt,
      clockOffsetMs: Math.round(answer.answeredAt - (sentAt + answeredAt) / 2),
      panelVersion: WARREN_VERSION,
      versionSkew: skew,
      versionWarning: skewWarning(skew, answer.agentVersion),
      ...answer,
    };
  }
}

/** The same rule (versionSkew) as the security warning "agents older than the panel". */
function skewWarning(skew: VersionSkew, agentVersion: string): string | null {
  if (skew === 'same') return null;
  const how = skew === 'older' ? 'older than' : skew === 'newer' ? 'newer than' : 'different from';
  return `The agent runs ${agentVersion}, ${how} the panel's ${WARREN_VERSION}: update the agent to the panel's version (docs/agents.md).`;
}
