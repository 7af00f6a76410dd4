import { Injectable } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Updateable } from 'kysely';
import type { OwnerFilter } from '../auth/operator-scope.js';
import { notFound } from '../http/api-error.js';
import type { ClientStatus, ResetCycle } from './client.entity.js';
import { CLIENT_VIEW_COLUMNS, toClientView, type ClientRow, type ClientView } from './client-view.js';
import { kysely, type ClientsDb } from './clients-db.js';
import { chunks, INSERT_CHUNK, readNumber, readTimestamp } from './sql.js';

/** The part of a client row the status rules and PATCH work from. */
export interface LockedClient {
  id: string;
  status: ClientStatus;
  quotaBytes: number;
  usedBytes: number;
  upBytes: number;
  downBytes: number;
  expiresAt: Date | null;
  deviceLimit: number;
  rateBitsPerSec: number;
  groups: string[];
}

export interface NewClient {
  id: string;
  name: string;
  note: string;
  groups: string[];
  telegramId: number | null;
  quotaBytes: number;
  expiresAt: Date | null;
  deviceLimit: number;
  rateBitsPerSec: number;
  resetCycle: ResetCycle;
  startOnFirstUse: boolean;
  durationSeconds: number;
  status: ClientStatus;
  subId: string;
  /** Traffic already counted elsewhere (an import from another panel); 0 when absent. */
  usedBytes?: number;
  /** The operator it belongs to: whoever created it (docs/operators.md, "Client ownership"). */
  ownerId: string;
  now: Date;
  /**
   * Its summaries once its devices and links are in (docs/clients.md), written with the row so
   * the summary triggers have nothing to rewrite; absent, they start at none and the triggers
   * fill them in.
   */
  deviceCount?: number;
  interfaceIds?: readonly string[];
}

/** Columns PATCH may change; absent ones stay. */
export type ClientChanges = Partial<
  Pick<
    NewClient,
    | 'name'
    | 'note'
    | 'groups'
    | 'telegramId'
    | 'quotaBytes'
    | 'expiresAt'
    | 'deviceLimit'
    | 'resetCycle'
    | 'rateBitsPerSec'
  >
>;

/** Client rows: row locks, writes, the one-client view, and the interfaces a client is attached to. */
@Injectable()
export class ClientsRepository {
  /**
   * Locks a client row for the rest of the transaction, or answers 404. Whatever the caller reads
   * next (device count, interfaces) it reads in a later statement, so it sees every change committed
   * by the transaction that held the lock before it (READ COMMITTED takes a new snapshot per statement).
   */
  async lock(em: EntityManager, id: string, scope: OwnerFilter): Promise<LockedClient> {
    const row = await kysely(em)
      .selectFrom('clients')
      .select([
        'id',
        'status',
        'quota_bytes',
        'used_bytes',
        'up_bytes',
        'down_bytes',
        'expires_at',
        'device_limit',
        'rate_bits_per_sec',
        'groups',
      ])
      .where('id', '=', id)
      .$if(scope.ownerId !== null, (qb) => qb.where('owner_id', '=', scope.ownerId!))
      .forUpdate()
      .executeTakeFirst();
    if (!row) throw notFound('client not found', 'id');
    return {
      id: row.id,
      status: row.status,
      quotaBytes: readNumber(row.quota_bytes),
      usedBytes: readNumber(row.used_bytes),
      upBytes: readNumber(row.up_bytes),
      downBytes: readNumber(row.down_bytes),
      expiresAt: readTimestamp(row.expires_at),
      deviceLimit: readNumber(row.device_limit),
      rateBitsPerSec: readNumber(row.rate_bits_per_sec),
      groups: [...row.groups],
    };
  }

  /**
   * The client as the API shows it, or undefined. Raw SQL: it shares its select list (correlated
   * subqueries for device count, last handshake and interface ids) with the list's hot path.
   */
  async view(em: EntityManager, id: string, scope: OwnerFilter): Promise<ClientView | undefined> {
    const [row] =
      scope.ownerId === null
        ? await em.execute<ClientRow[]>(`select ${CLIENT_VIEW_COLUMNS} from clients c where c.id = ?`, [id])
        : await em.execute<ClientRow[]>(
            `select ${CLIENT_VIEW_COLUMNS} from clients c where c.id = ? and c.owner_id = ?`,
            [id, scope.ownerId],
          );
    return row ? toClientView(row) : undefined;
  }

