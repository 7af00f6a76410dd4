import { Injectable } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ClientStatus } from './client.entity.js';
import { kysely } from './clients-db.js';

/**
 * The latest reset-cycle boundary in (anchor, now] of each client, as `boundary`; null when no
 * whole period has passed. The same arithmetic as client-status.ts lastCycleBoundary (a test
 * holds them together): days and weeks are exact seconds; months are calendar months in UTC,
 * clamped to a short month's last day by PostgreSQL's `timestamp + interval 'n month'`.
 * Parameters: now, three times.
 */
const CYCLE_BOUNDARY = `
  cross join lateral (select coalesce(c.last_reset_at, c.activated_at, c.created_at) as anchor) a
  cross join lateral (
    select (((extract(year from n.t) - extract(year from s.t)) * 12 + extract(month from n.t) - extract(month from s.t))::int) as months,
           floor(extract(epoch from (?::timestamptz - a.anchor)))::bigint as seconds
      from (select ?::timestamptz at time zone 'UTC' as t) n, (select a.anchor at time zone 'UTC' as t) s
  ) e
  cross join lateral (
    select case c.reset_cycle
      when 'daily' then a.anchor + (e.seconds / 86400) * interval '86400 seconds'
      when 'weekly' then a.anchor + (e.seconds / 604800) * interval '604800 seconds'
      when 'monthly' then case
        when ((a.anchor at time zone 'UTC') + e.months * interval '1 month') at time zone 'UTC' <= ?::timestamptz
          then ((a.anchor at time zone 'UTC') + e.months * interval '1 month') at time zone 'UTC'
        else ((a.anchor at time zone 'UTC') + (e.months - 1) * interval '1 month') at time zone 'UTC'
      end
    end as boundary
  ) b`;

/** The set-based statements of the scheduled transitions: expiry and reset-cycle renewals. */
@Injectable()
export class TimeTransitionsRepository {
  /** Moves clients in status `from` whose expiry has come to expired; their ids. */
  async expire(em: EntityManager, from: ClientStatus, now: Date): Promise<string[]> {
    const rows = await kysely(em)
      .updateTable('clients')
      .set({ status: 'expired', updated_at: now })
      .where('status', '=', from)
      .where('expires_at', '<=', now)
      .returning('id')
      .execute();
    return rows.map((row) => row.id);
  }

  /**
   * Renews every client whose reset cycle has a boundary in (anchor, now]: usage of the client,
   * its devices and accounts zeroed, lastResetAt = the boundary, exhausted back to active (an
   * exhausted client here is not past its expiry: expire() ran first). The re-check of the anchor
   * in the update skips a client whose traffic was reset by hand meanwhile. Raw SQL: calendar
   * arithmetic in one statement, with data-modifying CTEs. Only clients whose next_reset_at
   * (anchor + one period, kept by a trigger: Migration20261127140000_client_scale) has come are
   * read, through its partial index: a boundary in (anchor, now] exists exactly when
   * anchor + one period <= now, so the boundary arithmetic runs for the due clients alone instead
   * of every client with a cycle every 30 s. Setting last_reset_at moves next_reset_at on.
   */
  async renewDueCycles(em: EntityManager, now: Date): Promise<{ id: string; previous: ClientStatus }[]> {
    return em.execute<{ id: string; previous: ClientStatus }[]>(
      `with due as (
         select c.id, c.status, b.boundary from clients c ${CYCLE_BOUNDARY}
          where c.next_reset_at <= ? and c.reset_cycle <> 'none' and b.boundary > a.anchor
       ), renewed as (
         update clients c
            set used_bytes = 0, up_bytes = 0, down_bytes = 0, last_reset_at = due.boundary, updated_at = ?,
                status = case when c.status = 'exhausted' then 'active' else c.status end
           from due
          where c.id = due.id and coalesce(c.last_reset_at, c.activated_at, c.created_at) < due.boundary
         returning c.id, due.status as previous
       ), devices_reset as (
         update devices d set up_bytes = 0, down_bytes = 0 from renewed where d.client_id = renewed.id returning d.id
       ), accounts_reset as (
         update accounts a set up_bytes = 0, down_bytes = 0 from devices_reset where a.device_id = devices_reset.id
       )
       select id, previous from renewed`,
      [now, now, now, now, now],
    );
  }
}
