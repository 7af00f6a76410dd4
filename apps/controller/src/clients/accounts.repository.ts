import { Injectable } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import { kysely } from './clients-db.js';
import { chunks, INSERT_CHUNK, readNullableNumber, valuesPlaceholders } from './sql.js';

/** An interface row locked for this transaction: its address pool and cursor are ours until commit. */
export interface LockedInterface {
  id: string;
  nodeId: string;
  name: string;
  subnet: string;
  cursor: number | null;
  /** The server's public key (what profiles name as their peer). */
  publicKey: string;
}

export interface NewAccount {
  id: string;
  deviceId: string;
  interfaceId: string;
  nodeId: string;
  ip: string;
  privateKey: string;
  publicKey: string;
  presharedKey: string;
  createdAt: Date;
}

export interface AccountKeys {
  id: string;
  privateKey: string;
  publicKey: string;
  presharedKey: string;
}

/**
 * Account rows (a device's peer on one interface) and the interface rows whose address pools
 * they draw from. Everything runs in the caller's transaction (`em` is its entity manager).
 */
@Injectable()
export class AccountsRepository {
  /**
   * Locks the interfaces (`for update`, in id order so two transactions never wait on each other
   * in a circle); the rows found, by id.
   */
  async lockInterfaces(em: EntityManager, ids: readonly string[]): Promise<Map<string, LockedInterface>> {
    if (ids.length === 0) return new Map();
    const rows = await kysely(em)
      .selectFrom('interfaces')
      .select(['id', 'node_id', 'name', 'subnet', 'allocation_cursor', 'public_key'])
      .where('id', 'in', [...ids])
      .orderBy('id')
      .forUpdate()
      .execute();
    return new Map(
      rows.map((row) => [
        row.id,
        {
          id: row.id,
          nodeId: row.node_id,
          name: row.name,
          subnet: row.subnet,
          cursor: readNullableNumber(row.allocation_cursor),
          publicKey: row.public_key,
        },
      ]),
    );
  }

  async nodesOfInterfaces(em: EntityManager, interfaceIds: readonly string[]): Promise<string[]> {
    if (interfaceIds.length === 0) return [];
    const rows = await kysely(em)
      .selectFrom('interfaces')
      .select('node_id')
      .where('id', 'in', [...interfaceIds])
      .execute();
    return rows.map((row) => row.node_id);
  }

  /** The addresses of an interface in use, all of them or only those among `candidates`. */
  async addressesInUse(em: EntityManager, interfaceId: string, candidates?: readonly string[]): Promise<Set<string>> {
    if (candidates?.length === 0) return new Set();
    let query = kysely(em).selectFrom('accounts').select('ip').where('interface_id', '=', interfaceId);
    if (candidates) query = query.where('ip', 'in', [...candidates]);
    return new Set((await query.execute()).map((row) => row.ip));
  }

  async moveCursor(em: EntityManager, interfaceId: string, cursor: number): Promise<void> {
    await kysely(em)
      .updateTable('interfaces')
      .set({ allocation_cursor: cursor })
      .where('id', '=', interfaceId)
      .execute();
  }

  async insert(em: EntityManager, accounts: readonly NewAccount[]): Promise<void> {
    for (const chunk of chunks(accounts, INSERT_CHUNK)) {
      await kysely(em)
        .insertInto('accounts')
        .values(
          chunk.map((account) => ({
            id: account.id,
            device_id: account.deviceId,
            interface_id: account.interfaceId,
            node_id: account.nodeId,
            ip: account.ip,
            private_key: account.privateKey,
            public_key: account.publicKey,
            preshared_key: account.presharedKey,
            created_at: account.createdAt,
          })),
        )
        .execute();
    }
  }

  /** The public keys of an interface in use among `keys`. */
  async publicKeysInUse(em: EntityManager, interfaceId: string, keys: readonly string[]): Promise<Set<string>> {
    const used = new Set<string>();
    for (const chunk of chunks(keys, 10_000)) {
      const rows = await kysely(em)
        .selectFrom('accounts')
        .select('public_key')
        .where('interface_id', '=', interfaceId)
        .where('public_key', 'in', chunk)
        .execute();
      for (const row of rows) used.add(row.public_key);
    }
    return used;
  }

  /** Drops the client's accounts on these interfaces. */
  async deleteOfClientOn(em: EntityManager, clientId: string, interfaceIds: readonly string[]): Promise<void> {
    if (interfaceIds.length === 0) return;
    const db = kysely(em);
    await db
      .deleteFrom('accounts')
      .where('interface_id', 'in', [...interfaceIds])
      .where('device_id', 'in', db.selectFrom('devices').select('id').where('client_id', '=', clientId))
      .execute();
  }

  async nodesOfDevice(em: EntityManager, deviceId: string): Promise<string[]> {
    const rows = await kysely(em)
      .selectFrom('accounts')
      .select('node_id')
      .distinct()
      .where('device_id', '=', deviceId)
      .execute();
    return rows.map((row) => row.node_id);
  }

  /** Locks every account of the client (in id order); their ids. */
  async lockOfClient(em: EntityManager, clientId: string): Promise<string[]> {
    const rows = await kysely(em)
      .selectFrom('accounts as a')
      .innerJoin('devices as d', 'd.id', 'a.device_id')
      .select('a.id')
      .where('d.client_id', '=', clientId)
      .orderBy('a.id')
      .forUpdate('a')
      .execute();
    return rows.map((row) => row.id);
  }

  /**
   * New keys for many accounts in one statement. Raw SQL: an `update … from (values …)` has no
   * typed form here, and one statement per account would make a rotation of a client with many
   * devices a round trip per row.
   */
  async replaceKeys(em: EntityManager, keys: readonly AccountKeys[]): Promise<void> {
    if (keys.length === 0) return;
    await em.execute(
      `update accounts a set private_key = v.private_key, public_key = v.public_key, preshared_key = v.preshared_key
         from (values ${valuesPlaceholders(keys.length, 4)}) as v(id, private_key, public_key, preshared_key)
        where a.id = v.id::uuid`,
      keys.flatMap((key) => [key.id, key.privateKey, key.publicKey, key.presharedKey]),
    );
  }
}
