import { Inject, Injectable } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { Setting } from '../settings/setting.entity.js';
import {
  readMailSettings,
  readNotifySettings,
  type MailSettings,
  type NotifySettings,
} from './notification-settings.js';

const NOTIFY_KEY = 'notify';
const MAIL_KEY = 'mail';

/**
 * The notification settings, kept as two rows of the panel's settings table (so backups carry
 * them) but outside GET /api/settings: the mail password must never be in an answer every role
 * reads.
 */
@Injectable()
export class NotificationSettingsRepository {
  constructor(@Inject(MikroORM) private readonly orm: MikroORM) {}

  private async read(key: string): Promise<unknown> {
    const row = await this.orm.em.fork().findOne(Setting, { key });
    return row?.value;
  }

  private async write(key: string, value: unknown): Promise<void> {
    await this.orm.em.fork().upsert(Setting, { key, value, updatedAt: new Date() });
  }

  async notify(): Promise<NotifySettings> {
    return readNotifySettings(await this.read(NOTIFY_KEY));
  }

  saveNotify(settings: NotifySettings): Promise<void> {
    return this.write(NOTIFY_KEY, settings);
  }

  async mail(): Promise<MailSettings> {
    return readMailSettings(await this.read(MAIL_KEY));
  }

  saveMail(settings: MailSettings): Promise<void> {
    return this.write(MAIL_KEY, settings);
  }
}
