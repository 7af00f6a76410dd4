import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { NOTIFICATION_CHANNEL_NAMES, NOTIFICATION_EVENT_KINDS } from '#libs/contracts/notification-events.js';
import { withTimeout } from '../common/with-timeout.js';
import type {
  ChannelTestDto,
  NotifySettingsDto,
  NotifyTestDto,
  UpdateNotifySettingsDto,
} from './dto/notify-settings.dto.js';
import { NotificationEventsRepository } from './events/notification-events.repository.js';
import { NotificationChannels } from './notification-channels.js';
import { NotificationSettingsRepository } from './notification-settings.repository.js';

/** How long a test may wait on one channel before it reports that channel as failed. */
const TEST_TIMEOUT_MS = 30_000;

/** Which channels carry which events, and the test through every channel (docs/notifications.md). */
@Injectable()
export class NotifySettingsService {
  constructor(
    private readonly stored: NotificationSettingsRepository,
    private readonly channels: NotificationChannels,
    private readonly events: NotificationEventsRepository,
  ) {}

  async notify(): Promise<NotifySettingsDto> {
    const { expiryNoticeDays, retentionDays, switches } = await this.stored.notify();
    return {
      expiryNoticeDays,
      retentionDays,
      switches: NOTIFICATION_EVENT_KINDS.flatMap((kind) =>
        NOTIFICATION_CHANNEL_NAMES.map((channel) => ({ kind, channel, enabled: switches[kind][channel] })),
      ),
      channels: this.channels.list().map((channel) => channel.name),
    };
  }

  async updateNotify(body: UpdateNotifySettingsDto): Promise<NotifySettingsDto> {
    const current = await this.stored.notify();
    if (body.expiryNoticeDays !== undefined) current.expiryNoticeDays = body.expiryNoticeDays;
    if (body.retentionDays !== undefined) current.retentionDays = body.retentionDays;
    for (const change of body.switches ?? []) current.switches[change.kind][change.channel] = change.enabled;
    await this.stored.saveNotify(current);
    return this.notify();
  }

  /**
   * A test event through every channel this panel has (whatever the switches say): each channel
   * reports on its own. Webhooks queue it for every enabled endpoint (the delivery log shows how
   * each answered); mail sends it when set up and enabled.
   */
  async testNotify(): Promise<NotifyTestDto> {
    const event = await this.events.insertTest({
      kind: 'panel.test',
      crossing: `panel.test:${randomUUID()}`,
      subject: { type: 'panel', id: 'panel', name: 'Warren' },
      details: { message: 'This is a test notification.' },
    });
    const channels: ChannelTestDto[] = await Promise.all(
      this.channels.list().map(async (channel) => {
        try {
          // A channel that is off or not set up says so, rather than "delivered" for nothing sent.
          const notReady = await channel.notReady();
          if (notReady) return { channel: channel.name, ok: false, error: notReady };
          await withTimeout(channel.deliver(event), TEST_TIMEOUT_MS, `the ${channel.name} channel`);
          return { channel: channel.name, ok: true, error: null };
        } catch (error) {
          return { channel: channel.name, ok: false, error: (error as Error).message.slice(0, 500) };
        }
      }),
    );
    return { eventId: event.id, channels };
  }
}
