import { Inject, Injectable } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { bumpRevisions } from '../revisions/revisions.js';
import { ClientTotals } from './client-totals.js';
import { nodesOfClients } from './provisioning.js';

export interface TimeTransitionsResult {
  /** Clients that moved to expired (from active or exhausted). */
  expired: number;
  /** Clients whose reset cycle renewed (usage zeroed, lastResetAt = boundary). */
  renewed: number;
  /** Of those, exhausted clients that came back to active. */
  revived: number;
  /** Nodes whose desired-state revision was bumped because a client gained or lost its peers. */
  nodes: number;
}

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

/**
 * The time-based half of the status rules (client-status.ts), applied set-based: expiry, and
 * reset cycles that renew on their period boundaries. Runs every 30 s from the system queue
 * (time-transitions.scheduler.ts); tests call it with the clock they need.
 */
@Injectable()
export class TimeTransitionsService {
  constructor(
    @Inject(MikroORM) private readonly orm: MikroORM,
    private readonly totals: ClientTotals,
  ) {}

  async applyTimeTransitions(now: Date = new Date()): Promise<TimeTransitionsResult> {
    const result = await this.orm.em.fork().transactional(async (em) => {
      // active|exhausted -> expired when expiresAt <= now (the expires_at index finds them).
      // Only active ones had live peers; exhausted ones were already off their nodes.
      const expiredLive = await em.execute<{ id: string }[]>(
        `update clients set status = 'expired', updated_at = ? where status = 'active' and expires_at <= ? returning id`,
        [now, now],
      );
      const expiredExhausted = await em.execute<{ id: string }[]>(
        `update clients set status = 'expired', updated_at = ? where status = 'exhausted' and expires_at <= ? returning id`,
        [now, now],
      );

      // Reset cycles: zero the usage of the client, its devices and accounts, stamp the
      // boundary, revive exhausted (an exhausted client here is not past its expiry: the step
      // above just moved those). The re-check of the anchor in the update skips a client whose
      // traffic was reset by hand meanwhile.
      const renewed = await em.execute<{ id: string; previous: string }[]>(
        `with due as (
           select c.id, c.status, b.boundary from clients c ${CYCLE_BOUNDARY}
            where c.reset_cycle <> 'none' and b.boundary > a.anchor
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
        [now, now, now, now],
      );
      const revived = renewed.filter((row) => row.previous === 'exhausted');

      const nodes = await nodesOfClients(em, [...expiredLive, ...revived].map((row) => row.id));
      await bumpRevisions(em, nodes);
      return {
        expired: expiredLive.length + expiredExhausted.length,
        renewed: renewed.length,
        revived: revived.length,
        nodes: nodes.length,
      };
    });
    if (result.expired + result.renewed > 0) this.totals.changed();
    return result;
  }
}
