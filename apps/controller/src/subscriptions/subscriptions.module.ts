import { Module } from '@nestjs/common';
import { LoginThrottleRepository } from '../auth/login-throttle.repository.js';
import { ClientsModule } from '../clients/clients.module.js';
import { SubscriptionsController } from './subscriptions.controller.js';
import { SubscriptionsRepository } from './subscriptions.repository.js';
import { SubscriptionsService } from './subscriptions.service.js';

/**
 * Subscription links: each client's public page (`<base>/sub/{token}`, registered by panel.ts
 * through public-links.ts), its settings, and one-time download links. Renders configs with the
 * clients module's ProfilesService; throttles guessing with the sign-in throttle's counters.
 */
@Module({
  imports: [ClientsModule],
  controllers: [SubscriptionsController],
  providers: [SubscriptionsRepository, SubscriptionsService, LoginThrottleRepository],
  exports: [SubscriptionsService],
})
export class SubscriptionsModule {}
