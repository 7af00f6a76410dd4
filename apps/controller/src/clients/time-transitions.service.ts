import { Inject, Injectable } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { recordRun } from '../queue/scheduled-runs.js';
import { bumpRevisions } from '../revisions/revisions.js';
import { ClientTotals } from './client-totals.js';
import { ClientsRepository } from './clients.repository.js';
import { TimeTransitionsRepository } from './time-transitions.repository.js';
import { recordExpired, recordExpiring, recordRuleChange } from './client-notices.js';
import { NotificationSettingsRepository } from '../notifications/notification-settings.repository.js';

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

/** The name the enforcement run is recorded under (queue/scheduled-runs.ts), also its job's name. */
export const ENFORCEMENT_RUN = 'clients.time-transitions';

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
    private readonly transitions: TimeTransitionsRepository,
    private readonly clients: ClientsRepository,
    private readonly notificationSettings: NotificationSettingsRepository,
  ) {}

  async applyTimeTransitions(now: Date = new Date()): Promise<TimeTransitionsResult> {
    const result = await this.orm.em.fork().transactional(async (em) => {
      // active|exhausted -> expired when expiresAt <= now (the expires_at index finds them).
      // Only active ones had live peers; exhausted ones were already off their nodes.
      const expiredLive = await this.transitions.expire(em, 'active', now);
      const expiredExhausted = await this.transitions.expire(em, 'exhausted', now);
      const renewed = await this.transitions.renewDueCycles(em, now);
      const revived = renewed.filter((row) => row.previous === 'exhausted');

      // Notifications commit with the changes that make them (docs/notifications.md).
      await recordExpired(em, [...expiredLive, ...expiredExhausted], now);
      await recordRuleChange(
        em,
        'client.enabled',
        revived.map((row) => row.id),
        'reset cycle',
        'c.last_reset_at',
        now,
      );
      await recordExpiring(em, (await this.notificationSettings.notify()).expiryNoticeDays, now);
      // Renewed live clients too: their usage went to 0, so their nodes arm their quota afresh
      // (client-status.ts, allowanceMoved); one without a quota costs its nodes a revision, no more.
      const live = renewed.filter((row) => row.previous === 'active' || row.previous === 'exhausted');
      const nodes = await this.clients.nodesOf(em, [...expiredLive, ...live.map((row) => row.id)]);
      await bumpRevisions(em, nodes);
      const done: TimeTransitionsResult = {
        expired: expiredLive.length + expiredExhausted.length,
        renewed: renewed.length,
        revived: revived.length,
        nodes: nodes.length,
      };
      // The overview shows when enforcement last ran (docs/overview.md).
      await recordRun(em, ENFORCEMENT_RUN, now, { ...done });
      return done;
    });
    if (result.expired + result.renewed > 0) this.totals.changed();
    return result;
  }
}
