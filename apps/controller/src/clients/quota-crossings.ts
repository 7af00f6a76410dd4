import type { NotificationEventKind } from '#libs/contracts/notification-events.js';
import type { NotificationInput } from '../notifications/events/notification-input.js';
import type { CountedClient } from './usage.repository.js';

const THRESHOLDS: [number, NotificationEventKind][] = [
  [80, 'client.quota-80'],
  [95, 'client.quota-95'],
  [100, 'client.quota-exhausted'],
];

/**
 * The quota thresholds a counter batch carried a client across (80 %, 95 %, 100 %). A crossing
 * is keyed by the client, the quota and its period (the last reset), so the same period never
 * fires twice whatever replays, and a new quota or a reset opens a new one.
 */
export function quotaCrossings(client: CountedClient, at: Date): NotificationInput[] {
  const batch = client.batch;
  if (!batch || client.quotaBytes <= 0 || batch.addedBytes <= 0) return [];
  const before = client.usedBytes - batch.addedBytes;
  const period = `${client.quotaBytes}:${batch.lastResetAt?.toISOString() ?? 'start'}`;
  return THRESHOLDS.filter(([percent]) => {
    const line = (client.quotaBytes * percent) / 100;
    return before < line && client.usedBytes >= line;
  }).map(([percent, kind]) => ({
    kind,
    crossing: `${kind}:${client.id}:${period}`,
    subject: { type: 'client', id: client.id, name: batch.name },
    ownerId: batch.ownerId,
    telegramId: batch.telegramId,
    details: { percent, usedBytes: client.usedBytes, quotaBytes: client.quotaBytes },
    occurredAt: at,
  }));
}