  async nameOf(em: EntityManager, id: string, scope: OwnerFilter): Promise<string | undefined> {
    const row = await kysely(em)
      .selectFrom('clients')
      .select('name')
      .where('id', '=', id)
      .$if(scope.ownerId !== null, (qb) => qb.where('owner_id', '=', scope.ownerId!))
      .executeTakeFirst();
    return row?.name;
  }

  async insert(em: EntityManager, client: NewClient): Promise<void> {
    await this.insertMany(em, [client]);
  }

  /**
   * Many client rows in multi-row statements of INSERT_CHUNK rows: a batch of 10,000 is a handful
   * of statements (PostgreSQL takes at most 65,535 parameters in one).
   */
  async insertMany(em: EntityManager, clients: readonly NewClient[]): Promise<void> {
    let index = 0;
    for (const chunk of chunks(clients, INSERT_CHUNK)) {
      await kysely(em)
        .insertInto('clients')
        .values(
          chunk.map((client) => ({
            id: client.id,
            name: client.name,
            note: client.note,
            groups: client.groups,
            telegram_id: client.telegramId,
            quota_bytes: client.quotaBytes,
            used_bytes: client.usedBytes ?? 0,
            expires_at: client.expiresAt,
            device_limit: client.deviceLimit,
            rate_bits_per_sec: client.rateBitsPerSec,
            reset_cycle: client.resetCycle,
            start_on_first_use: client.startOnFirstUse,
            duration_seconds: client.durationSeconds,
            status: client.status,
            sub_id: client.subId,
            owner_id: client.ownerId,
            device_count: client.deviceCount ?? 0,
            interface_ids: [...(client.interfaceIds ?? [])],
            // A microsecond apart in the order given: "newest" and "oldest" list a batch in its order.
            created_at: sql<Date>`${client.now}::timestamptz + ${index++} * interval '1 microsecond'`,
            updated_at: client.now,
          })),
        )
        .execute();
    }
  }

  /** Names among `names` that clients already have, compared ignoring case (lower-cased). */
  async namesTaken(em: EntityManager, names: readonly string[]): Promise<Set<string>> {
    if (names.length === 0) return new Set();
    const lower = [...new Set(names.map((name) => name.toLowerCase()))];
    const taken = new Set<string>();
    for (const chunk of chunks(lower, 10_000)) {
      const rows = await kysely(em)
        .selectFrom('clients')
        .select(sql<string>`lower(name)`.as('name'))
        .where(sql<string>`lower(name)`, 'in', chunk)
        .execute();
      for (const row of rows) taken.add(row.name);
    }
    return taken;
  }

  async update(em: EntityManager, id: string, status: ClientStatus, changes: ClientChanges, now: Date): Promise<void> {
    const set: Updateable<ClientsDb['clients']> = { status, updated_at: now };
    if (changes.name !== undefined) set.name = changes.name;
    if (changes.note !== undefined) set.note = changes.note;
    if (changes.groups !== undefined) set.groups = changes.groups;
    if (changes.telegramId !== undefined) set.telegram_id = changes.telegramId;
    if (changes.quotaBytes !== undefined) set.quota_bytes = changes.quotaBytes;
    if (changes.expiresAt !== undefined) set.expires_at = changes.expiresAt;
    if (changes.deviceLimit !== undefined) set.device_limit = changes.deviceLimit;
    if (changes.resetCycle !== undefined) set.reset_cycle = changes.resetCycle;
    if (changes.rateBitsPerSec !== undefined) set.rate_bits_per_sec = changes.rateBitsPerSec;
    await kysely(em).updateTable('clients').set(set).where('id', '=', id).execute();
  }

  /** Devices, accounts and interface links go with it (on delete cascade). */
  async delete(em: EntityManager, id: string): Promise<void> {
    await kysely(em).deleteFrom('clients').where('id', '=', id).execute();
  }

