import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { InputFile } from 'grammy';
import { BackupJobs } from '../backups/backup-jobs.js';
import { BackupStore } from '../backups/backup-store.js';
import { TelegramApi } from './telegram-api.js';
import { bytes, languageOf, say } from './telegram-text.js';
import { TelegramSettingsService } from './telegram-settings.service.js';
import { TelegramRepository } from './telegram.repository.js';

/**
 * With `sendBackups` on, each new archive goes to the chats registered to an owner (only the
 * owner may download backups over the API either). An archive above `backupMaxBytes` is announced
 * instead. Runs after the backup job finished, on its controller, and never fails the job.
 */
@Injectable()
export class BackupSender implements OnApplicationBootstrap {
  private readonly logger = new Logger('telegram');

  constructor(
    private readonly jobs: BackupJobs,
    private readonly store: BackupStore,
    private readonly settings: TelegramSettingsService,
    private readonly repository: TelegramRepository,
    private readonly telegram: TelegramApi,
  ) {}

  onApplicationBootstrap(): void {
    this.jobs.onBackupMade((name) => {
      void this.send(name).catch((error: Error) =>
        this.logger.warn(`backup ${name} was not sent to Telegram: ${error.message}`),
      );
    });
  }

  /** Sends the archive to every owner chat; answers how many chats got it. */
  async send(name: string): Promise<number> {
    const settings = await this.settings.read();
    if (!settings.enabled || !settings.token || !settings.sendBackups) return 0;
    const backup = await this.store.get(name);
    const path = this.store.pathOf(name);
    if (!backup || !path) return 0;
    const api = this.telegram.api(settings.token);
    let sent = 0;
    for (const [chatId, operator] of await this.settings.operatorsByChat(settings)) {
      if (operator.role !== 'owner') continue;
      const language = languageOf(await this.repository.languageOf(chatId), settings.customerLanguage);
      const size = bytes(backup.size, language);
      if (backup.size > settings.backupMaxBytes) {
        const limit = bytes(settings.backupMaxBytes, language);
        await api.sendMessage(chatId, say(language, 'backupTooLarge', { name, size, limit }));
      } else {
        await api.sendDocument(chatId, new InputFile(path, name), {
          caption: say(language, 'backupMade', { name, size }),
        });
      }
      sent++;
    }
    return sent;
  }
}
