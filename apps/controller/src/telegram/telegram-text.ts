import type { NotificationEvent } from '#libs/contracts/notification-events.js';
import type { ClientStatus } from '../clients/client.entity.js';
import { formatBytes, formatDate } from '../subscriptions/subscription-page.js';
import { PAGE_TEXT, type PageLocale } from '../subscriptions/page-text.js';
import type { TelegramLanguage } from './telegram-settings.js';

/**
 * What the bot says, in English and Persian. Customers' words (status, usage, expiry) are the
 * subscription page's own (subscriptions/page-text.ts), so the page and the bot never disagree;
 * the bot's own sentences are here, Persian typed against English's keys.
 */
const BOT_TEXT_EN = {
  stranger:
    'Sorry, this Telegram account is not linked to a subscription here. Ask your provider to add your Telegram id: {id}',
  greeting: 'Hello {name}!',
  link: 'Subscription link: {url}',
  configCaption: '{device}: {label}',
  noConfigs: 'No configs yet.',
  tooManyConfigs: '{count} more configs are on your subscription page.',
  operatorHelp:
    'Commands: /find <name> · /client <name> · /extend <name> <days> · /reset <name> · /disable <name> · /enable <name>',
  notFound: 'No client named "{name}" that you can see.',
  ambiguous: 'Several clients match "{name}": {names}. Use the exact name.',
  found: 'Clients matching "{text}": {names}',
  foundNone: 'No client matches "{text}".',
  readOnly: 'Your role ({role}) may only read clients.',
  badDays: 'Give a number of days from 1 to 3650: /extend <name> <days>',
  extended: '{name} now expires {date}.',
  reset: "{name}'s traffic is reset to zero.",
  disabled: '{name} is disabled.',
  enabled: '{name} is enabled.',
  refused: 'Refused: {error}',
  failed: 'That did not work; nothing was changed. Try again later.',
  backupMade: 'Backup {name} ({size}).',
  backupTooLarge: 'Backup {name} is {size}, above the {limit} the settings let the bot send: fetch it from the panel.',
  stopHint: 'To stop these messages and unlink this chat, send /stop.',
  stopButton: 'Stop notifications',
  stopAsk:
    'Unlink this Telegram account from {names}? You will get no more notifications here, and /start will no longer show your subscription. Your provider can link it again.',
  stopYes: 'Yes, unlink',
  stopNo: 'No, keep it',
  stopped:
    'Done: this chat is unlinked from {names} and gets no more notifications. Ask your provider to link it again.',
  stopKept: 'Nothing changed: you still get your notifications here.',
  notLinked: 'This Telegram account is not linked to a subscription here: there is nothing to stop.',
};
type BotText = typeof BOT_TEXT_EN;

const BOT_TEXT_FA: BotText = {
  stranger:
    'متأسفیم، این حساب تلگرام به هیچ اشتراکی در اینجا وصل نیست. از ارائه‌دهندهٔ خود بخواهید شناسهٔ تلگرام شما را اضافه کند: {id}',
  greeting: 'سلام {name}!',
  link: 'لینک اشتراک: {url}',
  configCaption: '{device}: {label}',
  noConfigs: 'هنوز پیکربندی‌ای ساخته نشده است.',
  tooManyConfigs: '{count} پیکربندی دیگر در صفحهٔ اشتراک شما هست.',
  operatorHelp:
    'فرمان‌ها: /find <نام> · /client <نام> · /extend <نام> <روز> · /reset <نام> · /disable <نام> · /enable <نام>',
  notFound: 'کاربری با نام «{name}» که شما بتوانید ببینید نیست.',
  ambiguous: 'چند کاربر با «{name}» جورند: {names}. نام دقیق را بنویسید.',
  found: 'کاربران جور با «{text}»: {names}',
  foundNone: 'هیچ کاربری با «{text}» جور نیست.',
  readOnly: 'نقش شما ({role}) فقط خواندن کاربران را اجازه می‌دهد.',
  badDays: 'تعداد روز را از ۱ تا ۳۶۵۰ بنویسید: /extend <نام> <روز>',
  extended: 'اشتراک {name} اکنون در {date} تمام می‌شود.',
  reset: 'مصرف {name} صفر شد.',
  disabled: '{name} غیرفعال شد.',
  enabled: '{name} فعال شد.',
  refused: 'پذیرفته نشد: {error}',
  failed: 'انجام نشد و چیزی تغییر نکرد. بعداً دوباره امتحان کنید.',
  backupMade: 'پشتیبان {name} ({size}).',
  backupTooLarge: 'پشتیبان {name} {size} است، بیشتر از {limit} که ربات مجاز به فرستادنش است: آن را از پنل بگیرید.',
  stopHint: 'برای قطع این پیام‌ها و جدا کردن این گفتگو، /stop را بفرستید.',
  stopButton: 'توقف اعلان‌ها',
  stopAsk:
    'این حساب تلگرام از {names} جدا شود؟ دیگر اعلانی اینجا نمی‌گیرید و /start اشتراک شما را نشان نمی‌دهد. ارائه‌دهندهٔ شما می‌تواند دوباره وصلش کند.',
  stopYes: 'بله، جدا شود',
  stopNo: 'نه، بماند',
  stopped: 'انجام شد: این گفتگو از {names} جدا شد و دیگر اعلانی نمی‌گیرد. برای وصل دوباره به ارائه‌دهندهٔ خود بگویید.',
  stopKept: 'چیزی تغییر نکرد: اعلان‌ها همچنان اینجا می‌آیند.',
  notLinked: 'این حساب تلگرام به هیچ اشتراکی در اینجا وصل نیست: چیزی برای توقف نیست.',
};

