import { z } from 'zod';

/** The settings row (settings/ owns the table; this key is the Telegram module's). */
export const TELEGRAM_SETTINGS_KEY = 'telegram';

export const TELEGRAM_LANGUAGES = ['en', 'fa'] as const;
export type TelegramLanguage = (typeof TELEGRAM_LANGUAGES)[number];

/** A chat that speaks for an operator: what it may do is what that user's role may (docs/telegram.md). */
export interface OperatorChat {
  /** Telegram's chat id (a private chat's id is the person's user id; groups are negative). */
  chatId: number;
  /** The panel user it speaks for. */
  userId: string;
}

export interface TelegramSettings {
  enabled: boolean;
  /** The bot's token from @BotFather: never in an answer, only whether one is set. */
  token: string | null;
  operatorChats: OperatorChat[];
  /** The language a customer is answered in when Telegram does not say theirs. */
  customerLanguage: TelegramLanguage;
  /** Each backup archive goes to the owner's chats (those registered to an owner). */
  sendBackups: boolean;
  /** Archives larger than this are announced, not sent (the Bot API takes 50 MB at most). */
  backupMaxBytes: number;
}

export const TELEGRAM_BOUNDS = {
  operatorChats: 50,
  backupMaxBytes: { min: 1024, max: 50 * 1024 * 1024 },
  tokenLength: 128,
} as const;

export const DEFAULT_TELEGRAM_SETTINGS: Readonly<TelegramSettings> = Object.freeze({
  enabled: false,
  token: null,
  operatorChats: [],
  customerLanguage: 'en',
  sendBackups: false,
  backupMaxBytes: 45 * 1024 * 1024,
});

/** A bot token as @BotFather issues them: `<bot id>:<secret>`. */
export const BOT_TOKEN_PATTERN = /^\d{1,20}:[A-Za-z0-9_-]{20,100}$/;

const stored = z.object({
  enabled: z.boolean(),
  token: z.string().regex(BOT_TOKEN_PATTERN).nullable(),
  operatorChats: z
    .array(z.object({ chatId: z.number().int().refine(Number.isSafeInteger), userId: z.uuid() }))
    .max(TELEGRAM_BOUNDS.operatorChats),
  customerLanguage: z.enum(TELEGRAM_LANGUAGES),
  sendBackups: z.boolean(),
  backupMaxBytes: z.number().int().min(TELEGRAM_BOUNDS.backupMaxBytes.min).max(TELEGRAM_BOUNDS.backupMaxBytes.max),
});

/** The stored value field by field: a field that is not what it must be (a damaged restore) reads as its default. */
export function storedTelegramSettings(value: unknown): TelegramSettings {
  const given = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  const result: Record<string, unknown> = { ...DEFAULT_TELEGRAM_SETTINGS };
  for (const [key, schema] of Object.entries(stored.shape)) {
    const parsed = (schema as z.ZodType).safeParse(given[key]);
    if (parsed.success) result[key] = parsed.data;
  }
  return result as unknown as TelegramSettings;
}
