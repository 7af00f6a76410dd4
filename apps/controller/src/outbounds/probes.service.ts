import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { nodeQueueName } from '#libs/contracts/node-queue.js';
import { PROBE_JOB, probeJobSchema, probeResultSchema, type HopConfig, type ProbeJob, type ProbeResult } from '#libs/contracts/routing.js';
import { notFound } from '../http/api-error.js';
import type { QueueBackend } from '../queue/queue-backend.js';
import { QUEUE_BACKEND } from '../runtime.js';
import type { ProbeMode } from './dto/outbound.dto.js';
import type { Outbound } from './outbound.entity.js';
import { OutboundsRepository } from './outbounds.repository.js';
import { SettingsService } from '../settings/settings.service.js';

/**
 * How long past the probe's own timeout the API waits for the agent's answer: the time for the
 * agent to take the job (it may be finishing an apply first) and report back.
 */
export const PICKUP_MARGIN_MS = 3000;

/**
 * Checks waiting at once. Each wait holds a connection of the queue store (a LISTEN connection
 * of the PostgreSQL backend's pool of 16, which the workers and delivery share); more callers queue up here.
 */
const MAX_WAITING_CHECKS = 2;

const NO_STAGES = { dns: null, connect: null, handshake: null, firstByte: null };

function failure(errorClass: ProbeResult['errorClass'], error: string): ProbeResult {
  return { ok: false, latencyMs: null, stages: { ...NO_STAGES }, errorClass, error: error.slice(0, 500), egressIp: null };
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
      return { kind: row.kind, host: row.host!, port: row.port!, username: row.username ?? null, password: row.password ?? null };
    case 'shadowsocks':
      return { kind: 'shadowsocks', host: row.host!, port: row.port!, method: row.method as 'aes-256-gcm', password: row.password! };
    default:
      return { kind: 'direct' };
  }
}

/**
 * Probes an outbound from the node that runs it: a `probe` job on that node's queue, run by its
 * agent, awaited here through the queue's events (job.waitUntilFinished), which both queue stores
 * deliver. No answer within the probe's timeout plus PICKUP_MARGIN_MS is the answer
 * `{ok: false, errorClass: 'timeout'}` (an agent away or busy), and the job is withdrawn so a
 * late agent does not run a stale probe. Every result is kept on the outbound.
 */
@Injectable()
export class ProbesService {
  private waiting = 0;
  private readonly line: (() => void)[] = [];

  constructor(
    private readonly outbounds: OutboundsRepository,
    private readonly settings: SettingsService,
    @Inject(QUEUE_BACKEND) private readonly queues: QueueBackend,
  ) {}

  async check(id: string, mode: ProbeMode): Promise<ProbeResult> {
    const row = await this.outbounds.find(id);
    if (!row) throw notFound('outbound not found', 'id');
    const at = new Date();
    const result = row.kind === 'blocked' ? failure('forbidden', 'the blocked outbound drops all traffic') : await this.run(row, mode);
    await this.outbounds.recordCheck(id, result, at);
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
    await this.enterLine();
    const queueName = nodeQueueName(row.node.id);
    const listener = this.queues.events(queueName);
    try {
      await listener.events.waitUntilReady();
      const queue = this.queues.queue(queueName);
      const added = await queue.add(PROBE_JOB, job, {
        jobId: `probe:${row.id}:${randomUUID()}`,
        attempts: 1,
        removeOnComplete: { age: 300 },
        removeOnFail: { age: 300 },
      });
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), waitMs)));
      const finished = added.waitUntilFinished(listener.events).then(
        (value: unknown) => ({ value }),
        (error: Error) => ({ error }),
      );
      const outcome = await Promise.race([finished, timedOut]).finally(() => clearTimeout(timer));
      if (outcome === 'timeout') {
        await queue.remove(added.id!).catch(() => undefined);
        return failure('timeout', `no answer from the agent of node ${row.node.id} within ${waitMs} ms (is it connected?)`);
      }
      if ('error' in outcome) return failure('internal', `the probe failed on the node: ${outcome.error.message}`);
      const parsed = probeResultSchema.safeParse(outcome.value);
      return parsed.success ? parsed.data : failure('internal', 'the agent answered something that is not a probe result');
    } finally {
      await listener.close();
      this.leaveLine();
    }
  }

  private async enterLine(): Promise<void> {
    if (this.waiting < MAX_WAITING_CHECKS) {
      this.waiting++;
      return;
    }
    await new Promise<void>((resolve) => this.line.push(resolve));
  }

  private leaveLine(): void {
    const next = this.line.shift();
    if (next) next();
    else this.waiting--;
  }
}
