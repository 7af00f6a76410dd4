import { Inject, Injectable, Logger } from '@nestjs/common';
import { InputFile, type Api } from 'grammy';
import { ALL_CLIENTS } from '../auth/operator-scope.js';
import type { ClientView } from '../clients/client-view.js';
import { ClientsService } from '../clients/clients.service.js';
import { ProfilesService } from '../clients/profiles.service.js';
import type { WarrenConfig } from '../config/config.js';
import { WARREN_CONFIG } from '../runtime.js';
import { qrPng } from '../subscriptions/subscription-page.js';
import { SubscriptionsService } from '../subscriptions/subscriptions.service.js';
import { clientSummary, say } from './telegram-text.js';
import type { TelegramLanguage } from './telegram-settings.js';
import { TelegramRepository } from './telegram.repository.js';

/** More configs than this per client are left to the subscription page (a chat is not a file store). */
export const MAX_CONFIGS_PER_CLIENT = 10;

/** The facts a chat message shows of a client, from its API view. */
export const factsOf = (client: ClientView) => ({
  name: client.name,
  status: client.status,
  usedBytes: client.usedBytes,
  quotaBytes: client.quotaBytes > 0 ? client.quotaBytes : null,
  expiresAt: client.expiresAt,
});

/**
 * What a customer gets on /start: for each client whose `telegramId` is their Telegram user id,
 * its status, usage and expiry, the subscription link, and (while active) every device's config
 * as a file and as a QR code. Anyone else gets a polite refusal with nothing of any client in it.
 */
@Injectable()
export class CustomerReplies {
  private readonly logger = new Logger('telegram');

  constructor(
    private readonly repository: TelegramRepository,
    private readonly clients: ClientsService,
    private readonly profiles: ProfilesService,
    private readonly subscriptions: SubscriptionsService,
    @Inject(WARREN_CONFIG) private readonly config: WarrenConfig,
  ) {}

  /** `telegramId` is the sender's user id, never the chat's: only a private chat reaches here. */
  async start(api: Api, chatId: number, telegramId: number, language: TelegramLanguage): Promise<void> {
    const ids = await this.repository.clientsOf(telegramId);
    if (ids.length === 0) {
      await api.sendMessage(chatId, say(language, 'stranger', { id: telegramId }));
      return;
    }
    // Only a customer's language is kept (for their notifications): strangers leave no row.
    await this.repository.rememberLanguage(telegramId, language);
    for (const id of ids) {
      const client = await this.clients.get(id, ALL_CLIENTS);
      const lines = [say(language, 'greeting', { name: client.name }), clientSummary(factsOf(client), language)];
      const link = await this.linkOf(client.id);
      if (link) lines.push(say(language, 'link', { url: link }));
      await api.sendMessage(chatId, lines.join('\n\n'), { link_preview_options: { is_disabled: true } });
      if (client.status === 'active') await this.sendConfigs(api, chatId, client, language);
    }
    // The way out, as a command and as a button under the chat (its text reads as /stop).
    await api.sendMessage(chatId, say(language, 'stopHint'), {
      reply_markup: { keyboard: [[{ text: say(language, 'stopButton') }]], resize_keyboard: true },
    });
  }

  /**
   * /stop (or its button): asks first, with two buttons, since only the provider can link the
   * chat again. A stranger is told there is nothing to stop.
   */
  async askToStop(api: Api, chatId: number, telegramId: number, language: TelegramLanguage): Promise<void> {
    const names = await this.repository.clientNamesOf(telegramId);
    if (names.length === 0) {
      await api.sendMessage(chatId, say(language, 'notLinked'), { reply_markup: { remove_keyboard: true } });
      return;
    }
    await api.sendMessage(chatId, say(language, 'stopAsk', { names: names.join(', ') }), {
      reply_markup: {
        keyboard: [[{ text: say(language, 'stopYes') }, { text: say(language, 'stopNo') }]],
        resize_keyboard: true,
        one_time_keyboard: true,
      },
    });
  }

  /** The answer to the question: "yes" unlinks every client of this Telegram user, "no" changes nothing. */
  async answerStop(
    api: Api,
    chatId: number,
    telegramId: number,
    language: TelegramLanguage,
    unlink: boolean,
  ): Promise<void> {
    const removeKeyboard = { reply_markup: { remove_keyboard: true as const } };
    if (!unlink) {
      await api.sendMessage(chatId, say(language, 'stopKept'), removeKeyboard);
      return;
    }
    const names = await this.repository.unlink(telegramId);
    if (names.length === 0) {
      await api.sendMessage(chatId, say(language, 'notLinked'), removeKeyboard);
      return;
    }
    this.logger.log(`telegram user ${telegramId} unlinked their chat from ${names.length} client(s)`);
    await api.sendMessage(chatId, say(language, 'stopped', { names: names.join(', ') }), removeKeyboard);
  }

  private async sendConfigs(api: Api, chatId: number, client: ClientView, language: TelegramLanguage) {
    const configs = await this.profiles.knownClientConfigs(client.id, client.name);
    const profiles = configs.devices.flatMap((device) =>
      device.profiles.map((profile) => ({ device: device.deviceName, profile })),
    );
    if (profiles.length === 0) {
      await api.sendMessage(chatId, say(language, 'noConfigs'));
      return;
    }
    for (const { device, profile } of profiles.slice(0, MAX_CONFIGS_PER_CLIENT)) {
      const caption = say(language, 'configCaption', {
        device,
        label: `${profile.hostName} · ${profile.interfaceName}`,
      });
      await api.sendDocument(chatId, new InputFile(Buffer.from(profile.body, 'utf8'), profile.filename), { caption });
      await api.sendPhoto(chatId, new InputFile(await qrPng(profile.body), `${profile.filename}.png`), { caption });
    }
    if (profiles.length > MAX_CONFIGS_PER_CLIENT)
      await api.sendMessage(
        chatId,
        say(language, 'tooManyConfigs', { count: profiles.length - MAX_CONFIGS_PER_CLIENT }),
      );
  }

  /** The client's subscription link, when the panel knows the address people reach it on (WARREN_PUBLIC_URL). */
  private async linkOf(clientId: string): Promise<string | null> {
    if (!this.config.publicUrl) return null;
    try {
      return (await this.subscriptions.link(clientId, this.config.publicUrl, ALL_CLIENTS)).url;
    } catch (error) {
      this.logger.warn(`no subscription link for client ${clientId}: ${(error as Error).message}`);
      return null;
    }
  }
}
