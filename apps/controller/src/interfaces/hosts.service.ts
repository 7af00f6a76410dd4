import type { EntityManager } from '@mikro-orm/postgresql';
import { badRequest, conflict, notFound } from '../http/api-error.js';
import { isId } from '../http/id.js';
import { bumpRevisions } from '../revisions/revisions.js';
import { SettingsService } from '../settings/settings.service.js';
import { Inject, Injectable } from '@nestjs/common';
import type { WarrenConfig } from '../config/config.js';
import { WARREN_CONFIG } from '../runtime.js';
import { TAG_LIMITS, type CreateHostDto, type HostBulkAction, type UpdateHostDto } from './dto/host.dto.js';
import { resolveName, shownResolution } from './host-check.js';
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
    private readonly settings: SettingsService,
    @Inject(WARREN_CONFIG) private readonly config: WarrenConfig,
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
      const groupId = input.groupId ?? null;
      if (groupId !== null) await this.assertGroup(em, groupId);
      const id = await this.hosts.insert(em, iface.id, {
        name: input.name,
        address: input.address,
        port: input.port ?? 0,
        priority: input.priority ?? 0,
        enabled: input.enabled ?? true,
        tags: input.tags ?? [],
        groupId,
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
      if (changes.tags !== undefined) host.tags = changes.tags;
      if (changes.groupId !== undefined) {
        if (changes.groupId !== null) await this.assertGroup(em, changes.groupId);
        this.hosts.setGroup(em, host, changes.groupId);
      }
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

  /**
   * One action on several hosts, all or nothing: every id must name a host (else a 404 naming the
   * first that does not, and nothing changes). Interfaces are locked in id order, so two bulk calls
   * cannot deadlock; each node whose hosts changed is bumped once.
   */
  async bulk(
    ids: string[],
    action: HostBulkAction,
    tags: string[] = [],
  ): Promise<{ action: HostBulkAction; ids: string[]; changed: number }> {
    const changed = await this.transactions.transaction(async (em) => {
      const hosts = await this.findAll(em, ids);
      const locked = new Map<string, string>();
      for (const interfaceId of [...new Set(hosts.map((host) => host.interface.id))].sort()) {
        locked.set(interfaceId, (await this.interfaces.lock(em, interfaceId)).node.id);
      }
      const current = await this.findAll(em, ids, { refresh: true });
      if (action === 'tag') {
        const over = current.find((host) => new Set([...host.tags, ...tags]).size > TAG_LIMITS.perHost);
        if (over) throw badRequest(`host ${over.id} would carry more than ${TAG_LIMITS.perHost} tags`, 'tags');
      }
      const touched = current.filter((host) => applyBulk(host, action, tags));
      if (touched.length === 0) return 0;
      if (action === 'delete')
        await this.hosts.deleteMany(
          em,
          touched.map((host) => host.id),
        );
      else await this.hosts.save(em);
      await bumpRevisions(em, new Set(touched.map((host) => locked.get(host.interface.id)!)));
      return touched.length;
    });
    return { action, ids, changed };
  }

  /** Positions 0.. in the order given; hosts not named keep theirs. Configs follow, so nodes are bumped. */
  async reorder(ids: string[]): Promise<{ ids: string[] }> {
    await this.transactions.transaction(async (em) => {
      const hosts = await this.findAll(em, ids);
      await this.hosts.setPositions(em, ids);
      await bumpRevisions(em, new Set(hosts.map((host) => host.interface.node.id)));
    });
    return { ids };
  }

  /** Every tag in use with how many hosts carry it, by tag. */
  tags(): Promise<{ tag: string; hosts: number }[]> {
    return this.hosts.tags();
  }

  /**
   * Whether the host's address resolves, and to the node serving its interface: the node's
   * address and the interface's endpoint, both resolved, are what the panel knows of it. The
   * match compares every address; the answer prints only those shownResolution allows (a node
   * on a private address is legitimate, and still matches, unprinted).
   */
  async check(id: string) {
    const host = await this.get(id);
    const node = await this.hosts.nodeOf(host.interfaceId);
    const servers = this.config.dnsServers;
    const nodeNames = [...new Set([node.address, node.endpointHost].filter(Boolean))];
    const [own, ...nodeSide] = await Promise.all([
      resolveName(host.address, servers),
      ...nodeNames.map((name) => resolveName(name, servers)),
    ]);
    const allowPrivate = (await this.settings.get()).allowPrivateTargets;
    const everyNodeAddress = new Set(nodeSide.flatMap((found) => found.addresses));
    const shown = shownResolution(host.address, own, allowPrivate);
    const nodeShown = nodeNames.map((name, i) => shownResolution(name, nodeSide[i], allowPrivate));
    const nodeNote = nodeShown.find((found) => found.note)?.note;
    const nodeError = nodeSide.find((found) => found.error)?.error;
    return {
      hostId: host.id,
      address: host.address,
      resolves: own.addresses.length > 0,
      addresses: shown.addresses,
      nodeId: node.id,
      nodeName: node.name,
      nodeAddresses: [...new Set(nodeShown.flatMap((found) => found.addresses))],
      matchesNode: own.addresses.some((address) => everyNodeAddress.has(address)),
      ...(shown.note ? { note: shown.note } : {}),
      ...(nodeNote ? { nodeNote } : {}),
      ...(own.error ? { error: own.error } : {}),
      ...(nodeError ? { nodeError } : {}),
    };
  }

  private async findAll(em: EntityManager, ids: string[], options: { refresh?: boolean } = {}): Promise<Host[]> {
    const hosts = await this.hosts.findMany(em, ids, options);
    const missing = ids.find((id) => !hosts.some((host) => host.id === id));
    if (missing !== undefined) throw notFound(`host ${missing} not found`, 'ids');
    return hosts;
  }

  private async assertGroup(em: EntityManager, groupId: string): Promise<void> {
    if (!(await this.hosts.groupExists(em, groupId))) throw notFound('host group not found', 'groupId');
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
  return [host.name, host.address, host.port, host.priority, host.enabled, host.tags, host.group?.id ?? null];
}

/** Applies a bulk action to one host; whether it changed anything. */
function applyBulk(host: Host, action: HostBulkAction, tags: string[]): boolean {
  switch (action) {
    case 'delete':
      return true;
    case 'enable':
    case 'disable': {
      const enabled = action === 'enable';
      if (host.enabled === enabled) return false;
      host.enabled = enabled;
      return true;
    }
    case 'tag': {
      const added = tags.filter((tag) => !host.tags.includes(tag));
      if (added.length === 0) return false;
      host.tags = [...host.tags, ...added];
      return true;
    }
    case 'untag': {
      const kept = host.tags.filter((tag) => !tags.includes(tag));
      if (kept.length === host.tags.length) return false;
      host.tags = kept;
      return true;
    }
  }
}
