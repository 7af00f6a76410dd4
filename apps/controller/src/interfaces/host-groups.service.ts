import { Injectable } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import { conflict, notFound } from '../http/api-error.js';
import { bumpRevisions } from '../revisions/revisions.js';
import type { CreateHostGroupDto, ReplaceHostGroupDto } from './dto/host.dto.js';
import { HostGroupsRepository, type HostGroupView } from './host-groups.repository.js';

/**
 * Host groups (docs/interfaces.md, "Host groups"): ordered sets of hosts, each tied to client
 * group names. What a client's configs carry follows them, so a change that alters any host's
 * rendering bumps the nodes serving those hosts, as a host change does.
 */
@Injectable()
export class HostGroupsService {
  constructor(private readonly groups: HostGroupsRepository) {}

  list(): Promise<HostGroupView[]> {
    return this.groups.list();
  }

  async create(input: CreateHostGroupDto): Promise<HostGroupView> {
    const id = await this.groups.transaction(async (em) => {
      await this.assertNameFree(em, input.name);
      const id = await this.groups.insert(em, input.name, input.clientGroups ?? []);
      if (input.hostIds?.length) await this.assign(em, id, input.hostIds, 'hostIds');
      return id;
    });
    return this.get(id);
  }

  async replace(id: string, input: ReplaceHostGroupDto): Promise<HostGroupView> {
    await this.groups.transaction(async (em) => {
      const group = await this.lock(em, id);
      if (input.name.toLowerCase() !== group.name.toLowerCase()) await this.assertNameFree(em, input.name, id);
      const clientGroups = input.clientGroups ?? [];
      const tiesChange = JSON.stringify(clientGroups) !== JSON.stringify(group.clientGroups);
      if (!tiesChange && input.name === group.name) return;
      group.name = input.name;
      group.clientGroups = clientGroups;
      await this.groups.save(em);
      if (tiesChange) await bumpRevisions(em, await this.groups.nodesOf(em, id));
    });
    return this.get(id);
  }

  /** The group goes; its hosts stay, ungrouped (so every client carries them again). */
  async remove(id: string): Promise<{ id: string; deleted: true }> {
    await this.groups.transaction(async (em) => {
      await this.lock(em, id);
      const nodes = await this.groups.nodesOf(em, id);
      await this.groups.delete(em, id);
      await bumpRevisions(em, nodes);
    });
    return { id, deleted: true };
  }

  /** Several hosts into one group (null: out of any), all or nothing. */
  async bulk(
    groupId: string | null,
    hostIds: string[],
  ): Promise<{ groupId: string | null; hostIds: string[]; changed: number }> {
    const changed = await this.groups.transaction(async (em) => {
      if (groupId !== null) await this.lock(em, groupId, 'groupId');
      return this.assign(em, groupId, hostIds, 'hostIds');
    });
    return { groupId, hostIds, changed };
  }

  async reorder(ids: string[]): Promise<{ ids: string[] }> {
    await this.groups.transaction(async (em) => {
      const known = await this.groups.existing(em, ids);
      const missing = ids.find((id) => !known.has(id));
      if (missing !== undefined) throw notFound(`host group ${missing} not found`, 'ids');
      await this.groups.setPositions(em, ids);
      const nodes = new Set<string>();
      for (const id of ids) for (const node of await this.groups.nodesOf(em, id)) nodes.add(node);
      await bumpRevisions(em, nodes);
    });
    return { ids };
  }

  private async assign(em: EntityManager, groupId: string | null, hostIds: string[], field: string): Promise<number> {
    const known = await this.groups.existingHosts(em, hostIds);
    const missing = hostIds.find((id) => !known.has(id));
    if (missing !== undefined) throw notFound(`host ${missing} not found`, field);
    const { changed, nodes } = await this.groups.assign(em, groupId, hostIds);
    await bumpRevisions(em, nodes);
    return changed;
  }

  private async get(id: string): Promise<HostGroupView> {
    const group = await this.groups.get(id);
    if (!group) throw notFound('host group not found', 'gid');
    return group;
  }

  private async lock(em: EntityManager, id: string, field = 'gid') {
    const group = await this.groups.lock(em, id);
    if (!group) throw notFound('host group not found', field);
    return group;
  }

  /** Group names are unique regardless of case (the host_groups_name_lower_unique index holds the same). */
  private async assertNameFree(em: EntityManager, name: string, except?: string): Promise<void> {
    if (await this.groups.nameTaken(em, name, except))
      throw conflict(`a host group named "${name}" already exists`, 'name');
  }
}
