import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module.js';
import { BackupsModule } from '../backups/backups.module.js';
import { ClientsModule } from '../clients/clients.module.js';
import { SubscriptionsModule } from '../subscriptions/subscriptions.module.js';
import { BackupSender } from './backup-sender.js';
import { CustomerReplies } from './customer-replies.js';
import { OperatorActions } from './operator-actions.js';
import { OperatorCommands } from './operator-commands.js';
import { TelegramApi } from './telegram-api.js';
import { TelegramChannel } from './telegram-channel.js';
import { TelegramPoller } from './telegram-poller.js';
import { TelegramSettingsService } from './telegram-settings.service.js';
import { TelegramUpdates } from './telegram-updates.js';
import { TelegramController } from './telegram.controller.js';
import { TelegramRepository } from './telegram.repository.js';

/**
 * The Telegram bot (docs/telegram.md): customers' /start, operators' commands, the `telegram`
 * notification channel and backups to the owner. Exports TelegramSettingsService (the audit log
 * reads it for old values) and TelegramChannel (tests deliver through it).
 */
@Module({
  imports: [AuditModule, BackupsModule, ClientsModule, SubscriptionsModule],
  controllers: [TelegramController],
  providers: [
    TelegramRepository,
    TelegramSettingsService,
    TelegramApi,
    CustomerReplies,
    OperatorActions,
    OperatorCommands,
    TelegramUpdates,
    TelegramPoller,
    TelegramChannel,
    BackupSender,
  ],
  exports: [TelegramSettingsService, TelegramChannel, TelegramPoller],
})
export class TelegramModule {}
