import { Injectable } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { kysely } from '../clients-db.js';
import type { LockedClient } from '../clients.repository.js';
import { chunks, readNumber, readTimestamp } from '../sql.js';
import type { OwnerFilter } from '../../auth/operator-scope.js';

/** An existing client an import row matches by name. */
export interface ExistingClient extends LockedClient {
  name: string;
}

/** Who holds an address or a public key on an interface. */
export interface Holder {
  clientId: string;
  ip: string;
  publicKey: string;
}

/** The reads of an import's plan and of an export: existing names, addresses and keys, whole clients. */
@Injectable()
export class TransferRepository {
  /**
   * Clients by lower-cased name, for names among `names`, in the scope: a reseller's import matches
   * their own clients only (another operator's of the same name is not theirs to update).
   */
  async clientsNamed(
    em: EntityManager,
    names: readonly string[],
    scope: OwnerFilter,
  ): Promise<Map<string, ExistingClient>> {
    const found = new Map<string, ExistingClient>();
    for (const chunk of chunks([...new Set(names.map((name) => name.toLowerCase()))], 10_000)) {
      const rows = await kysely(em)
        .selectFrom('clients')
        .select([
          'id',
          'name',
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
        .where(sql<string>`lower(name)`, 'in', chunk)
        .$if(scope.ownerId !== null, (qb) => qb.where('owner_id', '=', scope.ownerId!))
        .orderBy('created_at')
        .execute();
      for (const row of rows) {
        const key = row.name.toLowerCase();
        if (found.has(key)) continue;
        found.set(key, {
          id: row.id,
          name: row.name,
          status: row.status,
          quotaBytes: readNumber(row.quota_bytes),
          usedBytes: readNumber(row.used_bytes),
          upBytes: readNumber(row.up_bytes),
          downBytes: readNumber(row.down_bytes),
          expiresAt: readTimestamp(row.expires_at),
          deviceLimit: readNumber(row.device_limit),
          rateBitsPerSec: readNumber(row.rate_bits_per_sec),
          groups: [...row.groups],
        });
      }
    }
    return found;
  }

  /** The accounts of an interface holding any of these addresses or public keys. */
  async holders(
    em: EntityManager,
    interfaceId: string,
    ips: readonly string[],
    publicKeys: readonly string[],
  ): Promise<{ byIp: Map<string, Holder>; byKey: Map<string, Holder> }> {
    const byIp = new Map<string, Holder>();
    const byKey = new Map<string, Holder>();
    const read = async (column: 'a.ip' | 'a.public_key', values: readonly string[]) => {
      for (const chunk of chunks(values, 10_000)) {
        const rows = await kysely(em)
          .selectFrom('accounts as a')
          .innerJoin('devices as d', 'd.id', 'a.device_id')
          .select(['d.client_id', 'a.ip', 'a.public_key'])
          .where('a.interface_id', '=', interfaceId)
          .where(column, 'in', chunk)
          .execute();
        for (const row of rows) {
          const holder = { clientId: row.client_id, ip: row.ip, publicKey: row.public_key };
          byIp.set(row.ip, holder);
          byKey.set(row.public_key, holder);
        }
      }
    };
    await read('a.ip', ips);
    await read('a.public_key', publicKeys);
    return { byIp, byKey };
  }
}

/** One account of one device of one client, as an export lists it (a client without devices: one row, no device). */
export interface ExportRow {
  client_id: string;
  name: string;
  note: string;
  groups: string[];
  telegram_id: string | number | null;
  quota_bytes: string | number;
  used_bytes: string | number;
  expires_at: unknown;
  device_limit: number;
  rate_bits_per_sec: string | number;
  reset_cycle: string;
  status: string;
  sub_id: string;
  created_at: unknown;
  device_name: string | null;
  interface_name: string | null;
  interface_id: string | null;
  ip: string | null;
  public_key: string | null;
  private_key: string | null;
  preshared_key: string | null;
}

/**
 * Every client in the scope (of `group` when given) with its devices and accounts, oldest first;
 * keys only when `withSecrets`.
 */
export async function exportRows(
  em: EntityManager,
  scope: OwnerFilter,
  withSecrets: boolean,
  group?: string,
): Promise<ExportRow[]> {
  // Raw SQL: one ordered read of four tables, secrets selected only when asked for.
  const secrets = withSecrets ? 'a.private_key, a.preshared_key' : 'null as private_key, null as preshared_key';
  return em.execute<ExportRow[]>(
    `select c.id as client_id, c.name, c.note, c.groups, c.telegram_id, c.quota_bytes, c.used_bytes, c.expires_at,
            c.device_limit, c.rate_bits_per_sec, c.reset_cycle, c.status, c.sub_id, c.created_at,
            d.name as device_name, i.name as interface_name, i.id as interface_id, a.ip, a.public_key, ${secrets}
       from clients c
       left join devices d on d.client_id = c.id
       left join accounts a on a.device_id = d.id
       left join interfaces i on i.id = a.interface_id
      where (?::uuid is null or c.owner_id = ?::uuid) and (?::text is null or ?::text = any(c.groups))
      order by c.created_at, c.id, d.created_at, d.id, i.name`,
    [scope.ownerId, scope.ownerId, group ?? null, group ?? null],
  );
}
