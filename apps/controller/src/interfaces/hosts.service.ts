import { Inject, Injectable } from '@nestjs/common';
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import { conflict, notFound } from '../http/api-error.js';
import { bumpRevisions } from '../revisions/revisions.js';
import type { CreateHostDto, UpdateHostDto } from './dto/host.dto.js';
import { Host } from './host.entity.js';
import { TunnelInterface } from './interface.entity.js';
import { lockInterface } from './interfaces.service.js';
import { UUID } from '../http/id.js';

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

function view(host: Host, iface: TunnelInterface): HostView {
  return {
    id: host.id,
    interfaceId: iface.id,
    name: host.name,
    address: host.address,
    port: host.port,
    effectivePort: host.port === 0 ? iface.listenPort : host.port,
    priority: host.priority,
    enabled: host.enabled,
    createdAt: host.createdAt,
    updatedAt: host.updatedAt,
  };
}

const ORDER = { priority: 'desc', name: 'asc', id: 'asc' } as const;

/**
 * Alternative addresses clients dial for an interface. Each enabled host is one profile per
 * device, so every change bumps the interface's node revision. Writes lock the interface row,
 * which also serialises the per-interface name check.
 */
@Injectable()
export class HostsService {
  constructor(@Inject(MikroORM) private readonly orm: MikroORM) {}

  async list(filter: { interfaceId?: string } = {}): Promise<HostView[]> {
    const em = this.orm.em.fork();
    if (filter.interfaceId !== undefined) {
      const exists = UUID.test(filter.interfaceId) && (await em.count(TunnelInterface, { id: filter.interfaceId })) > 0;
      if (!exists) throw notFound('interface not found', 'interfaceId');
    }
    const hosts = await em.find(Host, filter.interfaceId ? { interface: filter.interfaceId } : {}, {
      populate: ['interface'],
      orderBy: { interface: { name: 'asc' }, ...ORDER },
    });
    return hosts.map((host) => view(host, host.interface));
  }

  async create(input: CreateHostDto): Promise<HostView> {
    const id = await this.orm.em.fork().transactional(async (em) => {
      const iface = await lockInterface(em, input.interfaceId, 'interfaceId');
      await assertNameFree(em, iface.id, input.name);
      const host = em.create(Host, {
        interface: iface,
        name: input.name,
        address: input.address,
        port: input.port ?? 0,
        priority: input.priority ?? 0,
        enabled: input.enabled ?? true,
      });
      await em.flush();
      await bumpRevisions(em, [iface.node.id]);
      return host.id;
    });
    return this.get(id);
  }

  async update(id: string, changes: UpdateHostDto): Promise<HostView> {
    await this.orm.em.fork().transactional(async (em) => {
      const found = await findHost(em, id);
      const iface = await lockInterface(em, found.interface.id);
      const host = await findHost(em, id, { refresh: true });
      if (changes.name !== undefined && changes.name.toLowerCase() !== host.name.toLowerCase()) {
        await assertNameFree(em, iface.id, changes.name);
      }
      const before = JSON.stringify(snapshot(host));
      if (changes.name !== undefined) host.name = changes.name;
      if (changes.address !== undefined) host.address = changes.address;
      if (changes.port !== undefined) host.port = changes.port;
      if (changes.priority !== undefined) host.priority = changes.priority;
      if (changes.enabled !== undefined) host.enabled = changes.enabled;
      if (JSON.stringify(snapshot(host)) === before) return;
      await em.flush();
      await bumpRevisions(em, [iface.node.id]);
    });
    return this.get(id);
  }

  async remove(id: string): Promise<{ id: string; deleted: true }> {
    return this.orm.em.fork().transactional(async (em) => {
      const found = await findHost(em, id);
      const iface = await lockInterface(em, found.interface.id);
      await findHost(em, id, { refresh: true }); // still there once the interface is locked
      await em.execute('delete from hosts where id = ?', [id]);
      await bumpRevisions(em, [iface.node.id]);
      return { id, deleted: true as const };
    });
  }

  private async get(id: string): Promise<HostView> {
    const em = this.orm.em.fork();
    const host = await findHost(em, id);
    return view(host, host.interface);
  }
}

function snapshot(host: Host) {
  return [host.name, host.address, host.port, host.priority, host.enabled];
}

async function findHost(em: EntityManager, id: string, options: { refresh?: boolean } = {}): Promise<Host> {
  const host = UUID.test(id) ? await em.findOne(Host, { id }, { populate: ['interface'], ...options }) : null;
  if (!host) throw notFound('host not found', 'id');
  return host;
}

/** Host names name the profiles rendered for them, so they are unique per interface regardless of case. */
async function assertNameFree(em: EntityManager, interfaceId: string, name: string): Promise<void> {
  const [taken] = await em.execute<{ id: string }[]>(
    'select id from hosts where interface_id = ? and lower(name) = lower(?) limit 1',
    [interfaceId, name],
  );
  if (taken) throw conflict(`a host named "${name}" already exists on this interface`, 'name');
}
