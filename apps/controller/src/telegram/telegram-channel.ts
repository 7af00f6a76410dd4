import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { NotificationEvent } from '#libs/contracts/notification-events.js';
import { NotificationChannels, type NotificationChannel } from '../notifications/notification-channels.js';
import { TelegramApi } from './telegram-api.js';
import { eventMessage, languageOf } from './telegram-text.js';
import type { TelegramLanguage, TelegramSettings } from './telegram-settings.js';
import { TelegramSettingsService } from './telegram-settings.service.js';
import type { Operator } from './telegram.repository.js';
import { TelegramRepository } from './telegram.repository.js';

/** Client events a customer hears of about their own subscription. */
const CUSTOMER_KINDS = new Set<NotificationEvent['kind']>([
  'client.quota-80',
  'client.quota-95',
  'client.quota-exhausted',
  'client.expiring',
  'client.expired',
  'client.disabled',
  'client.enabled',
]);
/** How many (event, chat) pairs are remembered as delivered, so a retried event reaches only the chats it missed. */
const REMEMBERED = 10_000;

/** Which operator chats hear of an event (docs/telegram.md, "Who hears what"). */
export function hears(operator: Operator, event: NotificationEvent): boolean {
  // A sign-in or password event concerns one user: theirs and the owners' chats only.
  if (event.subject.type === 'admin') return operator.id === event.subject.id || operator.role === 'owner';
  // A reseller hears of their own clients and of nothing else (nodes, hops and backups are not theirs).
  if (operator.role === 'reseller') return event.ownerId !== null && event.ownerId === operator.id;
  return true;
}

/**
 * The Telegram channel (`deliver`, called by the notification dispatcher): each event goes to the
 * operator chats that may hear of it and, for a client's event, to the customer whose
 * `telegramId` it carries, in the language their app last said (else the panel's default). A
 * chat Telegram refuses or does not answer makes deliver throw (the dispatcher retries); the
 * chats already reached are not sent it again.
 */
@Injectable()
export class TelegramChannel implements NotificationChannel, OnApplicationBootstrap {
  readonly name = 'telegram' as const;
  private readonly delivered = new Set<string>();

  constructor(
    private readonly channels: NotificationChannels,
    private readonly settings: TelegramSettingsService,
    private readonly repository: TelegramRepository,
    private readonly telegram: TelegramApi,
  ) {}

  onApplicationBootstrap(): void {
    this.channels.register(this);
  }

  async notReady(): Promise<string | null> {
    const settings = await this.settings.read();
    if (!settings.enabled || !settings.token) return 'the Telegram bot is off or has no token';
    return settings.operatorChats.length === 0 ? 'no operator chat is set' : null;
  }

  async deliver(event: NotificationEvent): Promise<void> {
    const settings = await this.settings.read();
    if (!settings.enabled || !settings.token) return;
    const api = this.telegram.api(settings.token);
    const targets = await this.targets(settings, event);
    const failures: string[] = [];
    for (const [chatId, language] of targets) {
      const key = `${event.id}:${chatId}`;
      if (this.delivered.has(key)) continue;
      try {
        await api.sendMessage(chatId, eventMessage(event, language));
        this.remember(key);
      } catch (error) {
        failures.push(`${chatId}: ${(error as Error).message}`);
      }
    }
    if (failures.length > 0)
      throw new Error(`telegram: ${failures.length} of ${targets.size} chats not reached (${failures.join('; ')})`);
  }

  private async targets(settings: TelegramSettings, event: NotificationEvent): Promise<Map<number, TelegramLanguage>> {
    const targets = new Map<number, TelegramLanguage>();
    for (const [chatId, operator] of await this.settings.operatorsByChat(settings)) {
      if (hears(operator, event)) targets.set(chatId, await this.languageOf(chatId, settings));
    }
    const customer = event.telegramId === null ? NaN : Number(event.telegramId);
    if (
      CUSTOMER_KINDS.has(event.kind) &&
      Number.isSafeInteger(customer) &&
      customer > 0 &&
      !targets.has(customer) &&
      // Still linked: a customer who sent /stop (or whose id an operator cleared) hears nothing more.
      (await this.repository.isLinked(event.subject.id, customer))
    )
      targets.set(customer, await this.languageOf(customer, settings));
    return targets;
  }

  private async languageOf(chatId: number, settings: TelegramSettings): Promise<TelegramLanguage> {
    return languageOf(await this.repository.languageOf(chatId), settings.customerLanguage);
  }

  private remember(key: string): void {
    this.delivered.add(key);
    if (this.delivered.size > REMEMBERED) this.delivered.delete(this.delivered.values().next().value!);
  }
}
