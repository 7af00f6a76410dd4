import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { Job } from 'bullmq';
import type { NotificationChannelName, NotificationEvent } from '#libs/contracts/notification-events.js';
import type { QueueBackend } from '../queue/queue-backend.js';
import { startWorkerWhenReady } from '../queue/worker-when-ready.js';
import { QUEUE_BACKEND } from '../runtime.js';
import { NotificationChannels } from './notification-channels.js';
import { NotificationSettingsRepository } from './notification-settings.repository.js';
import { NotificationEvents } from './events/notification-events.js';
import { NotificationEventsRepository } from './events/notification-events.repository.js';

export const NOTIFICATIONS_QUEUE = 'notifications';
const POLL_MS = 2000;
const BATCH = 100;
/** A channel failing is retried with exponential backoff: 2 s, 4 s, 8 s … about 17 minutes in all. */
const ATTEMPTS = 10;

interface DeliverJob {
  eventId: string;
  channel: NotificationChannelName;
}

/**
 * Moves recorded events from the outbox to the channels: one BullMQ job per event and channel
 * the settings turn on, with the job id `<event id>.<channel>` so a hand-over repeated after a
 * crash collapses into the job already queued. Each channel's delivery is retried on its own.
 */
@Injectable()
export class NotificationDispatcher implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('notifications');
  private timer?: NodeJS.Timeout;
  private flushing?: Promise<void>;
  private again = false;
  private stopped = false;

  constructor(
    @Inject(QUEUE_BACKEND) private readonly queues: QueueBackend,
    private readonly events: NotificationEventsRepository,
    private readonly recorder: NotificationEvents,
    private readonly channels: NotificationChannels,
    private readonly settings: NotificationSettingsRepository,
  ) {}

  onApplicationBootstrap(): void {
    this.recorder.onRecorded(() => this.flushSoon());
    void this.startWorker();
  }

  /** Waits for a flush under way: it must not query the database after the panel closed it. */
  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.flushing;
  }

  private async startWorker(): Promise<void> {
    const started = await startWorkerWhenReady(
      this.queues,
      NOTIFICATIONS_QUEUE,
      (job: Job<DeliverJob>) => this.deliver(job),
      { concurrency: 8 },
      () => this.stopped,
    );
    if (!started) return;
    this.timer = setInterval(() => this.flushSoon(), POLL_MS);
    this.timer.unref();
    this.flushSoon();
  }

  /** One flush at a time; a wake-up during one runs another after it. */
  flushSoon(): void {
    if (this.stopped) return;
    if (this.flushing) {
      this.again = true;
      return;
    }
    this.flushing = this.flush()
      .catch((error: Error) => this.logger.warn(`dispatching notifications failed: ${error.message}`))
      .finally(() => {
        this.flushing = undefined;
        if (this.again) {
          this.again = false;
          this.flushSoon();
        }
      });
  }

  private async flush(): Promise<void> {
    while (!this.stopped && (await this.events.dispatchPending(BATCH, (events) => this.enqueue(events))) === BATCH);
  }

  private async enqueue(events: NotificationEvent[]): Promise<void> {
    const { switches } = await this.settings.notify();
    const jobs = events.flatMap((event) =>
      this.channels
        .list()
        .filter((channel) => switches[event.kind]?.[channel.name] ?? false)
        .map((channel) => ({
          name: 'deliver',
          data: { eventId: event.id, channel: channel.name } satisfies DeliverJob,
          opts: {
            jobId: `${event.id}.${channel.name}`,
            attempts: ATTEMPTS,
            backoff: { type: 'exponential', delay: 2000 },
            // Kept a day: a hand-over repeated within it finds the job and adds nothing.
            removeOnComplete: { age: 86_400, count: 10_000 },
            removeOnFail: { age: 7 * 86_400, count: 10_000 },
          },
        })),
    );
    if (jobs.length > 0) await this.queues.queue(NOTIFICATIONS_QUEUE).addBulk(jobs);
  }

  private async deliver(job: Job<DeliverJob>): Promise<string> {
    const event = await this.events.find(job.data.eventId);
    if (!event) return 'event gone';
    const channel = this.channels.get(job.data.channel);
    if (!channel) return `no ${job.data.channel} channel on this controller`;
    await channel.deliver(event);
    return 'delivered';
  }
}
