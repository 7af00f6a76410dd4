import { Inject, Injectable } from '@nestjs/common';
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import { randomUUID } from 'node:crypto';
import type { OperatorScope, OwnerFilter } from '../auth/operator-scope.js';
import { badRequest, conflict, notFound } from '../http/api-error.js';
import { checkNewClient, checkPoolNotSpent, checkTerms } from '../resellers/ceilings.js';
import { ResellerLimitsRepository } from '../resellers/reseller-limits.repository.js';
import { bumpRevisions } from '../revisions/revisions.js';
import { nameCreatedTarget } from '../database/change-record.js';
import { AccountsRepository } from './accounts.repository.js';
import { ClientListRepository, type ClientFilter } from './client-list.repository.js';
import { decodeCursor, encodeCursor } from './client-cursor.js';
import { affectsPeers, allowanceMoved, nextStatus } from './client-status.js';
import { ClientTotals } from './client-totals.js';
import type { ClientListItem, ClientView, DeviceView } from './client-view.js';
import { ClientsRepository } from './clients.repository.js';
import { DevicesRepository } from './devices.repository.js';
import type { CreateClientDto, ListClientsQuery, UpdateClientDto } from './dto/client.dto.js';
import { ProvisioningService } from './provisioning.service.js';
import { creationSettings, creationTerms } from './client-settings.js';
import { withGroupDefaults } from './group-defaults.js';
import { defaultClientName } from './default-client-name.js';
import { generateSubId } from './sub-id.js';
import type { UsageSeries } from './usage-buckets.js';
import { UsageHistoryService } from './usage-history.service.js';
import type { UsageRange } from './usage-tiers.js';

export interface ClientDetail extends ClientView {
  devices: DeviceView[];
}

export interface ClientPage {
  items: ClientListItem[];
  total: number;
  /** Absent when the page was asked for by cursor. */
  page?: number;
  perPage: number;
  /** Where the next page starts (`?cursor=`); absent when no rows follow. */
  nextCursor?: string;
}

export const DEFAULT_PAGE_SIZE = 25;
export const DEFAULT_DEVICE_NAME = 'device-1';

/** Clients: creation with their first devices, listing, changes, traffic reset and deletion. */
@Injectable()
export class ClientsService {
  constructor(
    @Inject(MikroORM) private readonly orm: MikroORM,
    private readonly totals: ClientTotals,
    private readonly clients: ClientsRepository,
    private readonly listing: ClientListRepository,
    private readonly devices: DevicesRepository,
    private readonly accounts: AccountsRepository,
    private readonly provisioning: ProvisioningService,
    private readonly resellers: ResellerLimitsRepository,
    private readonly history: UsageHistoryService,
  ) {}

  /**
   * One page, by number or after a cursor, and the filter's total (remembered for a moment,
   * client-totals.ts), run together.
   */
  async list(query: ListClientsQuery, scope: OwnerFilter): Promise<ClientPage> {
    const perPage = query.perPage ?? DEFAULT_PAGE_SIZE;
    const sort = query.sort ?? 'newest';
    if (query.cursor !== undefined && query.page !== undefined)
      throw badRequest('use page or cursor, not both', 'cursor');
    const cursor = query.cursor === undefined ? undefined : decodeCursor(query.cursor, sort);
    const page = query.page ?? 1;
    const filter: ClientFilter = {
      ...(scope.ownerId === null ? {} : { ownerId: scope.ownerId }),
      search: query.search?.trim() || undefined,
      status: query.status,
      group: query.group,
      interfaceId: query.interfaceId,
    };
    const [listed, total] = await Promise.all([
      this.listing.page(filter, sort, cursor ? { after: cursor } : { offset: (page - 1) * perPage }, perPage),
      this.totals.get(filter, () => this.listing.count(filter)),
    ]);
    const answer: ClientPage = cursor
      ? { items: listed.items, total, perPage }
      : { items: listed.items, total, page, perPage };
    if (listed.next) answer.nextCursor = encodeCursor(listed.next);
    return answer;
  }

  async get(id: string, scope: OwnerFilter): Promise<ClientDetail> {
    return this.detail(this.orm.em.fork(), id, scope);
  }

  private async detail(em: EntityManager, id: string, scope: OwnerFilter): Promise<ClientDetail> {
    const client = await this.lookup(em, id, scope);
    return { ...client, devices: await this.devices.viewsOf(em, id) };
  }

  /** The one lookup of a client by id for reads: a client that is not there (or not visible) is a 404. */
  private async lookup(em: EntityManager, id: string, scope: OwnerFilter): Promise<ClientView> {
    const client = await this.clients.view(em, id, scope);
    if (!client) throw notFound('client not found', 'id');
    return client;
  }

