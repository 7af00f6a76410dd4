import { Global, Module } from '@nestjs/common';
import { NotificationDispatcher } from './notification-dispatcher.js';
import { NotificationEvents } from './events/notification-events.js';
import { NotificationEventsRepository } from './events/notification-events.repository.js';
import { NotificationChannels } from './notification-channels.js';
import { NotificationSettingsRepository } from './notification-settings.repository.js';
import { NotificationsMaintenance } from './notifications-maintenance.js';
import { NotifySettingsController } from './notify-settings.controller.js';
import { NotifySettingsService } from './notify-settings.service.js';

/**
 * Events worth telling people about and the channels that carry them (docs/notifications.md).
 * Global: every domain records its events through NotificationEvents, and each channel's module
 * (webhooks/, mail/, Telegram's) registers with NotificationChannels at start-up.
 */
@Global()
@Module({
  controllers: [NotifySettingsController],
  providers: [
    NotificationChannels,
    NotificationEvents,
    NotificationEventsRepository,
    NotificationSettingsRepository,
    NotificationDispatcher,
    NotificationsMaintenance,
    NotifySettingsService,
  ],
  exports: [NotificationChannels, NotificationEvents, NotificationEventsRepository, NotificationSettingsRepository],
})
export class NotificationsModule {}
