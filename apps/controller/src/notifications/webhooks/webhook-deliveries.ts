import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import type { QueueBackend } from '../../queue/queue-backend.js';
import { startWorkerWhenReady } from '../../queue/worker-when-ready.js';
import { QUEUE_BACKEND } from '../../runtime.js';
import { SettingsService } from '../../settings/settings.service.js';
import { NotificationEventsRepository } from '../events/notification-events.repository.js';
import { sendWebhook, STOPPED } from './webhook-sender.js';
import { webhookRequest } from './webhook-payload.js';
import { WebhooksRepository } from './webhooks.repository.js';

export const WEBHOOKS_QUEUE = 'webhooks';
/** How long an endpoint may take to answer one POST. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** Attempts in flight at once for one endpoint on one controller; the rest of the worker's slots serve the others. */
const PER_ENDPOINT = 2;
const WORKER_SLOTS = 16;

export interface WebhookJob {
  endpointId: string;
  eventId: string;
}

/**
 * Posts queued events to their endpoints. One worker serves every endpoint, but an endpoint
 * never holds more than PER_ENDPOINT of its slots: a job for an endpoint already that busy is put
 * back, delayed, without spending an attempt. An endpoint that never answers thus costs two slots
 * for at most WEBHOOK_TIMEOUT_MS each, and every other endpoint's events go on (and the panel's
 * requests never wait for any of this: they only write the outbox).
 */
@Injectable()
export class WebhookDeliveries implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly inFlight = new Map<string, number>();
  /** The attempts running now: a shutdown cuts them short and waits for them before the database closes. */
  private readonly running = new Set<Promise<string>>();
  private readonly stopping = new AbortController();
  private stopped = false;

  constructor(
    @Inject(QUEUE_BACKEND) private readonly queues: QueueBackend,
    private readonly endpoints: WebhooksRepository,
    private readonly events: NotificationEventsRepository,
    private readonly settings: SettingsService,
  ) {}

  onApplicationBootstrap(): void {
    void this.startWorker();
  }

  /**
   * Runs before the queue store and the database close (panel.ts closes the app first). An
   * attempt still waiting on a slow endpoint (up to WEBHOOK_TIMEOUT_MS) would otherwise write
   * its log row after the database closed; it is cut short and its job put back instead.
   */
  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    await Promise.allSettled([...this.running]);
  }

  private async startWorker(): Promise<void> {
    await startWorkerWhenReady(
      this.queues,
      WEBHOOKS_QUEUE,
      (job: Job<WebhookJob>, token) => this.post(job, token),
      { concurrency: WORKER_SLOTS },
      () => this.stopped,
    );
  }

  private async post(job: Job<WebhookJob>, token: string | undefined): Promise<string> {
    const { endpointId } = job.data;
    const busy = this.inFlight.get(endpointId) ?? 0;
    if (busy >= PER_ENDPOINT) {
      await job.moveToDelayed(Date.now() + 500 + Math.floor(Math.random() * 500), token);
      throw new DelayedError();
    }
    this.inFlight.set(endpointId, busy + 1);
    const attempt = this.attempt(job, token);
    this.running.add(attempt);
    try {
      return await attempt;
    } finally {
      this.running.delete(attempt);
      const left = (this.inFlight.get(endpointId) ?? 1) - 1;
      if (left > 0) this.inFlight.set(endpointId, left);
      else this.inFlight.delete(endpointId);
    }
  }

  private async attempt(job: Job<WebhookJob>, token: string | undefined): Promise<string> {
    const endpoint = await this.endpoints.find(job.data.endpointId);
    if (!endpoint || !endpoint.enabled) return 'endpoint gone or disabled';
    const event = await this.events.find(job.data.eventId);
    if (!event) return 'event gone';
    const { allowPrivateTargets } = await this.settings.get();
    const { body, headers } = webhookRequest(event, endpoint.secret);
    const outcome = await sendWebhook({
      url: endpoint.url,
      body,
      headers,
      allowPrivateTargets,
      timeoutMs: WEBHOOK_TIMEOUT_MS,
      stop: this.stopping.signal,
    });
    if (outcome.error === STOPPED) {
      // Not the endpoint's answer: back on the queue for the next controller, no attempt spent.
      await job.moveToDelayed(Date.now() + 1000, token);
      throw new DelayedError();
    }
    await this.endpoints.logAttempt(endpoint.id, {
      eventId: event.id,
      kind: event.kind,
      attempt: job.attemptsMade + 1,
      status: outcome.status,
      latencyMs: outcome.latencyMs,
      error: outcome.error,
      at: new Date(),
    });
    if (outcome.error === null) return `answered ${outcome.status}`;
    // A forbidden target will not become allowed by retrying (until the owner changes settings).
    if (outcome.error.includes('forbidden address') || outcome.error.includes('is this host'))
      throw new UnrecoverableError(outcome.error);
    throw new Error(outcome.error);
  }
}
