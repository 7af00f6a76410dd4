import { Injectable } from '@nestjs/common';
import type { NotificationChannelName, NotificationEvent } from '#libs/contracts/notification-events.js';

/** One way of telling people (webhooks, Telegram, mail). `deliver` throws to be retried. */
export interface NotificationChannel {
  readonly name: NotificationChannelName;
  deliver(event: NotificationEvent): Promise<void>;
  /** Why this channel would send nothing now (off, not set up), or null when it would send. */
  notReady(): Promise<string | null>;
  /** Drops the channel's own records (a delivery log) older than `before`; answers how many went. */
  prune?(before: Date): Promise<number>;
}

/**
 * The channels present in this panel. Each channel's module registers itself at start-up, so the
 * dispatcher that records events needs no import of any channel (and a channel none of the
 * settings turn on costs nothing).
 */
@Injectable()
export class NotificationChannels {
  private readonly channels = new Map<NotificationChannelName, NotificationChannel>();

  register(channel: NotificationChannel): void {
    this.channels.set(channel.name, channel);
  }

  get(name: NotificationChannelName): NotificationChannel | undefined {
    return this.channels.get(name);
  }

  list(): NotificationChannel[] {
    return [...this.channels.values()];
  }
}
