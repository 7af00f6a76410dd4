import { Injectable } from '@nestjs/common';
import { badRequest } from '../http/api-error.js';
import type { UpdateTelegramSettingsDto } from './dto/telegram-settings.dto.js';
import type { TelegramSettingsDto } from './dto/telegram-settings.response.js';
import { storedTelegramSettings, type TelegramSettings } from './telegram-settings.js';
import { TelegramRepository, type Operator } from './telegram.repository.js';

type Listener = (settings: TelegramSettings) => void | Promise<void>;

/** The bot's settings: read with defaults, written whole after validation, never shown with the token. */
@Injectable()
export class TelegramSettingsService {
  private readonly listeners: Listener[] = [];

  constructor(private readonly repository: TelegramRepository) {}

  async read(): Promise<TelegramSettings> {
    return storedTelegramSettings(await this.repository.readSettings());
  }

  async view(): Promise<TelegramSettingsDto> {
    return this.viewOf(await this.read());
  }

  /**
   * Fields given replace the stored ones. Each operator chat must name an existing user and each
   * chat may speak for one user only; the bot cannot be on without a token.
   */
  async update(changes: UpdateTelegramSettingsDto): Promise<TelegramSettingsDto> {
    const current = await this.read();
    const next: TelegramSettings = {
      enabled: changes.enabled ?? current.enabled,
      token: changes.token === undefined ? current.token : changes.token,
      operatorChats: changes.operatorChats?.map(({ chatId, userId }) => ({ chatId, userId })) ?? current.operatorChats,
      customerLanguage: changes.customerLanguage ?? current.customerLanguage,
      sendBackups: changes.sendBackups ?? current.sendBackups,
      backupMaxBytes: changes.backupMaxBytes ?? current.backupMaxBytes,
    };
    if (next.enabled && !next.token) throw badRequest('the bot needs a token before it can be enabled', 'token');
    if (changes.operatorChats) {
      const chats = new Set<number>();
      for (const [index, chat] of next.operatorChats.entries()) {
        if (chats.has(chat.chatId))
          throw badRequest(`chat ${chat.chatId} is given twice`, `operatorChats[${index}].chatId`);
        chats.add(chat.chatId);
      }
      const known = new Set(
        (await this.repository.operators(next.operatorChats.map((c) => c.userId))).map((u) => u.id),
      );
      const unknown = next.operatorChats.findIndex((chat) => !known.has(chat.userId));
      if (unknown >= 0) throw badRequest('no such user', `operatorChats[${unknown}].userId`);
    }
    await this.repository.writeSettings(next);
    for (const listener of this.listeners) await listener(next);
    return this.viewOf(next);
  }

  /** The users the chats speak for, by chat id (enabled users only: a disabled user's chat does nothing). */
  async operatorsByChat(settings: TelegramSettings): Promise<Map<number, Operator>> {
    const users = new Map(
      (await this.repository.operators(settings.operatorChats.map((chat) => chat.userId))).map((u) => [u.id, u]),
    );
    const result = new Map<number, Operator>();
    for (const chat of settings.operatorChats) {
      const user = users.get(chat.userId);
      if (user?.enabled) result.set(chat.chatId, user);
    }
    return result;
  }

  /** Called after every successful change on this controller (the poller starts, stops or changes bots). */
  onChange(listener: Listener): void {
    this.listeners.push(listener);
  }

  private async viewOf(settings: TelegramSettings): Promise<TelegramSettingsDto> {
    const users = new Map(
      (await this.repository.operators(settings.operatorChats.map((chat) => chat.userId))).map((u) => [u.id, u]),
    );
    return {
      enabled: settings.enabled,
      tokenSet: settings.token !== null,
      operatorChats: settings.operatorChats.map((chat) => ({
        chatId: chat.chatId,
        userId: chat.userId,
        username: users.get(chat.userId)?.username ?? null,
        role: users.get(chat.userId)?.role ?? null,
      })),
      customerLanguage: settings.customerLanguage,
      sendBackups: settings.sendBackups,
      backupMaxBytes: settings.backupMaxBytes,
    };
  }
}
