import { Injectable } from '@nestjs/common';
import type { Api } from 'grammy';
import type { Message } from 'grammy/types';
import { CustomerReplies } from './customer-replies.js';
import { OperatorCommands } from './operator-commands.js';
import { customerButton, languageOf } from './telegram-text.js';
import { TelegramSettingsService } from './telegram-settings.service.js';
import { TelegramRepository } from './telegram.repository.js';

/** `/command@botname rest` → ['command', 'rest']; null for text that is not a command. */
export function parseCommand(text: string): { command: string; args: string } | null {
  const match = /^\/([A-Za-z_]+)(?:@\w+)?(?:\s+([\s\S]*))?$/.exec(text.trim());
  return match ? { command: match[1].toLowerCase(), args: (match[2] ?? '').trim() } : null;
}

/**
 * Routes one incoming message: a chat registered to an operator gets the operator's commands
 * (docs/telegram.md); any other private chat is a customer, known by their Telegram user id.
 * Group chats that are not an operator's are ignored: configs are never posted where others read.
 */
@Injectable()
export class TelegramUpdates {
  constructor(
    private readonly settings: TelegramSettingsService,
    private readonly customers: CustomerReplies,
    private readonly operators: OperatorCommands,
    private readonly repository: TelegramRepository,
  ) {}

  async message(api: Api, message: Message, updateId: number): Promise<void> {
    const text = message.text;
    if (!text || !message.from || message.from.is_bot) return;
    const settings = await this.settings.read();
    const command = parseCommand(text);
    const chatId = message.chat.id;
    const operator = (await this.settings.operatorsByChat(settings)).get(chatId);
    const language = languageOf(message.from.language_code, settings.customerLanguage);
    if (operator) {
      if (message.chat.type === 'private') await this.repository.rememberLanguage(message.from.id, language);
      await this.operators.handle(api, operator, {
        chatId,
        updateId,
        command: command?.command ?? '',
        args: command?.args ?? '',
        language,
      });
      return;
    }
    if (message.chat.type !== 'private') return;
    if (command?.command === 'start' || command?.command === 'status') {
      await this.customers.start(api, chatId, message.from.id, language);
      return;
    }
    const button = command ? null : customerButton(text);
    if (command?.command === 'stop' || button === 'stop') {
      await this.customers.askToStop(api, chatId, message.from.id, language);
      return;
    }
    if (button === 'unlink' || button === 'keep') {
      await this.customers.answerStop(api, chatId, message.from.id, language, button === 'unlink');
      return;
    }
    // Anything else from a customer (or a stranger) is left unanswered: /start says all there is.
  }
}
