import { Module } from '@nestjs/common';
import { SettingsModule } from '../../settings/settings.module.js';
import { WebhookChannel } from './webhook-channel.js';
import { WebhookDeliveries } from './webhook-deliveries.js';
import { WebhooksController } from './webhooks.controller.js';
import { WebhooksRepository } from './webhooks.repository.js';
import { WebhooksService } from './webhooks.service.js';

/** The webhook channel: endpoints, their API, and the queue worker that posts to them. */
@Module({
  imports: [SettingsModule],
  controllers: [WebhooksController],
  providers: [WebhooksRepository, WebhooksService, WebhookChannel, WebhookDeliveries],
})
export class WebhooksModule {}