  /** The client's traffic over a range (docs/clients.md, "Usage history"). */
  async usage(id: string, range: UsageRange, scope: OwnerFilter): Promise<UsageSeries> {
    await this.lookup(this.orm.em.fork(), id, scope);
    return this.history.client(id, range);
  }

  /**
   * The client, its first devices and one account per device per interface, in one transaction
   * that also bumps the revision of every node involved: all of it or none of it.
   */
  async create(given: CreateClientDto, scope: OperatorScope): Promise<ClientDetail> {
    const now = new Date();
    const dto = await withGroupDefaults(this.clients, this.orm.em.fork(), given, now);
    const deviceNames = dto.deviceNames ?? [DEFAULT_DEVICE_NAME];
    const settings = creationSettings(dto, deviceNames.length, now);
    const id = randomUUID();
    // Read back inside the transaction: after it a restore may already have replaced the clients,
    // and the answer to a create that succeeded would be a 404 (issue 19, item 13).
    const created = await this.orm.em.fork().transactional(async (em) => {
      // A reseller's row first: their creates run one at a time, each counting the others' clients.
      const account = scope.ceilings ? await this.resellers.lock(em, scope.userId) : undefined;
      const interfaces = await this.provisioning.lockInterfaces(em, dto.interfaceIds);
      if (account) {
        checkNewClient(
          account,
          await this.resellers.clientCount(em, scope.userId),
          creationTerms(settings, interfaces),
          now,
        );
      }
      await this.provisioning.createClients(
        em,
        scope,
        [
          {
            ...settings,
            id,
            name: dto.name ?? defaultClientName(dto.telegramId),
            note: dto.note ?? '',
            groups: dto.groups ?? [],
            telegramId: dto.telegramId ?? null,
            subId: generateSubId(),
            now,
            devices: deviceNames.map((name) => ({ name })),
          },
        ],
        interfaces,
        now,
      );
      await bumpRevisions(
        em,
        interfaces.map((iface) => iface.nodeId),
      );
      const detail = await this.detail(em, id, scope);
      // The audit entry written into this transaction names the new client (docs/audit.md).
      nameCreatedTarget(id, detail.name);
      return detail;
    });
    this.totals.changed();
    return created;
  }

  async update(id: string, dto: UpdateClientDto, scope: OperatorScope): Promise<ClientDetail> {
    const now = new Date();
    await this.orm.em.fork().transactional(async (em) => {
      const client = await this.clients.lock(em, id, scope);
      if (scope.ceilings) await this.checkChange(em, scope.userId, dto, now);
      if (dto.deviceLimit !== undefined && dto.deviceLimit > 0) {
        const devices = await this.devices.count(em, id);
        if (dto.deviceLimit < devices) {
          throw conflict(
            `the client has ${devices} devices, more than a deviceLimit of ${dto.deviceLimit}; delete devices first`,
            'deviceLimit',
          );
        }
      }
      const quotaBytes = dto.quotaBytes ?? client.quotaBytes;
      const expiresAt =
        dto.expiresAt === undefined ? client.expiresAt : dto.expiresAt === null ? null : new Date(dto.expiresAt);
      const status = nextStatus(
        client.status,
        { quotaBytes, usedBytes: client.usedBytes, expiresAt },
        now,
        dto.enabled,
      );

      const touchedNodes = new Set<string>();
      if (dto.interfaceIds) {
        for (const nodeId of await this.changeInterfaces(em, id, dto.interfaceIds, now)) touchedNodes.add(nodeId);
      }
      const rateChanged = dto.rateBitsPerSec !== undefined && dto.rateBitsPerSec !== client.rateBitsPerSec;
      const allowance = allowanceMoved(status, { before: client.quotaBytes, after: quotaBytes }, false);
      if (affectsPeers(client.status, status) || rateChanged || allowance) {
        for (const nodeId of await this.clients.nodesOf(em, [id])) touchedNodes.add(nodeId);
      }
      // Routing rules may name groups: those nodes resolve them to the client's addresses (docs/outbounds.md).
      if (dto.groups !== undefined && JSON.stringify(dto.groups) !== JSON.stringify(client.groups)) {
        for (const nodeId of await this.clients.nodesRoutingByGroup(em, id)) touchedNodes.add(nodeId);
      }
      await this.clients.update(
        em,
        id,
        status,
        {
          name: dto.name,
          note: dto.note,
          groups: dto.groups,
          telegramId: dto.telegramId,
          quotaBytes: dto.quotaBytes,
          expiresAt: dto.expiresAt === undefined ? undefined : expiresAt,
          deviceLimit: dto.deviceLimit,
          resetCycle: dto.resetCycle,
          rateBitsPerSec: dto.rateBitsPerSec,
        },
        now,
      );
      await bumpRevisions(em, touchedNodes);
    });
    this.totals.changed();
    return this.get(id, scope);
  }