  /** Zeroes the traffic of the client, its devices and their accounts; stamps lastResetAt. */
  async resetTraffic(em: EntityManager, id: string, status: ClientStatus, now: Date): Promise<void> {
    const db = kysely(em);
    await db.updateTable('devices').set({ up_bytes: 0, down_bytes: 0 }).where('client_id', '=', id).execute();
    await db
      .updateTable('accounts')
      .set({ up_bytes: 0, down_bytes: 0 })
      .where('device_id', 'in', db.selectFrom('devices').select('id').where('client_id', '=', id))
      .execute();
    await db
      .updateTable('clients')
      .set({ used_bytes: 0, up_bytes: 0, down_bytes: 0, last_reset_at: now, status, updated_at: now })
      .where('id', '=', id)
      .execute();
  }

  async interfaceIds(em: EntityManager, clientId: string): Promise<string[]> {
    const rows = await kysely(em)
      .selectFrom('client_interfaces')
      .select('interface_id')
      .where('client_id', '=', clientId)
      .execute();
    return rows.map((row) => row.interface_id);
  }

  async attachInterfaces(em: EntityManager, clientId: string, interfaceIds: readonly string[]): Promise<void> {
    await this.attachMany(
      em,
      interfaceIds.map((interfaceId) => ({ clientId, interfaceId })),
    );
  }

  async attachMany(em: EntityManager, links: readonly { clientId: string; interfaceId: string }[]): Promise<void> {
    for (const chunk of chunks(links, INSERT_CHUNK)) {
      await kysely(em)
        .insertInto('client_interfaces')
        .values(chunk.map((link) => ({ client_id: link.clientId, interface_id: link.interfaceId })))
        .execute();
    }
  }

  async detachInterfaces(em: EntityManager, clientId: string, interfaceIds: readonly string[]): Promise<void> {
    if (interfaceIds.length === 0) return;
    await kysely(em)
      .deleteFrom('client_interfaces')
      .where('client_id', '=', clientId)
      .where('interface_id', 'in', [...interfaceIds])
      .execute();
  }

  /** The nodes that carry any of these clients' interfaces (whose desired state includes them). */
  async nodesOf(em: EntityManager, clientIds: readonly string[]): Promise<string[]> {
    if (clientIds.length === 0) return [];
    const rows = await kysely(em)
      .selectFrom('client_interfaces as ci')
      .innerJoin('interfaces as i', 'i.id', 'ci.interface_id')
      .select('i.node_id')
      .distinct()
      .where('ci.client_id', 'in', [...clientIds])
      .execute();
    return rows.map((row) => row.node_id);
  }

  /**
   * The defaults of the first of `names` that is a defined group (groups/ sits above clients/ in
   * the dependency order: read by table name), or undefined.
   */
  async groupDefaults(
    em: EntityManager,
    names: readonly string[],
  ): Promise<
    | { quotaBytes: number; expiryDays: number; deviceLimit: number; interfaceIds: string[]; rateBitsPerSec: number }
    | undefined
  > {
    if (names.length === 0) return undefined;
    const rows = await em.execute<Record<string, unknown>[]>(
      `select name, quota_bytes, expiry_days, device_limit, interface_ids, rate_bits_per_sec
         from client_groups where name = any(array[?]::text[])`,
      [names],
    );
    const row = names.map((name) => rows.find((r) => r.name === name)).find(Boolean);
    if (!row) return undefined;
    return {
      quotaBytes: readNumber(row.quota_bytes),
      expiryDays: readNumber(row.expiry_days),
      deviceLimit: readNumber(row.device_limit),
      interfaceIds: (row.interface_ids as string[]) ?? [],
      rateBitsPerSec: readNumber(row.rate_bits_per_sec),
    };
  }

  /**
   * The client's nodes where a routing rule names groups: there its group change moves its
   * addresses in or out of rules. routing_rules belongs to routing/, above clients/ in the
   * dependency order: read by table name.
   */
  async nodesRoutingByGroup(em: EntityManager, clientId: string): Promise<string[]> {
    const rows = await em.execute<{ node_id: string }[]>(
      `select distinct i.node_id from client_interfaces ci join interfaces i on i.id = ci.interface_id
        where ci.client_id = ? and exists (select 1 from routing_rules r where r.node_id = i.node_id and cardinality(r.groups) > 0)`,
      [clientId],
    );
    return rows.map((row) => row.node_id);
  }
}
