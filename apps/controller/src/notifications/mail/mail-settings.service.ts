import { Injectable } from '@nestjs/common';
import { withTimeout } from '../../common/with-timeout.js';
import { assertPublicTarget } from '../../common/private-targets.js';
import { badRequest, conflict } from '../../http/api-error.js';
import { isHostAddress } from '../../http/validators.js';
import { SettingsService } from '../../settings/settings.service.js';
import { NotificationSettingsRepository } from '../notification-settings.repository.js';
import type { MailSettings } from '../notification-settings.js';
import type { MailSettingsDto, TestOutcomeDto, UpdateMailSettingsDto } from './dto/mail.dto.js';
import { sendMail } from './mail-sender.js';

/** How long the test mail may take before it counts as failed. */
const TEST_TIMEOUT_MS = 30_000;

const mailView = ({ password, ...rest }: MailSettings): MailSettingsDto => ({ ...rest, passwordSet: password !== '' });

/** SMTP settings (the password write-only) and the test mail (docs/notifications.md, "Mail"). */
@Injectable()
export class MailSettingsService {
  constructor(
    private readonly stored: NotificationSettingsRepository,
    private readonly settings: SettingsService,
  ) {}

  async mail(): Promise<MailSettingsDto> {
    return mailView(await this.stored.mail());
  }

  /** The fields given replace the stored ones, all or none; enabling needs a server and someone to mail. */
  async updateMail(body: UpdateMailSettingsDto): Promise<MailSettingsDto> {
    const next: MailSettings = { ...(await this.stored.mail()) };
    for (const [key, value] of Object.entries(body))
      if (value !== undefined) (next as unknown as Record<string, unknown>)[key] = value;
    if (body.host !== undefined && body.host !== '') {
      if (!isHostAddress(body.host))
        throw badRequest('host must be an IPv4 address, an IPv6 address or a hostname', 'host');
      if (!(await this.settings.get()).allowPrivateTargets) await assertPublicTarget(body.host, 'host', 'mail servers');
    }
    if (next.enabled && next.host === '') throw badRequest('mail cannot be enabled without a host', 'host');
    if (next.enabled && next.recipients.length === 0)
      throw badRequest('mail cannot be enabled without recipients', 'recipients');
    await this.stored.saveMail(next);
    return mailView(next);
  }

  async testMail(to: string | undefined): Promise<TestOutcomeDto> {
    const mail = await this.stored.mail();
    if (mail.host === '') throw conflict('mail is not set up: give a host first', 'host');
    const recipients = to ? [to] : mail.recipients;
    if (recipients.length === 0) throw badRequest('no recipients: give to, or set recipients', 'to');
    try {
      const { allowPrivateTargets } = await this.settings.get();
      await withTimeout(
        sendMail(
          mail,
          { to: recipients, subject: '[Warren] test mail', text: 'Mail from this Warren panel works.' },
          allowPrivateTargets,
        ),
        TEST_TIMEOUT_MS,
        'the mail server',
      );
      return { ok: true, error: null };
    } catch (error) {
      return { ok: false, error: (error as Error).message.slice(0, 500) };
    }
  }
}
