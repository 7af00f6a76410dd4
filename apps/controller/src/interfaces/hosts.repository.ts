import { Inject, Injectable } from '@nestjs/common';
import { MikroORM, type EntityManager, type InferKyselyDB } from '@mikro-orm/postgresql';
import { Host } from './host.entity.js';
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
  createdAt: Date;
  updatedAt: Date;
}

export type HostFields = Pick<Host, 'name' | 'address' | 'port' | 'priority' | 'enabled'>;

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
    createdAt: host.createdAt,
    updatedAt: host.updatedAt,
  };
}

const ORDER = { priority: 'desc', name: 'asc', id: 'asc' } as const;

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

  async insert(em: EntityManager, interfaceId: string, fields: HostFields): Promise<string> {
    const host = em.create(Host, { ...fields, interface: em.getReference(TunnelInterface, interfaceId) });
    await em.flush();
    return host.id;
  }

  /** Writes the changes made to a host read with find(). */
  async save(em: EntityManager): Promise<void> {
    await em.flush();
  }

  async delete(em: EntityManager, id: string): Promise<void> {
    await em.nativeDelete(Host, { id });
  }
}
