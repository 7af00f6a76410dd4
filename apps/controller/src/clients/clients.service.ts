import { Inject, Injectable } from '@nestjs/common';
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import { randomUUID } from 'node:crypto';
import { badRequest, conflict, notFound } from '../http/api-error.js';
import { bumpRevisions } from '../revisions/revisions.js';
import type { ClientStatus } from './client.entity.js';
import { affectsPeers, nextStatus } from './client-status.js';
import { ClientTotals } from './client-totals.js';
import {
  CLIENT_VIEW_COLUMNS,
  DEVICE_ACCOUNT_COLUMNS,
  toClientView,
  toDeviceViews,
  type ClientRow,
  type ClientView,
  type DeviceView,
} from './client-view.js';
import type { ClientSort, CreateClientDto, ListClientsQuery, UpdateClientDto } from './dto/client.dto.js';
import { createAccounts, createDevices, lockInterfaces, nodesOfClients } from './provisioning.js';
import { likeContains, readNumber, readTimestamp } from './sql.js';
import { generateSubId } from './sub-id.js';

export interface ClientDetail extends ClientView {
  devices: DeviceView[];
}

export interface ClientPage {
  items: ClientView[];
  total: number;
  page: number;
  perPage: number;
}

export const DEFAULT_PAGE_SIZE = 25;
export const DEFAULT_DEVICE_NAME = 'device-1';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Every order has a unique tie-breaker, so pages never overlap or skip a row. */
const ORDER_BY: Record<ClientSort, string> = {
  newest: 'c.created_at desc, c.id desc',
  oldest: 'c.created_at asc, c.id asc',
  name: 'c.name asc, c.id asc',
  traffic: 'c.used_bytes desc, c.id desc',
  remaining: '(case when c.quota_bytes = 0 then null else c.quota_bytes - c.used_bytes end) asc nulls last, c.id asc',
  expiry: 'c.expires_at asc nulls last, c.id asc',
};

/** The part of a client row the status rules and PATCH work from. */
interface LockedClient {
  id: string;
  status: ClientStatus;
  quotaBytes: number;
  usedBytes: number;
  upBytes: number;
  downBytes: number;
  expiresAt: Date | null;
  deviceLimit: number;
  rateBitsPerSec: number;
}

export function requireClientId(id: string): void {
  if (!UUID.test(id)) throw notFound('client not found', 'id');
}

/**
 * Locks a client row for the rest of the transaction. Whatever the caller reads next (device
 * count, interfaces) it reads in a later statement, so it sees every change committed by the
 * transaction that held the lock before it (READ COMMITTED takes a new snapshot per statement).
 */
export async function lockClient(em: EntityManager, id: string): Promise<LockedClient> {
  requireClientId(id);
  const [row] = await em.execute<ClientRow[]>(
    `select id, status, quota_bytes, used_bytes, up_bytes, down_bytes, expires_at, device_limit, rate_bits_per_sec
       from clients where id = ? for update`,
    [id],
  );
  if (!row) throw notFound('client not found', 'id');
  return {
    id: row.id as string,
    status: row.status as ClientStatus,
    quotaBytes: readNumber(row.quota_bytes),
    usedBytes: readNumber(row.used_bytes),
    upBytes: readNumber(row.up_bytes),
    downBytes: readNumber(row.down_bytes),
    expiresAt: readTimestamp(row.expires_at),
    deviceLimit: readNumber(row.device_limit),
    rateBitsPerSec: readNumber(row.rate_bits_per_sec),
  };
}

export async function countDevices(em: EntityManager, clientId: string): Promise<number> {
  const [row] = await em.execute<{ count: string }[]>(`select count(*) as count from devices where client_id = ?`, [clientId]);
  return readNumber(row.count);
}

/** Clients: creation with their first devices, listing, changes, traffic reset and deletion. */
@Injectable()
export class ClientsService {
  constructor(
    @Inject(MikroORM) private readonly orm: MikroORM,
    private readonly totals: ClientTotals,
  ) {}

