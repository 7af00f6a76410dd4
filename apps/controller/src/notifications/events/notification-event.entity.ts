import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import type { NotificationEventKind, NotificationSubjectType } from '#libs/contracts/notification-events.js';

/**
 * The outbox of notifications (docs/notifications.md): one row per crossing, unique by `crossing`
 * (e.g. `client.quota-80:<client id>:<quota period>`), written where the state change is written
 * (same transaction where feasible). The dispatcher hands undispatched rows to the channels'
 * queue and stamps `dispatchedAt`; a controller killed in between hands them again under the
 * same job ids, so a channel never sees a crossing twice and never misses one.
 */
export const NotificationEventRow = defineEntity({
  name: 'NotificationEventRow',
  tableName: 'notification_events',
  indexes: [
    { properties: ['occurredAt'] },
    {
      name: 'notification_events_pending',
      expression: `create index "notification_events_pending" on "notification_events" ("occurred_at") where "dispatched_at" is null`,
    },
  ],
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    crossing: p.string().length(200).unique(),
    kind: p.string().length(48).$type<NotificationEventKind>(),
    subjectType: p.string().length(16).$type<NotificationSubjectType>(),
    subjectId: p.string().length(64),
    subjectName: p.string().length(200),
    ownerId: p.uuid().nullable(),
    telegramId: p.string().length(24).nullable(),
    details: p.json<Record<string, string | number | boolean | null>>(),
    occurredAt: p.datetime(),
    /** Null until handed to the channels' queue; the partial index keeps the dispatcher's scan small. */
    dispatchedAt: p.datetime().nullable(),
  },
});
export type NotificationEventRow = InferEntity<typeof NotificationEventRow>;