const BOT_TEXT: Record<TelegramLanguage, BotText> = { en: BOT_TEXT_EN, fa: BOT_TEXT_FA };

/** What a customer's button press (the text it sends, in either language) asks for; null for other text. */
export function customerButton(text: string): 'stop' | 'unlink' | 'keep' | null {
  const pressed = (key: keyof BotText) => Object.values(BOT_TEXT).some((words) => words[key] === text.trim());
  if (pressed('stopButton')) return 'stop';
  if (pressed('stopYes')) return 'unlink';
  if (pressed('stopNo')) return 'keep';
  return null;
}

/** The language of a Telegram user whose app says `languageCode` (`fa`, `fa-IR`...), else the panel's default. */
export function languageOf(languageCode: string | undefined, fallback: TelegramLanguage): TelegramLanguage {
  const primary = languageCode?.toLowerCase().split('-')[0];
  return primary === 'fa' || primary === 'en' ? primary : fallback;
}

function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (_m, key: string) => String(values[key] ?? ''));
}

export function say(language: TelegramLanguage, key: keyof BotText, values: Record<string, string | number> = {}) {
  return fill(BOT_TEXT[language][key], values);
}

export function bytes(value: number, language: TelegramLanguage): string {
  return formatBytes(value, language as PageLocale, PAGE_TEXT[language]);
}

/** What a customer's client looks like to them: the subscription page's facts as lines of text. */
export interface ClientFacts {
  name: string;
  status: ClientStatus;
  usedBytes: number;
  quotaBytes: number | null;
  expiresAt: Date | null;
}

export function clientSummary(client: ClientFacts, language: TelegramLanguage, now = new Date()): string {
  const page = PAGE_TEXT[language];
  const lines = [
    `${page.statusLabel}: ${page.status[client.status]}`,
    `${page.usage}: ${fill(page.usedOf, {
      used: bytes(client.usedBytes, language),
      total: client.quotaBytes === null ? page.unlimited : bytes(client.quotaBytes, language),
    })}`,
  ];
  if (client.expiresAt === null) lines.push(`${page.expiry}: ${page.never}`);
  else {
    const days = Math.ceil((client.expiresAt.getTime() - now.getTime()) / 86_400_000);
    const left = days > 0 ? ` (${fill(page.daysLeft, { days })})` : '';
    lines.push(`${page.expiry}: ${formatDate(client.expiresAt, language)}${left}`);
  }
  const why = page.why[client.status];
  if (why) lines.push(why);
  return lines.join('\n');
}

/** One notification as a chat message, in `language` (docs/telegram.md lists what each says). */
export function eventMessage(event: NotificationEvent, language: TelegramLanguage): string {
  const words = EVENT_TEXT[language][event.kind];
  const facts = Object.entries(event.details)
    .filter(([, value]) => value !== null)
    .map(([key, value]) => `${key}: ${String(value)}`);
  return [`${words} — ${event.subject.name}`, ...facts].join('\n');
}

const EVENT_TEXT: Record<TelegramLanguage, Record<NotificationEvent['kind'], string>> = {
  en: {
    'client.quota-80': 'Used 80% of the traffic',
    'client.quota-95': 'Used 95% of the traffic',
    'client.quota-exhausted': 'Out of traffic',
    'client.expiring': 'Expires soon',
    'client.expired': 'Expired',
    'client.disabled': 'Disabled',
    'client.enabled': 'Enabled again',
    'node.offline': 'Node offline',
    'node.online': 'Node back online',
    'hop.down': 'Hop down',
    'hop.up': 'Hop back up',
    'backup.done': 'Backup made',
    'backup.failed': 'Backup failed',
    'auth.new-address': 'Sign-in from a new address',
    'auth.two-factor-changed': 'Two-factor sign-in changed',
    'auth.password-changed': 'Password changed',
    'panel.test': 'A test notification: this chat gets the panel’s notifications',
  },
  fa: {
    'client.quota-80': '۸۰٪ حجم مصرف شد',
    'client.quota-95': '۹۵٪ حجم مصرف شد',
    'client.quota-exhausted': 'حجم تمام شد',
    'client.expiring': 'اشتراک به‌زودی تمام می‌شود',
    'client.expired': 'اشتراک تمام شد',
    'client.disabled': 'غیرفعال شد',
    'client.enabled': 'دوباره فعال شد',
    'node.offline': 'نود قطع شد',
    'node.online': 'نود دوباره وصل شد',
    'hop.down': 'هاپ از کار افتاد',
    'hop.up': 'هاپ دوباره کار می‌کند',
    'backup.done': 'پشتیبان ساخته شد',
    'backup.failed': 'ساخت پشتیبان شکست خورد',
    'auth.new-address': 'ورود از نشانی تازه',
    'auth.two-factor-changed': 'ورود دومرحله‌ای تغییر کرد',
    'auth.password-changed': 'گذرواژه تغییر کرد',
    'panel.test': 'اعلان آزمایشی: این گفتگو اعلان‌های پنل را می‌گیرد',
  },
};