  /** One query for the page (ids first, then views of just those rows) and one count, run together. */
  async list(query: ListClientsQuery): Promise<ClientPage> {
    const page = query.page ?? 1;
    const perPage = query.perPage ?? DEFAULT_PAGE_SIZE;
    const where: string[] = [];
    const params: unknown[] = [];
    const search = query.search?.trim();
    if (search) {
      // The expression matches the trigram index clients_search_trgm exactly.
      let condition = `lower(c.name || ' ' || c.note) like lower(?)`;
      params.push(likeContains(search));
      if (/^\d{1,16}$/.test(search) && Number(search) <= Number.MAX_SAFE_INTEGER) {
        condition = `(${condition} or c.telegram_id = ?)`;
        params.push(Number(search));
      }
      where.push(condition);
    }
    if (query.status) {
      where.push('c.status = ?');
      params.push(query.status);
    }
    if (query.group) {
      where.push('c.groups @> array[?]::text[]');
      params.push([query.group]);
    }
    if (query.interfaceId) {
      where.push('exists (select 1 from client_interfaces ci where ci.client_id = c.id and ci.interface_id = ?)');
      params.push(query.interfaceId);
    }
    const filter = where.length ? `where ${where.join(' and ')}` : '';
    const orderBy = ORDER_BY[query.sort ?? 'newest'];
    const em = this.orm.em.fork();
    const [rows, total] = await Promise.all([
      em.execute<ClientRow[]>(
        `select ${CLIENT_VIEW_COLUMNS}
           from (select c.id from clients c ${filter} order by ${orderBy} limit ? offset ?) page
           join clients c on c.id = page.id
          order by ${orderBy}`,
        [...params, perPage, (page - 1) * perPage],
      ),
      this.totals.get({ search, status: query.status, group: query.group, interfaceId: query.interfaceId }, async () => {
        const [counted] = await em.execute<{ total: string }[]>(`select count(*) as total from clients c ${filter}`, params);
        return readNumber(counted.total);
      }),
    ]);
    return { items: rows.map(toClientView), total, page, perPage };
  }

  async get(id: string): Promise<ClientDetail> {
    requireClientId(id);
    const em = this.orm.em.fork();
    const [row] = await em.execute<ClientRow[]>(`select ${CLIENT_VIEW_COLUMNS} from clients c where c.id = ?`, [id]);
    if (!row) throw notFound('client not found', 'id');
    const devices = await em.execute<ClientRow[]>(
      `select ${DEVICE_ACCOUNT_COLUMNS}
         from devices d left join accounts a on a.device_id = d.id
        where d.client_id = ? order by d.created_at, d.id, a.interface_id`,
      [id],
    );
    return { ...toClientView(row), devices: toDeviceViews(devices) };
  }

