import { Module } from '@nestjs/common';
import { SettingsModule } from '../../settings/settings.module.js';
import { MailChannel } from './mail-channel.js';
import { MailSettingsController } from './mail-settings.controller.js';
import { MailSettingsService } from './mail-settings.service.js';

/** The mail channel: SMTP settings, their test, and the channel that mails events to the operators. */
@Module({
  imports: [SettingsModule],
  controllers: [MailSettingsController],
  providers: [MailSettingsService, MailChannel],
})
export class MailModule {}
