import { Inject, Injectable } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { randomUUID } from 'node:crypto';
import type { OperatorScope } from '../auth/operator-scope.js';
import { badRequest, conflict } from '../http/api-error.js';
import { checkNewClients } from '../resellers/ceilings.js';
import { ResellerLimitsRepository } from '../resellers/reseller-limits.repository.js';
import { bumpRevisions } from '../revisions/revisions.js';
import { creationSettings, creationTerms } from './client-settings.js';
import { ClientTotals } from './client-totals.js';
import { CLIENT_LIMITS } from './dto/client.dto.js';
import type { BatchCreateClientsDto } from './dto/client-batch.dto.js';
import type { ClientBatchResultDto } from './dto/client-batch.response.js';
import { ClientsRepository } from './clients.repository.js';
import { withGroupDefaults } from './group-defaults.js';
import { ProvisioningService, type ClientToCreate } from './provisioning.service.js';
import { generateSubId } from './sub-id.js';

/**
 * Many clients from one description (POST /api/clients/batch): every row in one transaction,
 * written in multi-row statements through the same provisioning as one client, and one revision
 * per node for the whole batch, so each node gets one delivery. Like one client: the group's
 * defaults fill what the batch leaves out, the caller owns the clients, and a reseller's ceilings
 * apply (the whole batch must fit maxClients; the shared terms are checked once for all).
 */
@Injectable()
export class ClientBatchService {
  constructor(
    @Inject(MikroORM) private readonly orm: MikroORM,
    private readonly totals: ClientTotals,
    private readonly clients: ClientsRepository,
    private readonly provisioning: ProvisioningService,
    private readonly resellers: ResellerLimitsRepository,
  ) {}

  async create(given: BatchCreateClientsDto, scope: OperatorScope): Promise<ClientBatchResultDto> {
    const now = new Date();
    const dto = await withGroupDefaults(this.clients, this.orm.em.fork(), given, now);
    const devicesEach = dto.devicesEach ?? 1;
    const settings = creationSettings(dto, devicesEach, now, 'devicesEach');
    const names = batchNames(dto.namePrefix, dto.count, dto.start ?? 1, dto.digits ?? 0);
    const deviceNames = Array.from({ length: devicesEach }, (_, index) => ({ name: `device-${index + 1}` }));
    const rows: ClientToCreate[] = names.map((name) => ({
      ...settings,
      id: randomUUID(),
      name,
      note: dto.note ?? '',
      groups: dto.groups ?? [],
      telegramId: null,
      subId: generateSubId(),
      now,
      devices: deviceNames,
    }));
    await this.orm.em.fork().transactional(async (em) => {
      // A reseller's row first, as for one client: their creations run one at a time.
      const account = scope.ceilings ? await this.resellers.lock(em, scope.userId) : undefined;
      const interfaces = await this.provisioning.lockInterfaces(em, dto.interfaceIds);
      if (account) {
        checkNewClients(
          account,
          await this.resellers.clientCount(em, scope.userId),
          rows.length,
          creationTerms(settings, interfaces),
          now,
        );
      }
      const taken = await this.clients.namesTaken(em, names);
      const collision = names.find((name) => taken.has(name.toLowerCase()));
      if (collision !== undefined) {
        throw conflict(`a client named "${collision}" already exists; choose another prefix or start`, 'namePrefix');
      }
      await this.provisioning.createClients(em, scope, rows, interfaces, now);
      await bumpRevisions(
        em,
        interfaces.map((iface) => iface.nodeId),
      );
    });
    this.totals.changed();
    return {
      created: rows.length,
      devices: rows.length * devicesEach,
      accounts: rows.length * devicesEach * dto.interfaceIds.length,
      first: names[0],
      last: names[names.length - 1],
      ids: rows.map((row) => row.id),
    };
  }
}

/**
 * The prefix and each number, zero-padded to `digits`. The DTO's bounds keep names within the
 * limit today (100 + 10 characters); the check keeps it so if those bounds move.
 */
export function batchNames(prefix: string, count: number, start: number, digits: number): string[] {
  const names = Array.from({ length: count }, (_, index) => `${prefix}${String(start + index).padStart(digits, '0')}`);
  const longest = names[names.length - 1];
  if (longest.length > CLIENT_LIMITS.nameLength) {
    throw badRequest(
      `the names would reach ${longest.length} characters ("${longest}"); a name holds at most ${CLIENT_LIMITS.nameLength}`,
      'namePrefix',
    );
  }
  return names;
}
