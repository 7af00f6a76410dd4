import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { nodeQueueName } from '#libs/contracts/node-queue.js';
import {
  PROBE_JOB,
  probeJobSchema,
  probeResultSchema,
  type HopConfig,
  type ProbeJob,
  type ProbeResult,
} from '#libs/contracts/routing.js';
import { notFound } from '../http/api-error.js';
import type { QueueBackend } from '../queue/queue-backend.js';
import { QUEUE_BACKEND } from '../runtime.js';
import { awaitJob } from '../queue/await-job.js';
import type { ProbeMode } from './dto/outbound.dto.js';
import type { Outbound } from './outbound.entity.js';
import { OutboundsRepository } from './outbounds.repository.js';
import { isOffline, type AgentState } from '../system/agent-state.js';
import { SettingsService } from '../settings/settings.service.js';

/**
 * How long past the probe's own timeout the API waits for the agent's answer: the time for the
 * agent to take the job (it may be finishing an apply first) and report back.
 */
export const PICKUP_MARGIN_MS = 3000;

const NO_STAGES = { dns: null, connect: null, handshake: null, firstByte: null };

/** Why a node's agent cannot take a probe now, by its state (isOffline). */
const NOT_LINKED: Partial<Record<AgentState, string>> = {
  'never-enrolled': 'has never been enrolled',
  enrolled: 'was enrolled but has never linked to the panel',
  disconnected: 'is not linked to the panel (disconnected)',
};

function failure(errorClass: ProbeResult['errorClass'], error: string): ProbeResult {
  return {
    ok: false,
    latencyMs: null,
    stages: { ...NO_STAGES },
    errorClass,
    error: error.slice(0, 500),
    egressIp: null,
  };
}

/** The hop as the agent runs it, secrets included: a probe goes through the real hop. */
function hopConfig(row: Outbound): HopConfig | { kind: 'direct' } {
  switch (row.kind) {
    case 'wireguard':
      return {
        kind: 'wireguard',
        interfaceName: row.interfaceName!,
        privateKey: row.privateKey!,
        address: row.tunnelAddress!,
        peerPublicKey: row.peerPublicKey!,
        presharedKey: row.presharedKey ?? null,
        endpointHost: row.host!,
        endpointPort: row.port!,
        allowedIps: [...row.allowedIps],
        mtu: row.mtu!,
        persistentKeepalive: row.keepalive!,
      };
    case 'socks':
    case 'http':
      return {
        kind: row.kind,
        host: row.host!,
        port: row.port!,
        username: row.username ?? null,
        password: row.password ?? null,
      };
    case 'shadowsocks':
      return {
        kind: 'shadowsocks',
        host: row.host!,
        port: row.port!,
        method: row.method as 'aes-256-gcm',
        password: row.password!,
      };
    default:
      return { kind: 'direct' };
  }
}

/**
 * Probes an outbound from the node that runs it: a `probe` job on that node's queue, run by its
 * agent, awaited here by reading its state (awaitJob, as backups await theirs: no event
 * connection held per waiting check). No answer within the probe's timeout plus PICKUP_MARGIN_MS is the answer
 * `{ok: false, errorClass: 'timeout'}` (an agent away or busy), and the job is withdrawn so a
 * late agent does not run a stale probe. Every result is kept on the outbound, but one: a node
 * whose agent is not linked (node_agents, the state every controller reads) answers
 * `errorClass: 'agent-not-linked'` at once, with no job and nothing stored, since the hop was not
 * checked. An unmanaged node (no agent meant to run) is asked through its queue as before.
 */
@Injectable()
export class ProbesService {
  private readonly logger = new Logger('outbounds');

  constructor(
    private readonly outbounds: OutboundsRepository,
    private readonly settings: SettingsService,
    @Inject(QUEUE_BACKEND) private readonly queues: QueueBackend,
  ) {}

  async check(id: string, mode: ProbeMode): Promise<ProbeResult> {
    const row = await this.outbounds.find(id);
    if (!row) throw notFound('outbound not found', 'id');
    const agent = await this.outbounds.agentOf(row.node.id);
    if (agent && isOffline(agent.state)) {
      const why = NOT_LINKED[agent.state] ?? 'is not linked to the panel';
      return failure('agent-not-linked', `the agent of node ${agent.nodeName} ${why}: nothing was checked`);
    }
    const at = new Date();
    const result =
      row.kind === 'blocked'
        ? failure('forbidden', 'the blocked outbound drops all traffic')
        : await this.run(row, mode);
    const transition = await this.outbounds.recordCheck(id, result, at);
    if (transition) {
      // One line per change of health (stored too: outbound_transitions), for operators and shippers.
      const line = `outbound ${transition.tag} (${id}) on node ${transition.nodeId}: ${transition.from ?? 'unchecked'} -> ${transition.to}${transition.error ? `: ${transition.error}` : ''}`;
      if (transition.to === 'down') this.logger.warn(line);
      else this.logger.log(line);
    }
    return result;
  }

  private async run(row: Outbound, mode: ProbeMode): Promise<ProbeResult> {
    const settings = await this.settings.get();
    const job: ProbeJob = probeJobSchema.parse({
      outboundId: row.id,
      mode,
      config: hopConfig(row),
      url: settings.probeUrl,
      timeoutMs: settings.probeTimeoutMs,
      allowPrivateTargets: settings.allowPrivateTargets,
    });
    const waitMs = settings.probeTimeoutMs + PICKUP_MARGIN_MS;
    const queue = this.queues.queue(nodeQueueName(row.node.id));
    const added = await queue.add(PROBE_JOB, job, {
      jobId: `probe:${row.id}:${randomUUID()}`,
      attempts: 1,
      removeOnComplete: { age: 300 },
      removeOnFail: { age: 300 },
    });
    const outcome = await awaitJob(queue, added.id!, waitMs);
    if (outcome.state === 'pending') {
      await queue.remove(added.id!).catch(() => undefined);
      return failure(
        'timeout',
        `no answer from the agent of node ${row.node.id} within ${waitMs} ms (is it connected?)`,
      );
    }
    if (outcome.state === 'failed') return failure('internal', `the probe failed on the node: ${outcome.reason}`);
    const parsed = probeResultSchema.safeParse(outcome.value);
    return parsed.success
      ? parsed.data
      : failure('internal', 'the agent answered something that is not a probe result');
  }
}
