import { Injectable } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import { conflict, notFound } from '../http/api-error.js';
import { isId } from '../http/id.js';
import { bumpRevisions } from '../revisions/revisions.js';
import type { CreateHostDto, UpdateHostDto } from './dto/host.dto.js';
import type { Host } from './host.entity.js';
import { HostsRepository, type HostView } from './hosts.repository.js';
import { InterfacesRepository } from './interfaces.repository.js';
import { InterfacesService } from './interfaces.service.js';

export type { HostView } from './hosts.repository.js';

/**
 * Alternative addresses clients dial for an interface. Each enabled host is one profile per
 * device, so every change bumps the interface's node revision. Writes lock the interface row,
 * which also serialises the per-interface name check.
 */
@Injectable()
export class HostsService {
  constructor(
    private readonly hosts: HostsRepository,
    private readonly interfaces: InterfacesService,
    private readonly transactions: InterfacesRepository,
  ) {}

  async list(filter: { interfaceId?: string } = {}): Promise<HostView[]> {
    if (
      filter.interfaceId !== undefined &&
      !(isId(filter.interfaceId) && (await this.hosts.interfaceExists(filter.interfaceId)))
    ) {
      throw notFound('interface not found', 'interfaceId');
    }
    return this.hosts.list(filter.interfaceId);
  }

  async create(input: CreateHostDto): Promise<HostView> {
    const id = await this.transactions.transaction(async (em) => {
      const iface = await this.interfaces.lock(em, input.interfaceId, 'interfaceId');
      await this.assertNameFree(em, iface.id, input.name);
      const id = await this.hosts.insert(em, iface.id, {
        name: input.name,
        address: input.address,
        port: input.port ?? 0,
        priority: input.priority ?? 0,
        enabled: input.enabled ?? true,
      });
      await bumpRevisions(em, [iface.node.id]);
      return id;
    });
    return this.get(id);
  }

  async update(id: string, changes: UpdateHostDto): Promise<HostView> {
    await this.transactions.transaction(async (em) => {
      const found = await this.find(em, id);
      const iface = await this.interfaces.lock(em, found.interface.id);
      const host = await this.find(em, id, { refresh: true });
      if (changes.name !== undefined && changes.name.toLowerCase() !== host.name.toLowerCase()) {
        await this.assertNameFree(em, iface.id, changes.name);
      }
      const before = JSON.stringify(snapshot(host));
      if (changes.name !== undefined) host.name = changes.name;
      if (changes.address !== undefined) host.address = changes.address;
      if (changes.port !== undefined) host.port = changes.port;
      if (changes.priority !== undefined) host.priority = changes.priority;
      if (changes.enabled !== undefined) host.enabled = changes.enabled;
      if (JSON.stringify(snapshot(host)) === before) return;
      await this.hosts.save(em);
      await bumpRevisions(em, [iface.node.id]);
    });
    return this.get(id);
  }

  async remove(id: string): Promise<{ id: string; deleted: true }> {
    return this.transactions.transaction(async (em) => {
      const found = await this.find(em, id);
      const iface = await this.interfaces.lock(em, found.interface.id);
      await this.find(em, id, { refresh: true }); // still there once the interface is locked
      await this.hosts.delete(em, id);
      await bumpRevisions(em, [iface.node.id]);
      return { id, deleted: true as const };
    });
  }

  private async get(id: string): Promise<HostView> {
    const host = await this.hosts.get(id);
    if (!host) throw notFound('host not found', 'id');
    return host;
  }

  private async find(em: EntityManager, id: string, options: { refresh?: boolean } = {}): Promise<Host> {
    const host = await this.hosts.find(em, id, options);
    if (!host) throw notFound('host not found', 'id');
    return host;
  }

  /** Host names name the profiles rendered for them, so they are unique per interface regardless of case. */
  private async assertNameFree(em: EntityManager, interfaceId: string, name: string): Promise<void> {
    if (await this.hosts.nameTaken(em, interfaceId, name))
      throw conflict(`a host named "${name}" already exists on this interface`, 'name');
  }
}

function snapshot(host: Host) {
  return [host.name, host.address, host.port, host.priority, host.enabled];
}
