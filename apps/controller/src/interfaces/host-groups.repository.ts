import { Inject, Injectable } from '@nestjs/common';
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import { HostGroup } from './host-group.entity.js';
import { uuidArray } from './hosts.repository.js';

export interface HostGroupView {
  id: string;
  name: string;
  position: number;
  clientGroups: string[];
  /** Hosts in the group. */
  hosts: number;
  /** ISO 8601 in UTC, as every other timestamp of the API (ISO, below). */
  createdAt: string;
  updatedAt: string;
}

type Row = Omit<HostGroupView, 'hosts'> & { hosts: string | number };

/**
 * A raw execute hands timestamptz back as PostgreSQL's text ("2026-11-27 04:21:44.123+00"); the
 * API answers Date.toJSON's form (2026-11-27T04:21:44.123Z), so the query writes that form.
 */
const ISO = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const SELECT = `select g.id, g.name, g.position, g.client_groups as "clientGroups",
       ${ISO('g.created_at')} as "createdAt", ${ISO('g.updated_at')} as "updatedAt",
       (select count(*) from hosts h where h.group_id = g.id) as hosts
  from host_groups g`;

function view(row: Row): HostGroupView {
  return { ...row, hosts: Number(row.hosts) };
}

/** Host group rows; writes run in the service's transaction (its EntityManager). */
@Injectable()
export class HostGroupsRepository {
  constructor(@Inject(MikroORM) private readonly orm: MikroORM) {}

  transaction<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    return this.orm.em.fork().transactional(work);
  }

  async list(): Promise<HostGroupView[]> {
    return (await this.orm.em.fork().execute<Row[]>(`${SELECT} order by g.position, g.name, g.id`)).map(view);
  }

  async get(id: string): Promise<HostGroupView | null> {
    const [row] = await this.orm.em.fork().execute<Row[]>(`${SELECT} where g.id = ?`, [id]);
    return row ? view(row) : null;
  }

  /** The group's row locked for this transaction, or null. */
  lock(em: EntityManager, id: string): Promise<HostGroup | null> {
    return em.findOne(HostGroup, { id }, { lockMode: 4 /* pessimistic write */, refresh: true });
  }

  /** Whether another group has this name, ignoring case. */
  async nameTaken(em: EntityManager, name: string, except?: string): Promise<boolean> {
    const rows = await em.execute<{ id: string }[]>(
      `select id from host_groups where lower(name) = lower(?) and id is distinct from ? limit 1`,
      [name, except ?? null],
    );
    return rows.length > 0;
  }

  async insert(em: EntityManager, name: string, clientGroups: string[]): Promise<string> {
    const [last] = await em.execute<{ position: number | null }[]>(`select max(position) as position from host_groups`);
    const group = em.create(HostGroup, {
      name,
      clientGroups,
      position: last?.position == null ? 0 : Number(last.position) + 1,
    });
    await em.flush();
    return group.id;
  }

  async save(em: EntityManager): Promise<void> {
    await em.flush();
  }

  async delete(em: EntityManager, id: string): Promise<void> {
    await em.nativeDelete(HostGroup, { id });
  }

  /** The ids among these that name a group. */
  async existing(em: EntityManager, ids: readonly string[]): Promise<Set<string>> {
    const rows = await em.execute<{ id: string }[]>(`select id from host_groups where id = any(?::uuid[])`, [
      uuidArray(ids),
    ]);
    return new Set(rows.map((row) => row.id));
  }

  async setPositions(em: EntityManager, ids: readonly string[]): Promise<void> {
    await em.execute(
      `update host_groups set position = ordered.position - 1, updated_at = now()
         from unnest(?::uuid[]) with ordinality as ordered(id, position) where host_groups.id = ordered.id`,
      [uuidArray(ids)],
    );
  }

  /** Puts the hosts in the group (null: in none): how many moved, and the nodes serving them, to bump. */
  async assign(
    em: EntityManager,
    groupId: string | null,
    hostIds: readonly string[],
  ): Promise<{ changed: number; nodes: string[] }> {
    const rows = await em.execute<{ node_id: string }[]>(
      `with moved as (
         update hosts set group_id = ?, updated_at = now()
          where id = any(?::uuid[]) and group_id is distinct from ? returning interface_id)
       select i.node_id from moved join interfaces i on i.id = moved.interface_id`,
      [groupId, uuidArray(hostIds), groupId],
    );
    return { changed: rows.length, nodes: [...new Set(rows.map((row) => row.node_id))] };
  }

  /** The nodes serving the group's hosts (a change of the group changes their configs). */
  async nodesOf(em: EntityManager, groupId: string): Promise<string[]> {
    const rows = await em.execute<{ node_id: string }[]>(
      `select distinct i.node_id from hosts h join interfaces i on i.id = h.interface_id where h.group_id = ?`,
      [groupId],
    );
    return rows.map((row) => row.node_id);
  }

  /** The ids among these that name a host. */
  async existingHosts(em: EntityManager, ids: readonly string[]): Promise<Set<string>> {
    const rows = await em.execute<{ id: string }[]>(`select id from hosts where id = any(?::uuid[])`, [uuidArray(ids)]);
    return new Set(rows.map((row) => row.id));
  }
}
