import { Injectable } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type SelectQueryBuilder } from 'kysely';
import { randomUUID } from 'node:crypto';
import type { OwnerFilter } from '../auth/operator-scope.js';
import { isOnline } from '../common/online.js';
import type { DeviceView } from './client-view.js';
import { kysely, type ClientsDb } from './clients-db.js';
import { chunks, INSERT_CHUNK, readNumber, readRequiredTimestamp, readTimestamp } from './sql.js';

export interface NewDevice {
  id: string;
  clientId: string;
  name: string;
}

/** Device rows: counts and names under the client lock, inserts, deletes and the device views. */
@Injectable()
export class DevicesRepository {
  async count(em: EntityManager, clientId: string): Promise<number> {
    const row = await kysely(em)
      .selectFrom('devices')
      .select((eb) => eb.fn.countAll().as('count'))
      .where('client_id', '=', clientId)
      .executeTakeFirstOrThrow();
    return readNumber(row.count);
  }

  /** Names are unique per client ignoring case (the devices_client_name_unique index holds the same). */
  async nameTaken(em: EntityManager, clientId: string, name: string): Promise<boolean> {
    const row = await kysely(em)
      .selectFrom('devices')
      .select('id')
      .where('client_id', '=', clientId)
      .where(sql<string>`lower(name)`, '=', name.toLowerCase())
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Inserts devices of one client; returns their ids in the order of `names`. Devices created
   * together are a microsecond apart, so listings (ordered by creation) keep the order given.
   */
  async insert(em: EntityManager, clientId: string, names: readonly string[], now: Date): Promise<string[]> {
    const ids = names.map(() => randomUUID());
    await this.insertMany(
      em,
      names.map((name, index) => ({ id: ids[index], clientId, name })),
      now,
    );
    return ids;
  }

  /** Devices of many clients, a microsecond apart in the order given, in multi-row statements. */
  async insertMany(em: EntityManager, devices: readonly NewDevice[], now: Date): Promise<void> {
    let index = 0;
    for (const chunk of chunks(devices, INSERT_CHUNK)) {
      await kysely(em)
        .insertInto('devices')
        .values(
          chunk.map((device) => ({
            id: device.id,
            client_id: device.clientId,
            name: device.name,
            created_at: sql<Date>`${now}::timestamptz + ${index++} * interval '1 microsecond'`,
          })),
        )
        .execute();
    }
  }

  async idsOf(em: EntityManager, clientId: string): Promise<string[]> {
    const rows = await kysely(em)
      .selectFrom('devices')
      .select('id')
      .where('client_id', '=', clientId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map((row) => row.id);
  }

  /** The device's client, or undefined when there is no such device within the scope. */
  async clientOf(em: EntityManager, deviceId: string, scope: OwnerFilter): Promise<string | undefined> {
    const row = await kysely(em)
      .selectFrom('devices as d')
      .innerJoin('clients as c', 'c.id', 'd.client_id')
      .select('d.client_id')
      .where('d.id', '=', deviceId)
      .$if(scope.ownerId !== null, (qb) => qb.where('c.owner_id', '=', scope.ownerId!))
      .executeTakeFirst();
    return row?.client_id;
  }

  /** False when there was no such device. Its accounts go with it (on delete cascade). */
  async delete(em: EntityManager, deviceId: string): Promise<boolean> {
    const rows = await kysely(em).deleteFrom('devices').where('id', '=', deviceId).returning('id').execute();
    return rows.length > 0;
  }

  async view(em: EntityManager, deviceId: string): Promise<DeviceView | undefined> {
    const rows = await devicesWithAccounts(em).where('d.id', '=', deviceId).orderBy('a.interface_id').execute();
    return toDeviceViews(rows)[0];
  }

  async viewsOf(em: EntityManager, clientId: string): Promise<DeviceView[]> {
    const rows = await devicesWithAccounts(em)
      .where('d.client_id', '=', clientId)
      .orderBy('d.created_at')
      .orderBy('d.id')
      .orderBy('a.interface_id')
      .execute();
    return toDeviceViews(rows);
  }
}

/** Devices with their accounts (public parts only: never a private or preshared key). */
function devicesWithAccounts(em: EntityManager) {
  return kysely(em)
    .selectFrom('devices as d')
    .leftJoin('accounts as a', 'a.device_id', 'd.id')
    .select([
      'd.id as device_id',
      'd.client_id',
      'd.name as device_name',
      'd.up_bytes as device_up_bytes',
      'd.down_bytes as device_down_bytes',
      'd.last_handshake as device_last_handshake',
      'd.created_at as device_created_at',
      'a.id as account_id',
      'a.interface_id',
      'a.node_id',
      'a.ip',
      'a.public_key',
      'a.enabled',
      'a.up_bytes',
      'a.down_bytes',
      'a.last_handshake',
      'a.last_endpoint',
      // A rate holds until the next report is due (usage.service.ts): past it the peer moved nothing.
      sql<string | null>`case when a.rate_until > now() then a.up_rate else 0 end`.as('up_rate'),
      sql<string | null>`case when a.rate_until > now() then a.down_rate else 0 end`.as('down_rate'),
    ]);
}

type DeviceAccountRow =
  ReturnType<typeof devicesWithAccounts> extends SelectQueryBuilder<ClientsDb, never, infer Row> ? Row : never;

function toDeviceViews(rows: readonly DeviceAccountRow[]): DeviceView[] {
  const devices = new Map<string, DeviceView>();
  for (const row of rows) {
    let device = devices.get(row.device_id);
    if (!device) {
      const lastHandshake = readTimestamp(row.device_last_handshake);
      device = {
        id: row.device_id,
        clientId: row.client_id,
        name: row.device_name,
        upBytes: readNumber(row.device_up_bytes),
        downBytes: readNumber(row.device_down_bytes),
        lastHandshake,
        onlineNow: isOnline(lastHandshake),
        createdAt: readRequiredTimestamp(row.device_created_at),
        accounts: [],
      };
      devices.set(device.id, device);
    }
    if (row.account_id) {
      device.accounts.push({
        id: row.account_id,
        interfaceId: row.interface_id!,
        nodeId: row.node_id!,
        ip: row.ip!,
        publicKey: row.public_key!,
        enabled: row.enabled!,
        upBytes: readNumber(row.up_bytes),
        downBytes: readNumber(row.down_bytes),
        lastHandshake: readTimestamp(row.last_handshake),
        lastEndpoint: row.last_endpoint ?? null,
        upRate: readNumber(row.up_rate ?? 0),
        downRate: readNumber(row.down_rate ?? 0),
      });
    }
  }
  return [...devices.values()];
}
