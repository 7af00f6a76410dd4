import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * A Telegram user who wrote to the bot, and the language their app said it speaks: notifications
 * sent to them later (when they did not just write) go out in it (docs/telegram.md).
 */
export const TelegramUser = defineEntity({
  name: 'TelegramUser',
  tableName: 'telegram_users',
  properties: {
    telegramId: p.bigint('number').primary().autoincrement(false),
    language: p.string().length(8),
    seenAt: p.datetime(),
  },
});
export type TelegramUser = InferEntity<typeof TelegramUser>;
