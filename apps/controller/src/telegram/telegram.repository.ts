import { Inject, Injectable } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import type { UserRole } from '#libs/contracts/user-roles.js';
import { TELEGRAM_SETTINGS_KEY } from './telegram-settings.js';

/** A panel user a chat may speak for. */
export interface Operator {
  id: string;
  username: string;
  role: UserRole;
  /** A disabled user's chats do nothing (their sessions and tokens are refused too). */
  enabled: boolean;
}

/** The bot's SQL: its settings row, the users its chats speak for, customers and their languages. */
@Injectable()
export class TelegramRepository {
  constructor(@Inject(MikroORM) private readonly orm: MikroORM) {}

  async readSettings(): Promise<unknown> {
    const rows = await this.orm.em
      .fork()
      .execute<{ value: unknown }[]>('select value from settings where key = ?', [TELEGRAM_SETTINGS_KEY]);
    return rows[0]?.value;
  }

  async writeSettings(value: unknown): Promise<void> {
    await this.orm.em.fork().execute(
      `insert into settings (key, value, updated_at) values (?, ?::jsonb, now())
         on conflict (key) do update set value = excluded.value, updated_at = excluded.updated_at`,
      [TELEGRAM_SETTINGS_KEY, JSON.stringify(value)],
    );
  }

  async operators(ids: string[]): Promise<Operator[]> {
    if (ids.length === 0) return [];
    return this.orm.em
      .fork()
      .execute<Operator[]>('select id, username, role, enabled from users where id = any(?::uuid[])', [
        `{${ids.join(',')}}`,
      ]);
  }

  /** The clients whose `telegramId` is this Telegram user's id (usually one). */
  async clientsOf(telegramId: number): Promise<string[]> {
    const rows = await this.orm.em
      .fork()
      .execute<{ id: string }[]>('select id from clients where telegram_id = ? order by created_at', [telegramId]);
    return rows.map((row) => row.id);
  }

  /** The names of the clients linked to this Telegram user, for the /stop question. */
  async clientNamesOf(telegramId: number): Promise<string[]> {
    const rows = await this.orm.em
      .fork()
      .execute<{ name: string }[]>('select name from clients where telegram_id = ? order by created_at', [telegramId]);
    return rows.map((row) => row.name);
  }

  /** Whether the client is still linked to this Telegram user (an event recorded before an unlink is not sent). */
  async isLinked(clientId: string, telegramId: number): Promise<boolean> {
    const rows = await this.orm.em
      .fork()
      .execute('select 1 from clients where id = ? and telegram_id = ?', [clientId, telegramId]);
    return rows.length > 0;
  }

  /**
   * A customer's /stop: every client linked to them forgets their Telegram id (as an operator's
   * PATCH with `telegramId: null` does), and their kept language goes. Answers the clients' names.
   */
  async unlink(telegramId: number): Promise<string[]> {
    return this.orm.em.fork().transactional(async (em) => {
      const rows = await em.execute<{ name: string }[]>(
        'update clients set telegram_id = null, updated_at = now() where telegram_id = ? returning name',
        [telegramId],
      );
      await em.execute('delete from telegram_users where telegram_id = ?', [telegramId]);
      return rows.map((row) => row.name);
    });
  }

  async rememberLanguage(telegramId: number, language: string): Promise<void> {
    await this.orm.em.fork().execute(
      `insert into telegram_users (telegram_id, language, seen_at) values (?, ?, now())
         on conflict (telegram_id) do update set language = excluded.language, seen_at = excluded.seen_at`,
      [telegramId, language],
    );
  }

  async languageOf(telegramId: number): Promise<string | undefined> {
    const rows = await this.orm.em
      .fork()
      .execute<{ language: string }[]>('select language from telegram_users where telegram_id = ?', [telegramId]);
    return rows[0]?.language;
  }
}