  /**
   * A reseller's change: what it sets of quota, expiry and interfaces must fit their ceilings, read
   * under their limits row's lock as a create reads them: an owner's change of the ceilings (or a
   * reset of the pool) and this change run one after the other, never past each other.
   */
  private async checkChange(em: EntityManager, userId: string, dto: UpdateClientDto, now: Date): Promise<void> {
    const account = await this.resellers.lock(em, userId);
    let interfaces: { id: string; nodeId: string }[] | undefined;
    if (dto.interfaceIds) {
      const nodeOf = new Map(
        (await this.provisioning.lockInterfaces(em, dto.interfaceIds)).map((iface) => [iface.id, iface.nodeId]),
      );
      interfaces = dto.interfaceIds.map((ifaceId) => ({ id: ifaceId, nodeId: nodeOf.get(ifaceId)! }));
    }
    checkTerms(
      account,
      {
        quotaBytes: dto.quotaBytes,
        expiresAt: dto.expiresAt === undefined ? undefined : dto.expiresAt === null ? null : new Date(dto.expiresAt),
        interfaces,
        deviceLimit: dto.deviceLimit,
      },
      now,
    );
  }

  async remove(id: string, scope: OwnerFilter): Promise<{ id: string; deleted: true }> {
    await this.orm.em.fork().transactional(async (em) => {
      await this.clients.lock(em, id, scope);
      const nodes = await this.clients.nodesOf(em, [id]);
      await this.clients.delete(em, id);
      await bumpRevisions(em, nodes);
    });
    this.totals.changed();
    return { id, deleted: true };
  }

  /**
   * Zeroes the traffic of the client, its devices and accounts, stamps lastResetAt and recomputes
   * the status: exhausted comes back, expired and disabled stay as they are. It locks the client
   * first and then its devices and accounts, the reverse of a counter batch (accounts, devices,
   * clients), so the two can deadlock: PostgreSQL aborts one, and the reset is tried again as the
   * batch is (the soak met it as a 500 once in 10 minutes).
   */
  async reset(
    id: string,
    scope: OperatorScope,
  ): Promise<{ client: ClientView; previous: { usedBytes: number; upBytes: number; downBytes: number } }> {
    const now = new Date();
    const previous = await retryDeadlocks(() =>
      this.orm.em.fork().transactional(async (em) => {
        const client = await this.clients.lock(em, id, scope);
        // A reset gives the client its quota again: not once the reseller's pool is used up.
        if (scope.ceilings) checkPoolNotSpent(await this.resellers.lock(em, scope.userId));
        const status = nextStatus(
          client.status,
          { quotaBytes: client.quotaBytes, usedBytes: 0, expiresAt: client.expiresAt },
          now,
        );
        await this.clients.resetTraffic(em, id, status, now);
        const quota = { before: client.quotaBytes, after: client.quotaBytes };
        if (affectsPeers(client.status, status) || allowanceMoved(status, quota, client.usedBytes > 0))
          await bumpRevisions(em, await this.clients.nodesOf(em, [id]));
        return { usedBytes: client.usedBytes, upBytes: client.upBytes, downBytes: client.downBytes };
      }),
    );
    this.totals.changed();
    const { devices: _devices, ...client } = await this.get(id, scope);
    return { client, previous };
  }

  /**
   * Makes `wanted` the client's set of interfaces: a new interface gets an account for every
   * device, a dropped one loses them. Returns the nodes whose interfaces gained or lost accounts.
   */
  private async changeInterfaces(
    em: EntityManager,
    clientId: string,
    wanted: readonly string[],
    now: Date,
  ): Promise<string[]> {
    const current = new Set(await this.clients.interfaceIds(em, clientId));
    const wantedSet = new Set(wanted);
    const added = wanted.filter((id) => !current.has(id));
    const removed = [...current].filter((id) => !wantedSet.has(id));
    const nodes: string[] = [];
    if (added.length > 0) {
      const interfaces = await this.provisioning.lockInterfaces(em, added);
      await this.provisioning.createAccounts(em, await this.devices.idsOf(em, clientId), interfaces, now);
      await this.clients.attachInterfaces(em, clientId, added);
      nodes.push(...interfaces.map((iface) => iface.nodeId));
    }
    if (removed.length > 0) {
      nodes.push(...(await this.accounts.nodesOfInterfaces(em, removed)));
      await this.accounts.deleteOfClientOn(em, clientId, removed);
      await this.clients.detachInterfaces(em, clientId, removed);
    }
    return nodes;
  }
}

/** Deadlock and serialization failures: the transaction was whole or nothing, so it is run again. */
const RETRYABLE = new Set(['40P01', '40001']);

async function retryDeadlocks<T>(work: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (attempt >= attempts || !code || !RETRYABLE.has(code)) throw error;
    }
  }
}
