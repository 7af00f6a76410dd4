import { Inject, Injectable } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { BulkJobsService, type Actor } from '../clients/bulk/bulk-jobs.service.js';
import type { BulkWork } from '../clients/bulk/bulk-actions.js';
import { ClientListRepository } from '../clients/client-list.repository.js';
import { ClientTotals } from '../clients/client-totals.js';
import { CLIENT_LIMITS } from '../clients/dto/client.dto.js';
import { badRequest, conflict, notFound } from '../http/api-error.js';
import { bumpRevisions } from '../revisions/revisions.js';
import type { AssignGroupDto, GroupActionDto, SaveGroupDto } from './dto/group.dto.js';
import { GroupsRepository, type GroupRow } from './groups.repository.js';

export interface GroupView extends Omit<GroupRow, 'createdAt' | 'updatedAt'> {
  defined: boolean;
  members: number;
  createdAt: Date | null;
  updatedAt: Date | null;
}

const NO_DEFAULTS = { note: '', quotaBytes: 0, expiryDays: 0, deviceLimit: 1, interfaceIds: [], rateBitsPerSec: 0 };

/**
 * Groups (docs/groups.md): defaults for the clients created in them, and membership changes over
 * many clients at once, each one statement in one transaction. Members are selected through the
 * clients' filter with the acting user's scope (BulkJobsService.scopeOf).
 */
@Injectable()
export class GroupsService {
  constructor(
    @Inject(MikroORM) private readonly orm: MikroORM,
    private readonly groups: GroupsRepository,
    private readonly listing: ClientListRepository,
    private readonly bulk: BulkJobsService,
    private readonly totals: ClientTotals,
  ) {}

  /** Defined groups and the names clients carry without one, each with its member count. */
  async list(actor: Actor): Promise<GroupView[]> {
    const em = this.orm.em.fork();
    const [rows, names] = await Promise.all([this.groups.list(em), this.groups.names(em, this.bulk.scopeOf(actor))]);
    const defined = new Map(rows.map((row) => [row.name, row]));
    const scope = this.bulk.scopeOf(actor);
    return Promise.all(
      names.map(async (name) => {
        const row = defined.get(name);
        // One GIN-index count a group, through the list's own filter.
        const members = await this.listing.count({ ...scope, group: name });
        return row
          ? { ...row, defined: true, members }
          : { name, ...NO_DEFAULTS, defined: false, members, createdAt: null, updatedAt: null };
      }),
    );
  }

  async names(actor: Actor): Promise<{ names: string[] }> {
    return { names: await this.groups.names(this.orm.em.fork(), this.bulk.scopeOf(actor)) };
  }

  async save(actor: Actor, dto: SaveGroupDto): Promise<GroupView> {
    const interfaceIds = dto.interfaceIds ?? [];
    await this.orm.em.fork().transactional(async (em) => {
      const existing = await this.groups.interfacesExisting(em, interfaceIds);
      const missing = interfaceIds.find((id) => !existing.has(id));
      if (missing) throw notFound(`interface ${missing} not found`, 'interfaceIds');
      await this.groups.save(
        em,
        dto.name,
        {
          note: dto.note ?? '',
          quotaBytes: dto.quotaBytes ?? 0,
          expiryDays: dto.expiryDays ?? 0,
          deviceLimit: dto.deviceLimit ?? 1,
          interfaceIds,
          rateBitsPerSec: dto.rateBitsPerSec ?? 0,
        },
        new Date(),
      );
    });
    return this.one(actor, dto.name);
  }

  private async one(actor: Actor, name: string): Promise<GroupView> {
    const found = (await this.list(actor)).find((group) => group.name === name);
    if (!found) throw notFound('group not found', 'name');
    return found;
  }

  /** Drops the group's defaults and takes it off every member's list (the clients stay). */
  async delete(actor: Actor, name: string): Promise<{ name: string; clients: number }> {
    const clients = await this.orm.em.fork().transactional(async (em) => {
      await this.refuseIfRouted(em, name, 'delete');
      const row = await this.groups.deleteRow(em, name);
      const members = await this.groups.removeMembers(em, this.bulk.scopeOf(actor), name);
      if (!row && members.length === 0) throw notFound('no group of that name', 'name');
      return members.length;
    });
    this.totals.changed();
    return { name, clients };
  }

