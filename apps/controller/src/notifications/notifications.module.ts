import { Global, Module } from '@nestjs/common';
import { NotificationChannels } from './notification-channels.js';

/** Events worth telling people about and the channels that carry them (docs/notifications.md). */
@Global()
@Module({
  providers: [NotificationChannels],
  exports: [NotificationChannels],
})
export class NotificationsModule {}
