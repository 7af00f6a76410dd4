import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { NotificationEvent } from '#libs/contracts/notification-events.js';
import { SettingsService } from '../../settings/settings.service.js';
import { NotificationChannels, type NotificationChannel } from '../notification-channels.js';
import { NotificationSettingsRepository } from '../notification-settings.repository.js';
import { sendMail } from './mail-sender.js';

/** An event as a mail for operators: the kind and subject in the subject line, every fact on its own line. */
export function eventMail(event: NotificationEvent): { subject: string; text: string } {
  const facts = Object.entries(event.details).map(([key, value]) => `${key}: ${String(value)}`);
  return {
    subject: `[Warren] ${event.kind}: ${event.subject.type} ${event.subject.name}`,
    text: [
      `${event.kind} at ${event.occurredAt}`,
      `${event.subject.type}: ${event.subject.name} (${event.subject.id})`,
      ...facts,
      '',
      `event id: ${event.id}`,
    ].join('\n'),
  };
}

/** The mail channel: SMTP to the operators' recipients; nothing at all until mail is set up and enabled. */
@Injectable()
export class MailChannel implements NotificationChannel, OnModuleInit {
  readonly name = 'mail' as const;

  constructor(
    private readonly channels: NotificationChannels,
    private readonly notificationSettings: NotificationSettingsRepository,
    private readonly settings: SettingsService,
  ) {}

  onModuleInit(): void {
    this.channels.register(this);
  }

  async notReady(): Promise<string | null> {
    const mail = await this.notificationSettings.mail();
    if (!mail.enabled) return 'mail is off';
    if (!mail.host) return 'no mail server is set';
    return mail.recipients.length === 0 ? 'no recipient is set' : null;
  }

  async deliver(event: NotificationEvent): Promise<void> {
    const mail = await this.notificationSettings.mail();
    if (!mail.enabled || !mail.host || mail.recipients.length === 0) return;
    const { allowPrivateTargets } = await this.settings.get();
    await sendMail(mail, { to: mail.recipients, ...eventMail(event) }, allowPrivateTargets);
  }
}
