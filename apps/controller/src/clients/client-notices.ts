import type { EntityManager } from '@mikro-orm/postgresql';
import type { NotificationEventKind } from '#libs/contracts/notification-events.js';

/** A timestamp column as the ISO text JavaScript writes (UTC, milliseconds). */
const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
/** A timestamp column as epoch milliseconds: the period mark in a crossing's key. */
const mark = (column: string) => `coalesce(floor(extract(epoch from ${column}) * 1000)::bigint::text, 'none')`;

/**
 * Records client notifications set-based, in the caller's transaction (the outbox of
 * notifications/): one insert for any number of clients, each crossing keyed by the client and
 * the period it belongs to, so a rule that runs again (every 30 s, or after a restart) adds
 * nothing it recorded before. `where` picks the clients; `details` builds the facts (jsonb).
 */
async function recordClientNotices(
  em: EntityManager,
  kind: NotificationEventKind,
  periodColumn: string,
  details: { sql: string; params: unknown[] },
  where: { sql: string; params: unknown[] },
  at: Date,
): Promise<void> {
  await em.execute(
    `insert into notification_events
       (id, crossing, kind, subject_type, subject_id, subject_name, owner_id, telegram_id, details, occurred_at)
     select gen_random_uuid(), '${kind}:' || c.id || ':' || ${mark(periodColumn)}, '${kind}', 'client', c.id::text,
            left(c.name, 200), c.owner_id, c.telegram_id::text, ${details.sql}, ?
       from clients c where ${where.sql}
     on conflict (crossing) do nothing`,
    [...details.params, at, ...where.params],
  );
}

/** Clients that just expired: once per expiry date. */
export function recordExpired(em: EntityManager, ids: string[], at: Date): Promise<void> {
  if (ids.length === 0) return Promise.resolve();
  return recordClientNotices(
    em,
    'client.expired',
    'c.expires_at',
    { sql: `jsonb_build_object('expiresAt', ${iso('c.expires_at')})`, params: [] },
    { sql: 'c.id = any(array[?]::uuid[])', params: [ids] },
    at,
  );
}

/**
 * Active clients whose expiry is within `days`: once per expiry date (extending a client opens a
 * new one). Runs with the time transitions; the expires_at index finds them.
 */
export function recordExpiring(em: EntityManager, days: number, at: Date): Promise<void> {
  return recordClientNotices(
    em,
    'client.expiring',
    'c.expires_at',
    {
      sql: `jsonb_build_object('expiresAt', ${iso('c.expires_at')}, 'daysLeft', ceil(extract(epoch from c.expires_at - ?::timestamptz) / 86400)::int)`,
      params: [at],
    },
    {
      sql: `c.status = 'active' and c.expires_at > ? and c.expires_at <= ?`,
      params: [at, new Date(at.getTime() + days * 86_400_000)],
    },
    at,
  );
}

/** Clients a rule changed (disabled for sharing, enabled by a reset cycle): once per status change. */
export function recordRuleChange(
  em: EntityManager,
  kind: 'client.disabled' | 'client.enabled',
  ids: string[],
  reason: string,
  periodColumn: 'c.status_changed_at' | 'c.last_reset_at',
  at: Date,
): Promise<void> {
  if (ids.length === 0) return Promise.resolve();
  return recordClientNotices(
    em,
    kind,
    periodColumn,
    { sql: `jsonb_build_object('reason', ?::text)`, params: [reason] },
    { sql: 'c.id = any(array[?]::uuid[])', params: [ids] },
    at,
  );
}