  /** Renames the group: its row and, in one statement, every member's list. */
  async rename(actor: Actor, name: string, newName: string): Promise<{ name: string; clients: number }> {
    if (name === newName) throw badRequest('newName is the current name', 'newName');
    const clients = await this.orm.em.fork().transactional(async (em) => {
      await this.refuseIfRouted(em, name, 'rename');
      const row = await this.groups.find(em, name, true);
      if (row && (await this.groups.find(em, newName)))
        throw conflict(
          `a group named ${newName} exists with defaults of its own; delete or rename it first`,
          'newName',
        );
      if (row) await this.groups.renameRow(em, name, newName, new Date());
      const members = await this.groups.renameMembers(em, this.bulk.scopeOf(actor), name, newName);
      if (!row && members.length === 0) throw notFound('no group of that name', 'name');
      // Rules naming the new name now take in these clients' addresses.
      await bumpRevisions(em, await this.groups.nodesRoutingBy(em, members, [newName]));
      return members.length;
    });
    this.totals.changed();
    return { name: newName, clients };
  }

  /** The selected clients join (or leave) the group, in one statement; all of them or none. */
  async assign(actor: Actor, dto: AssignGroupDto): Promise<{ name: string; clients: number }> {
    const filter = this.bulk.filterOf(actor, dto);
    const clients = await this.orm.em.fork().transactional(async (em) => {
      const { all, full } = await this.groups.selected(em, filter, dto.name, CLIENT_LIMITS.groups);
      if (dto.ids && all !== dto.ids.length) throw notFound(`${dto.ids.length - all} of the ids name no client`, 'ids');
      let changed: string[];
      if (dto.remove) changed = await this.groups.removeMembers(em, filter, dto.name);
      else {
        if (full > 0)
          throw conflict(`${full} of the selected clients are in ${CLIENT_LIMITS.groups} groups already`, 'ids');
        changed = await this.groups.addMembers(em, filter, dto.name);
      }
      await bumpRevisions(em, await this.groups.nodesRoutingBy(em, changed, [dto.name]));
      return changed.length;
    });
    this.totals.changed();
    return { name: dto.name, clients };
  }

  /** A bulk action on every member, as one job (the same as the clients' bulk routes). */
  async action(actor: Actor, dto: GroupActionDto) {
    // A reseller's action names a group they see (GET /api/groups/names); another's is as a made-up one.
    if (!(await this.groups.names(this.orm.em.fork(), this.bulk.scopeOf(actor))).includes(dto.name))
      throw notFound('no group of that name', 'name');
    let work: BulkWork;
    if (dto.action === 'extend') {
      if (dto.days === undefined) throw badRequest('extend needs days', 'days');
      work = { action: 'extend', days: dto.days, from: dto.from ?? 'expiry' };
    } else if (dto.action === 'adjust') {
      if (dto.deltaBytes === undefined) throw badRequest('adjust needs deltaBytes', 'deltaBytes');
      work = { action: 'adjust', deltaBytes: dto.deltaBytes };
    } else {
      for (const field of ['days', 'from', 'deltaBytes'] as const)
        if (dto[field] !== undefined) throw badRequest(`${field} applies only to extend or adjust`, field);
      work = { action: dto.action };
    }
    return this.bulk.start(actor, work, { filter: { group: dto.name } });
  }

  /**
   * A routing rule naming the group would silently lose its clients: the operator changes the
   * rule first (an accepted change must do what it says on the host).
   */
  private async refuseIfRouted(em: Parameters<GroupsRepository['rulesNaming']>[0], name: string, what: string) {
    const rules = await this.groups.rulesNaming(em, name);
    if (rules > 0)
      throw conflict(`${rules} routing rule(s) name the group ${name}; change them before you ${what} it`, 'name');
  }
}
