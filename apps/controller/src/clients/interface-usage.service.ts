import { Inject, Injectable } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { notFound } from '../http/api-error.js';
import { bumpRevisions } from '../revisions/revisions.js';
import { affectsPeers, allowanceMoved, nextStatus } from './client-status.js';
import { ClientTotals } from './client-totals.js';
import { ClientsRepository } from './clients.repository.js';
import { UsageRepository, type StatusChange } from './usage.repository.js';

/** What an interface's usage reset did. */
export interface InterfaceUsageReset {
  id: string;
  /** Accounts on the interface, each now at zero. */
  accounts: number;
  /** The bytes taken off their devices' and clients' totals (up and down together). */
  bytes: number;
  /** Clients whose status changed with it (an exhausted client under its quota again). */
  statusChanged: number;
}

/**
 * W-UI's `POST /api/interfaces/{id}/reset-usage`: the interface's accounts start from zero, and
 * their clients' totals lose exactly what those accounts had counted (docs/interfaces.md). It
 * lives with the clients because usage is theirs: their totals, quotas and statuses change.
 */
@Injectable()
export class InterfaceUsageService {
  constructor(
    @Inject(MikroORM) private readonly orm: MikroORM,
    private readonly totals: ClientTotals,
    private readonly usage: UsageRepository,
    private readonly clients: ClientsRepository,
  ) {}

  async reset(interfaceId: string, now = new Date()): Promise<InterfaceUsageReset> {
    const result = await this.orm.em.fork().transactional(async (em) => {
      const reset = await this.usage.resetInterface(em, interfaceId);
      if (!reset) throw notFound('interface not found', 'id');
      // An exhausted client back under its quota is active again (as a client's own reset does).
      const changes: StatusChange[] = [];
      const lostOrGainedPeers: string[] = [];
      for (const client of reset.clients) {
        const status = nextStatus(
          client.status,
          { quotaBytes: client.quotaBytes, usedBytes: client.usedBytes, expiresAt: client.expiresAt },
          now,
        );
        // Its usage went down: its nodes arm its quota afresh (client-status.ts, allowanceMoved).
        const quota = { before: client.quotaBytes, after: client.quotaBytes };
        if (allowanceMoved(status, quota, true)) lostOrGainedPeers.push(client.id);
        if (status === client.status) continue;
        changes.push({ id: client.id, status, activatedAt: client.activatedAt, expiresAt: client.expiresAt });
        if (affectsPeers(client.status, status)) lostOrGainedPeers.push(client.id);
      }
      if (changes.length > 0) await this.usage.applyStatusChanges(em, changes, now);
      if (lostOrGainedPeers.length > 0) await bumpRevisions(em, await this.clients.nodesOf(em, lostOrGainedPeers));
      return { id: interfaceId, accounts: reset.accounts, bytes: reset.bytes, statusChanged: changes.length };
    });
    this.totals.changed();
    return result;
  }
}
