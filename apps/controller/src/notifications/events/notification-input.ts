import type { NotificationEvent, NotificationEventKind } from '#libs/contracts/notification-events.js';

/**
 * A crossing to record. `crossing` is what makes it unique for ever (docs/notifications.md,
 * "Once per crossing"): the kind, the subject and what bounds the crossing, e.g.
 * `client.quota-80:<client id>:<quota bytes>:<last reset>`; a second record of the same text
 * is ignored.
 */
export interface NotificationInput {
  kind: NotificationEventKind;
  crossing: string;
  subject: NotificationEvent['subject'];
  ownerId?: string | null;
  telegramId?: string | number | null;
  details?: NotificationEvent['details'];
  occurredAt?: Date;
}
