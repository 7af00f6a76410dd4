import { Injectable } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import { mapUniqueViolations } from '../database/unique-violations.js';
import { badRequest, conflict, notFound } from '../http/api-error.js';
import { isId } from '../http/id.js';
import { isBuiltinTag, OutboundsService } from '../outbounds/outbounds.service.js';
import { bumpRevisions, lockNode } from '../revisions/revisions.js';
import type { Balancer } from './balancer.entity.js';
import { BalancersRepository, type BalancerView } from './balancers.repository.js';
import type { CreateBalancerDto, UpdateBalancerDto } from './dto/balancer.dto.js';

/**
 * Balancers (docs/outbounds.md, "Balancers"): a node's hops grouped under one tag that routing
 * rules target. Which hop carries the traffic is decided here, on the controller, from the hops'
 * periodic checks (balancer-pick.ts), and delivered to the agent resolved; every write moves the
 * node's revision in its transaction, as outbounds do.
 */
@Injectable()
export class BalancersService {
  constructor(
    private readonly balancers: BalancersRepository,
    private readonly outbounds: OutboundsService,
  ) {}

  async list(nodeId: string | undefined): Promise<BalancerView[]> {
    return this.balancers.list(await this.outbounds.nodeOf(nodeId));
  }

  async get(id: string): Promise<BalancerView> {
    const found = isId(id) ? await this.balancers.get(id) : null;
    if (!found) throw notFound('balancer not found', 'id');
    return found;
  }

  async create(input: CreateBalancerDto): Promise<BalancerView> {
    const nodeId = await this.outbounds.nodeOf(input.nodeId);
    const id = await this.write(async (em) => {
      await lockNode(em, nodeId, 'nodeId');
      await this.assertTagFree(em, nodeId, input.tag, null);
      const hops = await this.checkHops(em, nodeId, input.hops);
      const id = await this.balancers.insert(em, nodeId, {
        tag: input.tag,
        strategy: input.strategy,
        hops,
        note: input.note ?? null,
      });
      await bumpRevisions(em, [nodeId]);
      return id;
    });
    return this.get(id);
  }

  async update(id: string, changes: UpdateBalancerDto): Promise<BalancerView> {
    await this.write(async (em) => {
      const row = await this.lock(em, id);
      const nodeId = row.node.id;
      if (changes.nodeId !== undefined && changes.nodeId.toLowerCase() !== nodeId)
        throw badRequest('a balancer cannot move to another node; create one there', 'nodeId');
      await lockNode(em, nodeId, 'nodeId');
      const before = JSON.stringify([row.tag, row.strategy, row.hops, row.overrideId, row.note]);
      if (changes.tag !== undefined && changes.tag !== row.tag) {
        await this.assertTagFree(em, nodeId, changes.tag, row.id);
        row.tag = changes.tag;
      }
      if (changes.strategy !== undefined) row.strategy = changes.strategy;
      if (changes.hops !== undefined) {
        row.hops = await this.checkHops(em, nodeId, changes.hops);
        // An override of a hop no longer listed ends with it.
        if (row.overrideId && !row.hops.includes(row.overrideId)) row.overrideId = null;
      }
      if (changes.note !== undefined) row.note = changes.note;
      if (JSON.stringify([row.tag, row.strategy, row.hops, row.overrideId, row.note]) === before) return;
      await this.balancers.save(em);
      await bumpRevisions(em, [nodeId]);
    });
    return this.get(id);
  }

  /** Pins one of the balancer's hops (`outboundId`) until cleared with null or an empty body. */
  async override(id: string, outboundId: string | null | undefined): Promise<BalancerView> {
    await this.write(async (em) => {
      const row = await this.lock(em, id);
      await lockNode(em, row.node.id, 'nodeId');
      const pinned = outboundId == null ? null : outboundId.toLowerCase();
      if (pinned !== null && !row.hops.includes(pinned))
        throw badRequest(`outbound ${outboundId} is not a hop of balancer "${row.tag}"`, 'outboundId');
      if ((row.overrideId ?? null) === pinned) return;
      row.overrideId = pinned;
      await this.balancers.save(em);
      await bumpRevisions(em, [row.node.id]);
    });
    return this.get(id);
  }

  async remove(id: string): Promise<{ id: string; deleted: true }> {
    return this.write(async (em) => {
      const row = await this.lock(em, id);
      await lockNode(em, row.node.id, 'nodeId');
      const rules = await this.balancers.rulesUsing(em, row.id);
      if (rules.length > 0) {
        const names = rules.map((rule) => `"${rule.name}" (${rule.id})`).join(', ');
        throw conflict(
          `balancer "${row.tag}" is used by ${rules.length === 1 ? 'rule' : 'rules'} ${names}; change or delete them first`,
        );
      }
      await this.balancers.delete(em, row.id);
      await bumpRevisions(em, [row.node.id]);
      return { id: row.id, deleted: true as const };
    });
  }

  private write<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    return mapUniqueViolations(() => this.balancers.transaction(work), {
      balancers_node_id_tag_unique: { field: 'tag', message: 'a balancer with this tag already exists on this node' },
    });
  }

  private async lock(em: EntityManager, id: string): Promise<Balancer> {
    const row = isId(id) ? await this.balancers.lock(em, id.toLowerCase()) : null;
    if (!row) throw notFound('balancer not found', 'id');
    return row;
  }

  private async assertTagFree(em: EntityManager, nodeId: string, tag: string, self: string | null): Promise<void> {
    if (isBuiltinTag(tag))
      throw conflict(`"${tag}" is the tag of a built-in outbound (in any case); choose another`, 'tag');
    if (await this.balancers.outboundTagged(em, nodeId, tag))
      throw conflict(`an outbound tagged "${tag}" already exists on this node`, 'tag');
    if (await this.balancers.tagTaken(em, nodeId, tag, self))
      throw conflict(`a balancer tagged "${tag}" already exists on this node`, 'tag');
  }

  /** Hop ids, each a hop (not a built-in) of this node, each once; normalised to lower case. */
  private async checkHops(em: EntityManager, nodeId: string, ids: readonly unknown[]): Promise<string[]> {
    const hops = await this.balancers.hops(em, nodeId);
    const seen: string[] = [];
    ids.forEach((given, index) => {
      const field = `hops.${index}`;
      if (!isId(given)) throw badRequest(`${field} must be an outbound id (a string)`, field);
      const id = given.toLowerCase();
      if (!hops.has(id)) throw badRequest(`${field}: outbound ${given} is not a hop of this node`, field);
      if (seen.includes(id)) throw badRequest(`${field}: outbound ${given} is listed twice`, field);
      seen.push(id);
    });
    return seen;
  }
}
