import { Injectable } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import { selectionWhere, type ClientFilter } from '../clients/client-list.repository.js';
import { readNumber, readTimestamp } from '../clients/sql.js';

export interface GroupRow {
  name: string;
  note: string;
  quotaBytes: number;
  expiryDays: number;
  deviceLimit: number;
  interfaceIds: string[];
  rateBitsPerSec: number;
  createdAt: Date;
  updatedAt: Date;
}

export type GroupDefaults = Omit<GroupRow, 'name' | 'createdAt' | 'updatedAt'>;

/**
 * Groups' rows and the membership writes. Members are selected through the clients' one filter
 * (`selectionWhere`); each membership write is one statement over all of them. Raw SQL: arrays
 * rewritten in place (array_replace, array_remove) have no typed-builder spelling.
 */
@Injectable()
export class GroupsRepository {
  async list(em: EntityManager): Promise<GroupRow[]> {
    const rows = await em.execute<Record<string, unknown>[]>(`select * from client_groups order by name`);
    return rows.map(toGroup);
  }

  async find(em: EntityManager, name: string, lock = false): Promise<GroupRow | undefined> {
    const [row] = await em.execute<Record<string, unknown>[]>(
      `select * from client_groups where name = ?${lock ? ' for update' : ''}`,
      [name],
    );
    return row ? toGroup(row) : undefined;
  }

  /** Every name: defined groups and the names clients carry. */
  async names(em: EntityManager, scope: Pick<ClientFilter, 'ownerId'>): Promise<string[]> {
    // A reseller's: the defined groups and the names their own clients carry, none of another's.
    const rows = await em.execute<{ name: string }[]>(
      `select name from client_groups
        union select distinct unnest(groups) from clients where (?::uuid is null or owner_id = ?::uuid) order by 1`,
      [scope.ownerId ?? null, scope.ownerId ?? null],
    );
    return rows.map((row) => row.name);
  }

  /** Creates the group or replaces its defaults; true when it was made. */
  async save(em: EntityManager, name: string, defaults: GroupDefaults, now: Date): Promise<boolean> {
    const [row] = await em.execute<{ created: boolean }[]>(
      `insert into client_groups (name, note, quota_bytes, expiry_days, device_limit, interface_ids, rate_bits_per_sec, created_at, updated_at)
       values (?, ?, ?, ?, ?, array[?]::text[], ?, ?::timestamptz, ?::timestamptz)
       on conflict (name) do update set note = excluded.note, quota_bytes = excluded.quota_bytes,
         expiry_days = excluded.expiry_days, device_limit = excluded.device_limit,
         interface_ids = excluded.interface_ids, rate_bits_per_sec = excluded.rate_bits_per_sec,
         updated_at = excluded.updated_at
       returning (xmax = 0) as created`,
      [
        name,
        defaults.note,
        defaults.quotaBytes,
        defaults.expiryDays,
        defaults.deviceLimit,
        defaults.interfaceIds,
        defaults.rateBitsPerSec,
        now.toISOString(),
        now.toISOString(),
      ],
    );
    return row.created;
  }

  async deleteRow(em: EntityManager, name: string): Promise<boolean> {
    const rows = await em.execute<{ name: string }[]>(`delete from client_groups where name = ? returning name`, [
      name,
    ]);
    return rows.length > 0;
  }

  async renameRow(em: EntityManager, name: string, newName: string, now: Date): Promise<void> {
    await em.execute(`update client_groups set name = ?, updated_at = ?::timestamptz where name = ?`, [
      newName,
      now.toISOString(),
      name,
    ]);
  }

  /** Members of `name` get `newName` in its place (once, where it stood); returns their ids. */
  async renameMembers(em: EntityManager, scope: ClientFilter, name: string, newName: string): Promise<string[]> {
    const { where, values } = selectionWhere({ ...scope, group: name });
    const rows = await em.execute<{ id: string }[]>(
      `update clients c set groups = array_replace(array_remove(c.groups, ?::text), ?::text, ?::text), updated_at = now()
        where ${where} returning c.id`,
      [newName, name, newName, ...values],
    );
    return rows.map((row) => row.id);
  }

  /** The selected clients leave `name`; returns the ids of those that were members. */
  async removeMembers(em: EntityManager, scope: ClientFilter, name: string): Promise<string[]> {
    const { where, values } = selectionWhere({ ...scope, group: name });
    const rows = await em.execute<{ id: string }[]>(
      `update clients c set groups = array_remove(c.groups, ?::text), updated_at = now() where ${where} returning c.id`,
      [name, ...values],
    );
    return rows.map((row) => row.id);
  }

  /** The selected clients that are not members join `name` (last in their list); returns their ids. */
  async addMembers(em: EntityManager, scope: ClientFilter, name: string): Promise<string[]> {
    const { where, values } = selectionWhere(scope);
    const rows = await em.execute<{ id: string }[]>(
      `update clients c set groups = c.groups || array[?::text], updated_at = now()
        where ${where} and not (c.groups @> array[?::text]) returning c.id`,
      [name, ...values, name],
    );
    return rows.map((row) => row.id);
  }

  /** How many selected clients there are, and how many of them could not join one more group. */
  async selected(
    em: EntityManager,
    scope: ClientFilter,
    name: string,
    max: number,
  ): Promise<{ all: number; full: number }> {
    const { where, values } = selectionWhere(scope);
    const [row] = await em.execute<{ all: string; full: string }[]>(
      `select count(*) as all, count(*) filter (where cardinality(c.groups) >= ? and not (c.groups @> array[?::text])) as full
         from clients c where ${where}`,
      [max, name, ...values],
    );
    return { all: readNumber(row.all), full: readNumber(row.full) };
  }

  /** Routing rules that name the group (routing/ sits above groups/: read by table name). */
  async rulesNaming(em: EntityManager, name: string): Promise<number> {
    const [row] = await em.execute<{ n: string }[]>(
      `select count(*) as n from routing_rules where groups @> array[?::text]`,
      [name],
    );
    return readNumber(row.n);
  }

  /**
   * Nodes where these clients' addresses move in or out of a routing rule naming one of the
   * groups: their desired state changes with the membership.
   */
  async nodesRoutingBy(em: EntityManager, clientIds: readonly string[], names: readonly string[]): Promise<string[]> {
    if (clientIds.length === 0) return [];
    const rows = await em.execute<{ node_id: string }[]>(
      `select distinct i.node_id from client_interfaces ci join interfaces i on i.id = ci.interface_id
        where ci.client_id = any(array[?]::uuid[])
          and exists (select 1 from routing_rules r where r.node_id = i.node_id and r.groups && array[?]::text[])`,
      [clientIds, names],
    );
    return rows.map((row) => row.node_id);
  }

  async interfacesExisting(em: EntityManager, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await em.execute<{ id: string }[]>(`select id from interfaces where id = any(array[?]::uuid[])`, [
      ids,
    ]);
    return new Set(rows.map((row) => row.id));
  }
}

function toGroup(row: Record<string, unknown>): GroupRow {
  return {
    name: row.name as string,
    note: row.note as string,
    quotaBytes: readNumber(row.quota_bytes),
    expiryDays: readNumber(row.expiry_days),
    deviceLimit: readNumber(row.device_limit),
    interfaceIds: (row.interface_ids as string[]) ?? [],
    rateBitsPerSec: readNumber(row.rate_bits_per_sec),
    createdAt: readTimestamp(row.created_at)!,
    updatedAt: readTimestamp(row.updated_at)!,
  };
}