  /**
   * The client, its first devices and one account per device per interface, in one transaction
   * that also bumps the revision of every node involved: all of it or none of it.
   */
  async create(dto: CreateClientDto): Promise<ClientDetail> {
    const now = new Date();
    const deviceLimit = dto.deviceLimit ?? 1;
    const deviceNames = dto.deviceNames ?? [DEFAULT_DEVICE_NAME];
    if (deviceLimit > 0 && deviceNames.length > deviceLimit) {
      throw badRequest(`${deviceNames.length} devices exceed the device limit of ${deviceLimit}`, 'deviceNames');
    }
    const expiresAt = dto.expiresAt ? new Date(dto.expiresAt) : null;
    if (expiresAt && expiresAt.getTime() <= now.getTime()) throw badRequest('expiresAt must lie in the future', 'expiresAt');
    const durationSeconds = (dto.durationDays ?? 0) * 86_400 + (dto.durationHours ?? 0) * 3_600;
    const startOnFirstUse = dto.startOnFirstUse ?? false;
    if (startOnFirstUse && durationSeconds <= 0) {
      throw badRequest('startOnFirstUse needs a duration: durationDays or durationHours above 0', 'durationDays');
    }
    if (!startOnFirstUse && durationSeconds > 0) {
      throw badRequest('durationDays and durationHours apply only with startOnFirstUse: true', 'durationDays');
    }
    if (startOnFirstUse && expiresAt) {
      throw badRequest('a client that starts on first use gets its expiry from the first use; leave expiresAt out', 'expiresAt');
    }
    const quotaBytes = dto.quotaBytes ?? 0;
    const status = nextStatus(null, { quotaBytes, usedBytes: 0, expiresAt }, now, dto.enabled ?? true);

    const id = randomUUID();
    await this.orm.em.fork().transactional(async (em) => {
      const interfaces = await lockInterfaces(em, dto.interfaceIds);
      await em.execute(
        `insert into clients (id, name, note, groups, telegram_id, quota_bytes, expires_at, device_limit, rate_bits_per_sec,
                              reset_cycle, start_on_first_use, duration_seconds, status, sub_id, created_at, updated_at)
         values (?, ?, ?, array[?]::text[], ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          id,
          dto.name,
          dto.note ?? '',
          dto.groups ?? [],
          dto.telegramId ?? null,
          quotaBytes,
          expiresAt,
          deviceLimit,
          dto.rateBitsPerSec ?? 0,
          dto.resetCycle ?? 'none',
          startOnFirstUse,
          durationSeconds,
          status,
          generateSubId(),
          now,
          now,
        ],
      );
      await attachInterfaces(em, id, interfaces.map((iface) => iface.id));
      const deviceIds = await createDevices(em, id, deviceNames, now);
      await createAccounts(em, deviceIds, interfaces, now);
      await bumpRevisions(em, interfaces.map((iface) => iface.nodeId));
    });
    this.totals.changed();
    return this.get(id);
  }

  async update(id: string, dto: UpdateClientDto): Promise<ClientDetail> {
    const now = new Date();
    await this.orm.em.fork().transactional(async (em) => {
      const client = await lockClient(em, id);
      if (dto.deviceLimit !== undefined && dto.deviceLimit > 0) {
        const devices = await countDevices(em, id);
        if (dto.deviceLimit < devices) {
          throw conflict(
            `the client has ${devices} devices, more than a deviceLimit of ${dto.deviceLimit}; delete devices first`,
            'deviceLimit',
          );
        }
      }
      const quotaBytes = dto.quotaBytes ?? client.quotaBytes;
      const expiresAt = dto.expiresAt === undefined ? client.expiresAt : dto.expiresAt === null ? null : new Date(dto.expiresAt);
      const status = nextStatus(client.status, { quotaBytes, usedBytes: client.usedBytes, expiresAt }, now, dto.enabled);

      const touchedNodes = new Set<string>();
      if (dto.interfaceIds) {
        for (const nodeId of await changeInterfaces(em, id, dto.interfaceIds, now)) touchedNodes.add(nodeId);
      }
      const rateChanged = dto.rateBitsPerSec !== undefined && dto.rateBitsPerSec !== client.rateBitsPerSec;
      if (affectsPeers(client.status, status) || rateChanged) {
        for (const nodeId of await nodesOfClients(em, [id])) touchedNodes.add(nodeId);
      }

      const sets: string[] = ['status = ?', 'updated_at = ?'];
      const params: unknown[] = [status, now];
      const set = (column: string, value: unknown, placeholder = '?') => {
        sets.push(`${column} = ${placeholder}`);
        params.push(value);
      };
      if (dto.name !== undefined) set('name', dto.name);
      if (dto.note !== undefined) set('note', dto.note);
      if (dto.groups !== undefined) set('groups', dto.groups, 'array[?]::text[]');
      if (dto.telegramId !== undefined) set('telegram_id', dto.telegramId);
      if (dto.quotaBytes !== undefined) set('quota_bytes', dto.quotaBytes);
      if (dto.expiresAt !== undefined) set('expires_at', expiresAt);
      if (dto.deviceLimit !== undefined) set('device_limit', dto.deviceLimit);
      if (dto.resetCycle !== undefined) set('reset_cycle', dto.resetCycle);
      if (dto.rateBitsPerSec !== undefined) set('rate_bits_per_sec', dto.rateBitsPerSec);
      await em.execute(`update clients set ${sets.join(', ')} where id = ?`, [...params, id]);
      await bumpRevisions(em, touchedNodes);
    });
    this.totals.changed();
    return this.get(id);
  }

  async remove(id: string): Promise<{ id: string; deleted: true }> {
    await this.orm.em.fork().transactional(async (em) => {
      await lockClient(em, id);
      const nodes = await nodesOfClients(em, [id]);
      // Devices, accounts and interface links go with it (on delete cascade).
      await em.execute(`delete from clients where id = ?`, [id]);
      await bumpRevisions(em, nodes);
    });
    this.totals.changed();
    return { id, deleted: true };
  }

  /**
   * Zeroes the traffic of the client, its devices and accounts, stamps lastResetAt and recomputes
   * the status: exhausted comes back, expired and disabled stay as they are.
   */
  async reset(id: string): Promise<{ client: ClientView; previous: { usedBytes: number; upBytes: number; downBytes: number } }> {
    const now = new Date();
    const previous = await this.orm.em.fork().transactional(async (em) => {
      const client = await lockClient(em, id);
      const status = nextStatus(client.status, { quotaBytes: client.quotaBytes, usedBytes: 0, expiresAt: client.expiresAt }, now);
      await em.execute(`update devices set up_bytes = 0, down_bytes = 0 where client_id = ?`, [id]);
      await em.execute(
        `update accounts set up_bytes = 0, down_bytes = 0 where device_id in (select id from devices where client_id = ?)`,
        [id],
      );
      await em.execute(
        `update clients set used_bytes = 0, up_bytes = 0, down_bytes = 0, last_reset_at = ?, status = ?, updated_at = ? where id = ?`,
        [now, status, now, id],
      );
      if (affectsPeers(client.status, status)) await bumpRevisions(em, await nodesOfClients(em, [id]));
      return { usedBytes: client.usedBytes, upBytes: client.upBytes, downBytes: client.downBytes };
    });
    this.totals.changed();
    const { devices: _devices, ...client } = await this.get(id);
    return { client, previous };
  }
}

async function attachInterfaces(em: EntityManager, clientId: string, interfaceIds: readonly string[]): Promise<void> {
  if (interfaceIds.length === 0) return;
  await em.execute(
    `insert into client_interfaces (client_id, interface_id) select ?, unnest(array[?]::uuid[])`,
    [clientId, [...interfaceIds]],
  );
}

/**
 * Makes `wanted` the client's set of interfaces: a new interface gets an account for every
 * device, a dropped one loses them. Returns the nodes whose interfaces gained or lost accounts.
 */
async function changeInterfaces(em: EntityManager, clientId: string, wanted: readonly string[], now: Date): Promise<string[]> {
  const current = new Set(
    (await em.execute<{ interface_id: string }[]>(`select interface_id from client_interfaces where client_id = ?`, [clientId])).map(
      (row) => row.interface_id,
    ),
  );
  const wantedSet = new Set(wanted);
  const added = wanted.filter((id) => !current.has(id));
  const removed = [...current].filter((id) => !wantedSet.has(id));
  const nodes: string[] = [];
  if (added.length > 0) {
    const interfaces = await lockInterfaces(em, added);
    const devices = await em.execute<{ id: string }[]>(`select id from devices where client_id = ? order by created_at, id`, [clientId]);
    await createAccounts(em, devices.map((device) => device.id), interfaces, now);
    await attachInterfaces(em, clientId, added);
    nodes.push(...interfaces.map((iface) => iface.nodeId));
  }
  if (removed.length > 0) {
    const rows = await em.execute<{ node_id: string }[]>(`select node_id from interfaces where id = any(array[?]::uuid[])`, [removed]);
    nodes.push(...rows.map((row) => row.node_id));
    await em.execute(
      `delete from accounts where interface_id = any(array[?]::uuid[]) and device_id in (select id from devices where client_id = ?)`,
      [removed, clientId],
    );
    await em.execute(`delete from client_interfaces where client_id = ? and interface_id = any(array[?]::uuid[])`, [clientId, removed]);
  }
  return nodes;
}
