import { Inject, Injectable } from '@nestjs/common';
import { MikroORM, type EntityManager, type InferKyselyDB } from '@mikro-orm/postgresql';
import { Host } from './host.entity.js';
import { HostGroup } from './host-group.entity.js';
import { TunnelInterface } from './interface.entity.js';

export interface HostView {
  id: string;
  interfaceId: string;
  name: string;
  address: string;
  /** As stored: 0 means the interface's listen port. */
  port: number;
  /** The port clients actually dial. */
  effectivePort: number;
  priority: number;
  enabled: boolean;
  /** Its host group, or null. */
  groupId: string | null;
  tags: string[];
  position: number;
  createdAt: Date;
  updatedAt: Date;
}

export type HostFields = Pick<Host, 'name' | 'address' | 'port' | 'priority' | 'enabled' | 'tags'> & {
  groupId: string | null;
};

type HostsDb = InferKyselyDB<typeof Host>;

function view(host: Host): HostView {
  return {
    id: host.id,
    interfaceId: host.interface.id,
    name: host.name,
    address: host.address,
    port: host.port,
    effectivePort: host.port === 0 ? host.interface.listenPort : host.port,
    priority: host.priority,
    enabled: host.enabled,
    groupId: host.group?.id ?? null,
    tags: host.tags,
    position: host.position,
    createdAt: host.createdAt,
    updatedAt: host.updatedAt,
  };
}

const ORDER = { priority: 'desc', position: 'asc', name: 'asc', id: 'asc' } as const;

/** Host rows and their views; writes run in the service's transaction (its EntityManager). */
@Injectable()
export class HostsRepository {
  constructor(@Inject(MikroORM) private readonly orm: MikroORM) {}

  async list(interfaceId?: string): Promise<HostView[]> {
    const hosts = await this.orm.em.fork().find(Host, interfaceId ? { interface: interfaceId } : {}, {
      populate: ['interface'],
      orderBy: { interface: { name: 'asc' }, ...ORDER },
    });
    return hosts.map(view);
  }

  async get(id: string): Promise<HostView | null> {
    const host = await this.orm.em.fork().findOne(Host, { id }, { populate: ['interface'] });
    return host && view(host);
  }

  async interfaceExists(interfaceId: string): Promise<boolean> {
    return (await this.orm.em.fork().count(TunnelInterface, { id: interfaceId })) > 0;
  }

  /** The host with its interface; `refresh` reads it again (after its interface was locked). */
  find(em: EntityManager, id: string, options: { refresh?: boolean } = {}): Promise<Host | null> {
    return em.findOne(Host, { id }, { populate: ['interface'], ...options });
  }

  /** Whether another host of the interface has this name, ignoring case. */
  async nameTaken(em: EntityManager, interfaceId: string, name: string): Promise<boolean> {
    const taken = await em
      .getKysely<HostsDb>()
      .selectFrom('hosts')
      .select('id')
      .where('interface_id', '=', interfaceId)
      .where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase()))
      .limit(1)
      .executeTakeFirst();
    return taken !== undefined;
  }

  async insert(em: EntityManager, interfaceId: string, { groupId, ...fields }: HostFields): Promise<string> {
    const host = em.create(Host, {
      ...fields,
      // Position 0: among hosts of equal priority a new one sorts by name until reordered.
      position: 0,
      group: groupId === null ? null : em.getReference(HostGroup, groupId),
      interface: em.getReference(TunnelInterface, interfaceId),
    });
    await em.flush();
    return host.id;
  }

  /** Writes the changes made to a host read with find(). */
  async save(em: EntityManager): Promise<void> {
    await em.flush();
  }

  /** The hosts of these ids that exist, with their interfaces. */
  findMany(em: EntityManager, ids: readonly string[], options: { refresh?: boolean } = {}): Promise<Host[]> {
    return em.find(Host, { id: { $in: [...ids] } }, { populate: ['interface'], ...options });
  }

  setGroup(em: EntityManager, host: Host, groupId: string | null): void {
    host.group = groupId === null ? null : em.getReference(HostGroup, groupId);
  }

  async groupExists(em: EntityManager, groupId: string): Promise<boolean> {
    return (await em.count(HostGroup, { id: groupId })) > 0;
  }

  /** Positions 0.. in the order of `ids`, one statement. */
  async setPositions(em: EntityManager, ids: readonly string[]): Promise<void> {
    await em.execute(
      `update hosts set position = ordered.position - 1, updated_at = now()
         from unnest(?::uuid[]) with ordinality as ordered(id, position) where hosts.id = ordered.id`,
      [uuidArray(ids)],
    );
  }

  async tags(): Promise<{ tag: string; hosts: number }[]> {
    const rows = await this.orm.em
      .fork()
      .execute<{ tag: string; hosts: string }[]>(
        `select tag, count(*) as hosts from hosts, unnest(tags) as tag group by tag order by tag`,
      );
    return rows.map((row) => ({ tag: row.tag, hosts: Number(row.hosts) }));
  }

  /** The node serving an interface, with what the panel knows of its public address. */
  async nodeOf(interfaceId: string): Promise<{ id: string; name: string; address: string; endpointHost: string }> {
    const [row] = await this.orm.em
      .fork()
      .execute<{ id: string; name: string; address: string; endpointHost: string }[]>(
        `select n.id, n.name, n.address, i.endpoint_host as "endpointHost"
         from interfaces i join nodes n on n.id = i.node_id where i.id = ?`,
        [interfaceId],
      );
    return row;
  }

  async deleteMany(em: EntityManager, ids: readonly string[]): Promise<void> {
    await em.nativeDelete(Host, { id: { $in: [...ids] } });
  }

  async delete(em: EntityManager, id: string): Promise<void> {
    await em.nativeDelete(Host, { id });
  }
}

/**
 * Ids as one PostgreSQL array literal (`{a,b}`): MikroORM's execute spreads an array parameter
 * into a list. Only validated UUIDs come here, so no element needs quoting.
 */
export function uuidArray(ids: readonly string[]): string {
  return `{${ids.join(',')}}`;
}
