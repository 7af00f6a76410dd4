import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { WarrenConfig } from '../config/config.js';
import type { QueueBackend } from '../queue/queue-backend.js';
import { RecurringJob } from '../queue/recurring-job.js';
import { QUEUE_BACKEND, WARREN_CONFIG } from '../runtime.js';
import { NotificationChannels } from './notification-channels.js';
import { NotificationSettingsRepository } from './notification-settings.repository.js';
import { NotificationEventsRepository } from './events/notification-events.repository.js';

/** Its own queue: a recurring job's worker fails every job name it does not know. */
export const NOTIFICATIONS_MAINTENANCE_QUEUE = 'notifications-maintenance';
export const NOTIFICATIONS_PRUNE_JOB = 'notifications.prune';
const DAY_MS = 86_400_000;

export interface NotificationsPruned {
  /** Outbox rows deleted. */
  events: number;
  /** Rows of each channel's own log deleted (the webhooks' delivery log). */
  channels: Record<string, number>;
}

/**
 * Keeps the outbox and the channels' logs bounded (docs/notifications.md, "Retention"): events
 * handed to the channels more than `retentionDays` ago (the setting, 30 by default) are deleted,
 * and so are the channels' older records. Runs on the history maintenance period
 * (WARREN_HISTORY_MAINTENANCE_MS, 60 s), once per tick across replicas; after the first run over
 * a long outbox each run deletes what aged out since the last.
 */
@Injectable()
export class NotificationsMaintenance implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly job: RecurringJob;

  constructor(
    @Inject(QUEUE_BACKEND) queues: QueueBackend,
    @Inject(WARREN_CONFIG) config: WarrenConfig,
    private readonly events: NotificationEventsRepository,
    private readonly channels: NotificationChannels,
    private readonly settings: NotificationSettingsRepository,
  ) {
    this.job = new RecurringJob(queues, new Logger('notifications'), {
      queue: NOTIFICATIONS_MAINTENANCE_QUEUE,
      name: NOTIFICATIONS_PRUNE_JOB,
      everyMs: config.intervals.historyMaintenanceMs,
      what: 'notification retention',
      run: () => this.prune(),
    });
  }

  onApplicationBootstrap(): void {
    this.job.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.job.stop();
  }

  /** One run, with the clock given (tests pass theirs). */
  async prune(now: Date = new Date()): Promise<NotificationsPruned> {
    const { retentionDays } = await this.settings.notify();
    const before = new Date(now.getTime() - retentionDays * DAY_MS);
    const channels: Record<string, number> = {};
    for (const channel of this.channels.list()) if (channel.prune) channels[channel.name] = await channel.prune(before);
    return { events: await this.events.prune(before), channels };
  }
}
