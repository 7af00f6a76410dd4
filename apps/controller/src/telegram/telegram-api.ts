import { Inject, Injectable } from '@nestjs/common';
import { Api, Bot } from 'grammy';
import type { WarrenConfig } from '../config/config.js';
import { WARREN_CONFIG } from '../runtime.js';

/**
 * How long one Bot API call may take before it counts as failed. A Telegram that hangs costs a
 * sender this long at most and never the panel's requests: nothing a route answers waits on it.
 */
export const SEND_TIMEOUT_SECONDS = 15;
/** getUpdates waits this long for an update before answering empty (long polling). */
export const POLL_WAIT_SECONDS = 25;

/** The Bot API clients, pointed at WARREN_TELEGRAM_API_ROOT (a test's stand-in, or a self-hosted server). */
@Injectable()
export class TelegramApi {
  private sender?: { token: string; api: Api };

  constructor(@Inject(WARREN_CONFIG) private readonly config: WarrenConfig) {}

  /** The client that sends (notifications, answers, backups): one per token, kept. */
  api(token: string): Api {
    if (this.sender?.token !== token) {
      this.sender = {
        token,
        api: new Api(token, { apiRoot: this.config.telegramApiRoot, timeoutSeconds: SEND_TIMEOUT_SECONDS }),
      };
    }
    return this.sender.api;
  }

  /** A bot that polls: its calls may wait a long poll's length on top of a send's. */
  bot(token: string): Bot {
    return new Bot(token, {
      client: { apiRoot: this.config.telegramApiRoot, timeoutSeconds: POLL_WAIT_SECONDS + SEND_TIMEOUT_SECONDS },
    });
  }
}
