import { Inject, Injectable } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import type { OperatorScope } from '../auth/operator-scope.js';
import { ONLINE_WINDOW_MS } from '../common/online.js';
import { CLIENT_STATUSES, type ClientStatus } from '../clients/client.entity.js';
import { ENFORCEMENT_RUN } from '../clients/time-transitions.service.js';
import { poolLeft } from '../resellers/ceilings.js';
import { ResellerLimitsRepository } from '../resellers/reseller-limits.repository.js';
import { inventoryFrom } from './inventory.js';
import { InventoryRepository } from './inventory.repository.js';

export interface OperatorOverview {
  scope: 'panel' | 'own';
  clients: Record<ClientStatus | 'total', number>;
  usage: { usedBytes: number; upBytes: number; downBytes: number };
  reseller: {
    pool: { usedBytes: number; totalBytes: number | null; leftBytes: number | null; resetAt: Date | null };
    ceilings: {
      maxClients: number | null;
      clientsLeft: number | null;
      maxExpiryDays: number | null;
      maxQuotaBytes: number | null;
      interfaceIds: string[] | null;
      nodeIds: string[] | null;
    };
    interfaces: { id: string; name: string; nodeId: string }[];
  } | null;
}

/**
 * W-UI's `GET /api/overview`: the caller's clients and traffic. For a reseller their own clients,
 * their pool and the room left under each ceiling (the panel's remaining-room card); for the
 * panel's staff the panel-wide counts, from the same counters as `/api/overview/full`.
 */
@Injectable()
export class OperatorOverviewService {
  constructor(
    @Inject(MikroORM) private readonly orm: MikroORM,
    private readonly inventory: InventoryRepository,
    private readonly resellers: ResellerLimitsRepository,
  ) {}

  async overview(scope: OperatorScope): Promise<OperatorOverview> {
    if (scope.ownerId === null) {
      const reading = await this.inventory.read(Date.now() - ONLINE_WINDOW_MS, ENFORCEMENT_RUN);
      const counts = inventoryFrom(reading.counters, ONLINE_WINDOW_MS);
      return { scope: 'panel', clients: counts.clients, usage: counts.usage, reseller: null };
    }
    const em = this.orm.em.fork();
    const [summary, account] = await Promise.all([
      this.resellers.clientSummary(em, scope.ownerId),
      this.resellers.get(em, scope.ownerId),
    ]);
    const clients = Object.fromEntries(
      CLIENT_STATUSES.map((status) => [status, summary.byStatus[status] ?? 0]),
    ) as Record<ClientStatus, number>;
    const total = CLIENT_STATUSES.reduce((sum, status) => sum + clients[status], 0);
    return {
      scope: 'own',
      clients: { ...clients, total },
      usage: summary.usage,
      reseller: {
        pool: {
          usedBytes: account.poolUsedBytes,
          totalBytes: account.trafficPoolBytes,
          leftBytes: poolLeft(account),
          resetAt: account.poolResetAt,
        },
        ceilings: {
          maxClients: account.maxClients,
          clientsLeft: account.maxClients === null ? null : Math.max(0, account.maxClients - total),
          maxExpiryDays: account.maxExpiryDays,
          maxQuotaBytes: account.maxQuotaBytes,
          interfaceIds: account.interfaceIds,
          nodeIds: account.nodeIds,
        },
        interfaces: await this.resellers.allowedInterfaces(em, account),
      },
    };
  }
}
