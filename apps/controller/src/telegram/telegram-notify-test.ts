import { Injectable } from '@nestjs/common';
import { conflict } from '../http/api-error.js';
import type { NotifyTestDto } from './dto/telegram-settings.response.js';
import { TelegramApi } from './telegram-api.js';
import { languageOf, say } from './telegram-text.js';
import { TelegramSettingsService } from './telegram-settings.service.js';
import { TelegramRepository } from './telegram.repository.js';

/** POST /api/settings/notify/test: a message to every operator chat, and which ones Telegram refused. */
@Injectable()
export class TelegramNotifyTest {
  constructor(
    private readonly settings: TelegramSettingsService,
    private readonly repository: TelegramRepository,
    private readonly telegram: TelegramApi,
  ) {}

  async send(): Promise<NotifyTestDto> {
    const settings = await this.settings.read();
    if (!settings.enabled || !settings.token) throw conflict('the Telegram bot is off or has no token', 'enabled');
    if (settings.operatorChats.length === 0) throw conflict('no operator chat is set', 'operatorChats');
    const api = this.telegram.api(settings.token);
    const failures: string[] = [];
    for (const chat of settings.operatorChats) {
      const language = languageOf(await this.repository.languageOf(chat.chatId), settings.customerLanguage);
      try {
        await api.sendMessage(chat.chatId, say(language, 'test'));
      } catch (error) {
        failures.push(`${chat.chatId}: ${(error as Error).message}`);
      }
    }
    return { sent: settings.operatorChats.length - failures.length, failed: failures.length, failures };
  }
}
