/**
 * What the panel tells people about (docs/notifications.md). An event is recorded once per
 * crossing (a quota passing 80 %, a node going offline), never on every report, and is then
 * handed to each channel (webhooks, Telegram, mail) that the settings turn on for its kind.
 */
export const NOTIFICATION_EVENT_KINDS = [
  'client.quota-80',
  'client.quota-95',
  'client.quota-exhausted',
  'client.expiring',
  'client.expired',
  'client.disabled',
  'client.enabled',
  'node.offline',
  'node.online',
  'hop.down',
  'hop.up',
  'backup.done',
  'backup.failed',
  'auth.new-address',
  'auth.two-factor-changed',
  'auth.password-changed',
  /** Sent by POST /api/settings/notify/test through every channel, whatever the switches say. */
  'panel.test',
] as const;
export type NotificationEventKind = (typeof NOTIFICATION_EVENT_KINDS)[number];

export const NOTIFICATION_CHANNEL_NAMES = ['webhook', 'telegram', 'mail'] as const;
export type NotificationChannelName = (typeof NOTIFICATION_CHANNEL_NAMES)[number];

export type NotificationSubjectType = 'client' | 'node' | 'hop' | 'backup' | 'admin' | 'panel';

export interface NotificationEvent {
  /** Stable id of this crossing: a channel that sees it twice delivers it once. */
  id: string;
  kind: NotificationEventKind;
  /** ISO 8601. */
  occurredAt: string;
  subject: { type: NotificationSubjectType; id: string; name: string };
  /** The operator who owns the client (resellers hear only of their own clients); null otherwise. */
  ownerId: string | null;
  /** The client's `telegramId` for client events, so the customer can be told too. */
  telegramId: string | null;
  /** Kind-specific facts (percent, daysLeft, address, sizeBytes, reason...): flat, JSON-safe. */
  details: Record<string, string | number | boolean | null>;
}
