import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import pg from 'pg';
import type { Bot } from 'grammy';
import { PANEL_RUNTIME, type PanelRuntime } from '../runtime.js';
import { POLL_WAIT_SECONDS, TelegramApi } from './telegram-api.js';
import type { TelegramSettings } from './telegram-settings.js';
import { TelegramSettingsService } from './telegram-settings.service.js';
import { TelegramUpdates } from './telegram-updates.js';

/** How often a controller that does not poll checks whether it should (settings changed elsewhere, the poller died). */
export const ELECTION_EVERY_MS = 10_000;
/** After a failed getUpdates the next waits this long, doubling up to the longest. */
const FIRST_BACKOFF_MS = 500;
const LONGEST_BACKOFF_MS = 15_000;
const LOCK_NAME = 'warren.telegram';
type GrammySignal = Parameters<Bot['init']>[0];

interface Polling {
  token: string;
  bot: Bot;
  stop: AbortController;
  done: Promise<void>;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

/**
 * Long polling (getUpdates: the panel needs no public address), by one controller at a time:
 * Telegram answers one getUpdates per bot, so the controller holding a PostgreSQL session
 * advisory lock on a connection of its own polls, the others check every ELECTION_EVERY_MS and
 * take over when that connection ends (its controller stopped or died). Failures of Telegram
 * (errors, hangs) wait and retry inside this loop; no request of the panel waits on it.
 */
@Injectable()
export class TelegramPoller implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('telegram');
  private lock?: pg.Client;
  private polling?: Polling;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private closed = false;

  constructor(
    @Inject(PANEL_RUNTIME) private readonly runtime: PanelRuntime,
    private readonly settings: TelegramSettingsService,
    private readonly api: TelegramApi,
    private readonly updates: TelegramUpdates,
  ) {}

  onApplicationBootstrap(): void {
    this.settings.onChange(() => this.reconcile());
    void this.reconcile();
    this.timer = setInterval(() => void this.reconcile(), ELECTION_EVERY_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.running;
    await this.stopPolling();
    await this.releaseLock();
  }

  /** Whether this controller is the one polling (GET /api/settings/telegram does not say; tests and logs do). */
  get isPolling(): boolean {
    return this.polling !== undefined;
  }

  /** Brings polling in line with the settings and the lock; runs one at a time, again if asked meanwhile. */
  reconcile(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        try {
          await this.reconcileOnce();
        } catch (error) {
          this.logger.warn(`telegram bot: ${(error as Error).message}`);
        }
      } while (this.again && !this.closed);
    })().finally(() => (this.running = undefined));
    return this.running;
  }

  private async reconcileOnce(): Promise<void> {
    if (this.closed) return;
    const settings: TelegramSettings = await this.settings.read();
    const token = settings.enabled ? settings.token : null;
    if (!token) {
      await this.stopPolling();
      await this.releaseLock();
      return;
    }
    if (this.polling?.token === token) return;
    await this.stopPolling();
    if (!(await this.holdLock())) return;
    this.startPolling(token);
  }

  private async holdLock(): Promise<boolean> {
    if (this.lock) return true;
    const client = new pg.Client({ connectionString: this.runtime.databaseUrl });
    client.on('error', () => undefined);
    await client.connect();
    const { rows } = await client.query<{ locked: boolean }>('select pg_try_advisory_lock(hashtext($1)) as locked', [
      LOCK_NAME,
    ]);
    if (!rows[0].locked) {
      await client.end().catch(() => undefined);
      return false;
    }
    // The lock lives as long as this connection: when it breaks another controller may poll.
    client.on('end', () => {
      if (this.lock !== client) return;
      this.lock = undefined;
      this.logger.warn('telegram bot: lost the polling lock (database connection ended); stopping');
      void this.stopPolling();
    });
    this.lock = client;
    return true;
  }

  private async releaseLock(): Promise<void> {
    const client = this.lock;
    this.lock = undefined;
    await client?.end().catch(() => undefined);
  }

  private startPolling(token: string): void {
    const bot = this.api.bot(token);
    bot.on('message', (ctx) => this.updates.message(this.api.api(token), ctx.message, ctx.update.update_id));
    const stop = new AbortController();
    const polling: Polling = { token, bot, stop, done: Promise.resolve() };
    polling.done = this.loop(bot, stop.signal);
    this.polling = polling;
    this.logger.log('telegram bot: polling');
  }

  private async stopPolling(): Promise<void> {
    const polling = this.polling;
    this.polling = undefined;
    if (!polling) return;
    polling.stop.abort();
    await polling.done;
  }

  private async loop(bot: Bot, signal: AbortSignal): Promise<void> {
    // grammY's Node typings name the abort-controller package's AbortSignal; Node's own is the same thing.
    const botSignal = signal as unknown as GrammySignal;
    let offset = 0;
    let backoff = FIRST_BACKOFF_MS;
    while (!signal.aborted) {
      try {
        if (!bot.isInited()) await bot.init(botSignal);
        const updates = await bot.api.getUpdates(
          { offset, timeout: POLL_WAIT_SECONDS, allowed_updates: ['message'] },
          botSignal,
        );
        backoff = FIRST_BACKOFF_MS;
        for (const update of updates) {
          offset = update.update_id + 1;
          // One update that fails (a refusal to send, a database hiccup) is logged and not retried.
          await bot
            .handleUpdate(update)
            .catch((error: Error) =>
              this.logger.warn(`telegram bot: update ${update.update_id} failed: ${error.message}`),
            );
        }
      } catch (error) {
        if (signal.aborted) return;
        this.logger.warn(`telegram bot: getUpdates failed (${(error as Error).message}); retrying in ${backoff} ms`);
        await sleep(backoff, signal);
        backoff = Math.min(backoff * 2, LONGEST_BACKOFF_MS);
      }
    }
  }
}
