import {
  NOTIFICATION_CHANNEL_NAMES,
  NOTIFICATION_EVENT_KINDS,
  type NotificationChannelName,
  type NotificationEventKind,
} from '#libs/contracts/notification-events.js';

/** The settings table's keys of the notification settings (outside GET /api/settings). */
export const NOTIFY_KEY = 'notify';
export const MAIL_KEY = 'mail';

/** Which channels carry which kinds, and when "expiring" fires (docs/notifications.md, "Settings"). */
export interface NotifySettings {
  /** Days before a client's expiry that `client.expiring` fires (once per expiry date). */
  expiryNoticeDays: number;
  /**
   * Days the outbox keeps an event after it happened (once handed to the channels), and the
   * webhooks' delivery log an attempt: older rows are pruned.
   */
  retentionDays: number;
  switches: Record<NotificationEventKind, Record<NotificationChannelName, boolean>>;
}

export const EXPIRY_NOTICE_DAYS = { min: 1, max: 60 } as const;
/**
 * At least a day: an event's deliveries retry for under an hour, so none is pruned while a
 * channel still needs it. A month by default keeps what an operator may ask about.
 */
export const RETENTION_DAYS = { min: 1, max: 365, default: 30 } as const;

/**
 * Mail goes to the operators, so by default only what concerns the panel (nodes, hops, backups,
 * sign-ins) is mailed, never one mail per client crossing a quota; webhooks and Telegram carry
 * every kind. Mail sends nothing until SMTP is set up, webhooks nothing until an endpoint exists.
 */
const MAILED_BY_DEFAULT = (kind: NotificationEventKind) => !kind.startsWith('client.');

export function defaultNotifySettings(): NotifySettings {
  const switches = {} as NotifySettings['switches'];
  for (const kind of NOTIFICATION_EVENT_KINDS) {
    switches[kind] = { webhook: true, telegram: true, mail: MAILED_BY_DEFAULT(kind) };
  }
  return { expiryNoticeDays: 3, retentionDays: RETENTION_DAYS.default, switches };
}

/** A stored value read leniently: what is missing or malformed reads as its default. */
export function readNotifySettings(stored: unknown): NotifySettings {
  const settings = defaultNotifySettings();
  if (!stored || typeof stored !== 'object') return settings;
  const value = stored as { expiryNoticeDays?: unknown; retentionDays?: unknown; switches?: unknown };
  const within = (days: unknown, bounds: { min: number; max: number }): days is number =>
    typeof days === 'number' && Number.isInteger(days) && days >= bounds.min && days <= bounds.max;
  if (within(value.expiryNoticeDays, EXPIRY_NOTICE_DAYS)) settings.expiryNoticeDays = value.expiryNoticeDays;
  if (within(value.retentionDays, RETENTION_DAYS)) settings.retentionDays = value.retentionDays;
  const switches = (value.switches ?? {}) as Record<string, Record<string, unknown>>;
  for (const kind of NOTIFICATION_EVENT_KINDS) {
    for (const channel of NOTIFICATION_CHANNEL_NAMES) {
      const on = switches[kind]?.[channel];
      if (typeof on === 'boolean') settings.switches[kind][channel] = on;
    }
  }
  return settings;
}

/** SMTP for the mail channel. The password is write-only: answers say only whether one is set. */
export interface MailSettings {
  enabled: boolean;
  host: string;
  port: number;
  /** TLS from the first byte (port 465); otherwise STARTTLS when the server offers it. */
  secure: boolean;
  user: string;
  password: string;
  from: string;
  /** The operators' addresses every mailed event goes to. */
  recipients: string[];
}

export const DEFAULT_MAIL_SETTINGS: Readonly<MailSettings> = Object.freeze({
  enabled: false,
  host: '',
  port: 587,
  secure: false,
  user: '',
  password: '',
  from: '',
  recipients: [],
});

export function readMailSettings(stored: unknown): MailSettings {
  const settings: MailSettings = { ...DEFAULT_MAIL_SETTINGS, recipients: [] };
  if (!stored || typeof stored !== 'object') return settings;
  const value = stored as Record<string, unknown>;
  if (typeof value.enabled === 'boolean') settings.enabled = value.enabled;
  if (typeof value.secure === 'boolean') settings.secure = value.secure;
  for (const key of ['host', 'user', 'password', 'from'] as const)
    if (typeof value[key] === 'string') settings[key] = value[key];
  if (typeof value.port === 'number' && Number.isInteger(value.port)) settings.port = value.port;
  if (Array.isArray(value.recipients))
    settings.recipients = value.recipients.filter((item): item is string => typeof item === 'string');
  return settings;
}
