import type { ClientStatus, ResetCycle } from './client.entity.js';

/**
 * The one place that says what a client's status is. Status is a function of the client's
 * numbers and the clock, except `disabled`, which only an operator sets and clears. Every path
 * that changes a client (creation, PATCH, reset, usage, the scheduled tick) recomputes the status
 * here, so a transition is just the difference between the status before and after:
 *
 *   active    -> exhausted  quota > 0 and used >= quota
 *   active    -> expired    expiresAt <= now           (exhausted -> expired too)
 *   exhausted -> active     used < quota again: quota raised, traffic reset, reset cycle
 *   expired   -> active     expiresAt moved to the future or cleared
 *   *         -> disabled   operator (`enabled: false`); `enabled: true` recomputes
 *
 * Expiry wins over exhaustion: a client that is both over quota and past its end date is expired,
 * and raising its quota does not bring it back. The scheduled tick (clients/time-transitions.ts)
 * applies the same rules in SQL for the time-based half.
 */

export interface StatusFacts {
  quotaBytes: number;
  usedBytes: number;
  expiresAt: Date | null;
}

/** What the numbers say, setting aside the operator's switch. */
export function statusFromFacts(facts: StatusFacts, now: Date): Exclude<ClientStatus, 'disabled'> {
  if (facts.expiresAt !== null && facts.expiresAt.getTime() <= now.getTime()) return 'expired';
  if (facts.quotaBytes > 0 && facts.usedBytes >= facts.quotaBytes) return 'exhausted';
  return 'active';
}

/**
 * The status after any change. `enabled` is the operator's switch when the change carries one
 * (creation, PATCH): false disables, true lifts a disable and recomputes. Without it a disabled
 * client stays disabled whatever else changed; any other status is recomputed from the facts.
 */
export function nextStatus(
  current: ClientStatus | null,
  facts: StatusFacts,
  now: Date,
  enabled?: boolean,
): ClientStatus {
  if (enabled === false) return 'disabled';
  if (current === 'disabled' && enabled !== true) return 'disabled';
  return statusFromFacts(facts, now);
}

/** Only active clients keep live peers on their nodes; every other status removes them. */
export function isLive(status: ClientStatus): boolean {
  return status === 'active';
}

/** True when going from one status to the other changes what the client's nodes must run. */
export function affectsPeers(before: ClientStatus, after: ClientStatus): boolean {
  return isLive(before) !== isLive(after);
}

/**
 * True when a live client's quota allowance on its nodes changed other than by traffic: its quota
 * was set or changed, or its usage went down (a reset). Its nodes' kernels hold an allowance armed
 * from the remaining bytes they were last given (docs/agent-host.md, "Quotas"), so they need a
 * new revision to arm the new one; without it a client whose quota was raised while active was
 * still cut where the old quota ended.
 */
export function allowanceMoved(
  after: ClientStatus,
  quota: { before: number; after: number },
  usageWentDown: boolean,
): boolean {
  if (!isLive(after)) return false;
  return quota.before !== quota.after || (usageWentDown && quota.after > 0);
}

/**
 * Start on first use: the first handshake starts the service period, once. Returns the stamps to
 * store, or null when the client does not start on first use or has already started.
 */
export function activationOnFirstUse(
  client: { startOnFirstUse: boolean; activatedAt: Date | null; durationSeconds: number },
  now: Date,
): { activatedAt: Date; expiresAt: Date } | null {
  if (!client.startOnFirstUse || client.activatedAt !== null || client.durationSeconds <= 0) return null;
  return { activatedAt: now, expiresAt: new Date(now.getTime() + client.durationSeconds * 1000) };
}

const DAY_MS = 86_400_000;

/** Where a reset cycle counts from: the last reset, else the start of service, else creation. */
export function cycleAnchor(client: { lastResetAt: Date | null; activatedAt: Date | null; createdAt: Date }): Date {
  return client.lastResetAt ?? client.activatedAt ?? client.createdAt;
}

/**
 * The latest period boundary in (anchor, now], or null when no whole period has passed.
 * Daily and weekly periods are exact multiples of 24 h and 7 × 24 h; monthly ones are calendar
 * months in UTC from the anchor, clamped to the month's last day (Jan 31 -> Feb 28/29), the
 * same arithmetic as PostgreSQL's `timestamp + interval 'n month'`. When several periods passed
 * (the panel was down) the latest boundary is the one that counts: one renewal, not several.
 * The scheduled tick computes the same in SQL; a test holds the two together.
 */
export function lastCycleBoundary(cycle: ResetCycle, anchor: Date, now: Date): Date | null {
  const elapsed = now.getTime() - anchor.getTime();
  if (elapsed <= 0) return null;
  if (cycle === 'daily' || cycle === 'weekly') {
    const period = cycle === 'daily' ? DAY_MS : 7 * DAY_MS;
    const periods = Math.floor(elapsed / period);
    return periods >= 1 ? new Date(anchor.getTime() + periods * period) : null;
  }
  if (cycle === 'monthly') {
    let months = (now.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + (now.getUTCMonth() - anchor.getUTCMonth());
    let boundary = addUtcMonths(anchor, months);
    if (boundary.getTime() > now.getTime()) boundary = addUtcMonths(anchor, --months);
    return months >= 1 ? boundary : null;
  }
  return null;
}

function addUtcMonths(date: Date, months: number): Date {
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return new Date(
    Date.UTC(
      year,
      month,
      Math.min(date.getUTCDate(), lastDay),
      date.getUTCHours(),
      date.getUTCMinutes(),
      date.getUTCSeconds(),
      date.getUTCMilliseconds(),
    ),
  );
}
