import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { NotificationEvent } from '#libs/contracts/notification-events.js';
import type { QueueBackend } from '../../queue/queue-backend.js';
import { QUEUE_BACKEND } from '../../runtime.js';
import { NotificationChannels, type NotificationChannel } from '../notification-channels.js';
import { WEBHOOKS_QUEUE, type WebhookJob } from './webhook-deliveries.js';
import { WebhooksRepository } from './webhooks.repository.js';

/** Attempts per endpoint: 5 s, 10 s, 20 s … about 42 minutes of retries before it gives up. */
const ATTEMPTS = 10;

/**
 * The webhook channel: an event becomes one job per enabled endpoint that wants its kind, on the
 * webhooks queue, so each endpoint is retried (and may be slow) on its own.
 */
@Injectable()
export class WebhookChannel implements NotificationChannel, OnModuleInit {
  readonly name = 'webhook' as const;

  constructor(
    private readonly channels: NotificationChannels,
    private readonly endpoints: WebhooksRepository,
    @Inject(QUEUE_BACKEND) private readonly queues: QueueBackend,
  ) {}

  onModuleInit(): void {
    this.channels.register(this);
  }

  async notReady(): Promise<string | null> {
    return (await this.endpoints.list()).some((endpoint) => endpoint.enabled) ? null : 'no webhook is enabled';
  }

  /** The delivery log past the retention, and past the newest DELIVERY_LOG_SIZE of each endpoint. */
  prune(before: Date): Promise<number> {
    return this.endpoints.pruneDeliveries(before);
  }

  async deliver(event: NotificationEvent): Promise<void> {
    const targets = (await this.endpoints.list()).filter(
      (endpoint) => endpoint.enabled && (endpoint.events.length === 0 || endpoint.events.includes(event.kind)),
    );
    if (targets.length === 0) return;
    await this.queues.queue(WEBHOOKS_QUEUE).addBulk(
      targets.map((endpoint) => ({
        name: 'post',
        data: { endpointId: endpoint.id, eventId: event.id } satisfies WebhookJob,
        opts: {
          jobId: `${event.id}.${endpoint.id}`,
          attempts: ATTEMPTS,
          backoff: { type: 'exponential', delay: 5000 },
          removeOnComplete: { age: 86_400, count: 10_000 },
          removeOnFail: { age: 7 * 86_400, count: 10_000 },
        },
      })),
    );
  }
}
