import { Inject, Injectable } from '@nestjs/common';
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import { conflict, notFound } from '../http/api-error.js';
import { UUID } from '../http/id.js';
import { mapUniqueViolations } from '../database/unique-violations.js';
import { lockNode } from '../revisions/revisions.js';
import type { ApplyResult } from '#libs/contracts/node-queue.js';
import { agentState, type AgentState } from '../system/agent-state.js';
import { NodeAgent } from './node-agent.entity.js';
import { Node } from './node.entity.js';

/** What the node's agent last said, as the node's page shows it. */
export interface NodeAgentView {
  /** The one rule in system/agent-state.ts: never-enrolled, enrolled, connected or disconnected. */
  state: AgentState;
  version: string | null;
  lastSeenAt: Date | null;
  /** What the host cannot do (not root, tools missing); empty when it can apply everything. */
  gaps: string[];
  /** The outcome of the agent's last apply (per interface), or null. */
  lastApply: ApplyResult | null;
}

export function agentView(row: NodeAgent | null | undefined, now = Date.now()): NodeAgentView {
  return {
    state: agentState({ hasCredential: Boolean(row?.credentialHash), connected: row?.connected ?? false, lastSeenAt: row?.lastSeenAt ?? null }, now),
    version: row?.version ?? null,
    lastSeenAt: row?.lastSeenAt ?? null,
    gaps: row?.gaps ?? [],
    lastApply: row?.lastApply ?? null,
  };
}

export interface NodeView {
  id: string;
  name: string;
  address: string;
  note: string;
  isLocal: boolean;
  desiredRevision: number;
  appliedRevision: number;
  inSync: boolean;
  interfaceCount: number;
  agent: NodeAgentView;
  createdAt: Date;
  updatedAt: Date;
}

function view(node: Node, interfaceCount: number, agent?: NodeAgent | null): NodeView {
  return {
    id: node.id,
    name: node.name,
    address: node.address,
    note: node.note,
    isLocal: node.isLocal,
    desiredRevision: node.desiredRevision,
    appliedRevision: node.appliedRevision,
    inSync: node.appliedRevision === node.desiredRevision,
    interfaceCount,
    agent: agentView(agent),
    createdAt: node.createdAt,
    updatedAt: node.updatedAt,
  };
}

const NAME_TAKEN = (name: string) => `a node named "${name}" already exists`;
const UNIQUE_FIELDS = { nodes_name_unique: { field: 'name', message: 'a node with this name already exists' } };

/**
 * The registry of tunnel hosts. Editing a node's name, address or note changes nothing on the
 * host, so it does not bump the node's revision; its interfaces and clients do.
 */
@Injectable()
export class NodesService {
  constructor(@Inject(MikroORM) private readonly orm: MikroORM) {}

  async list(): Promise<NodeView[]> {
    const em = this.orm.em.fork();
    const nodes = await em.find(Node, {}, { orderBy: { isLocal: 'desc', name: 'asc' } });
    const counts = await interfaceCounts(em, nodes.map((node) => node.id));
    const agents = new Map((await em.find(NodeAgent, {})).map((agent) => [agent.node.id, agent]));
    return nodes.map((node) => view(node, counts.get(node.id) ?? 0, agents.get(node.id)));
  }

  async get(id: string): Promise<NodeView> {
    const em = this.orm.em.fork();
    const node = await findNode(em, id);
    const agent = await em.findOne(NodeAgent, { node: node.id });
    return view(node, (await interfaceCounts(em, [node.id])).get(node.id) ?? 0, agent);
  }

  async create(input: { name: string; address: string; note?: string }): Promise<NodeView> {
    const em = this.orm.em.fork();
    const node = await mapUniqueViolations(async () => {
      if (await em.count(Node, { name: input.name })) throw conflict(NAME_TAKEN(input.name), 'name');
      const created = em.create(Node, { name: input.name, address: input.address, note: input.note ?? '', isLocal: false });
      await em.flush();
      return created;
    }, UNIQUE_FIELDS);
    return view(node, 0);
  }

  async update(id: string, changes: { name?: string; address?: string; note?: string }): Promise<NodeView> {
    const em = this.orm.em.fork();
    const node = await findNode(em, id);
    await mapUniqueViolations(async () => {
      if (changes.name !== undefined && changes.name !== node.name && (await em.count(Node, { name: changes.name }))) {
        throw conflict(NAME_TAKEN(changes.name), 'name');
      }
      if (changes.name !== undefined) node.name = changes.name;
      if (changes.address !== undefined) node.address = changes.address;
      if (changes.note !== undefined) node.note = changes.note;
      await em.flush();
    }, UNIQUE_FIELDS);
    return this.get(id);
  }

  /**
   * Deleting a node cascades to its interfaces, their hosts and every account on them. That
   * is refused while the node has interfaces unless forced, and never allowed for the local
   * node, which the controller itself runs on.
   */
  async remove(id: string, force: boolean): Promise<{ id: string; deleted: true; interfacesRemoved: number }> {
    const em = this.orm.em.fork();
    return em.transactional(async (tx) => {
      const node = await findNode(tx, id);
      if (node.isLocal) throw conflict('the local node cannot be deleted: the controller runs on it');
      // Interface rows before the node row: the lock order every writer follows.
      const interfaces = await tx.execute<{ id: string }[]>('select id from interfaces where node_id = ? for update', [id]);
      await lockNode(tx, id, 'id');
      if (interfaces.length > 0 && !force) {
        const count = interfaces.length;
        throw conflict(
          `${count} ${count === 1 ? 'interface is' : 'interfaces are'} still on this node; delete ${count === 1 ? 'it' : 'them'} or pass ?force=true`,
        );
      }
      await tx.execute('delete from nodes where id = ?', [id]);
      return { id, deleted: true as const, interfacesRemoved: interfaces.length };
    });
  }
}

async function findNode(em: EntityManager, id: string): Promise<Node> {
  const node = UUID.test(id) ? await em.findOne(Node, { id }) : null;
  if (!node) throw notFound('node not found', 'id');
  return node;
}

/** Interfaces per node, in one grouped query. */
async function interfaceCounts(em: EntityManager, nodeIds: string[]): Promise<Map<string, number>> {
  if (nodeIds.length === 0) return new Map();
  const rows = await em.execute<{ node_id: string; count: string }[]>(
    'select node_id, count(*) as count from interfaces where node_id = any(array[?]::uuid[]) group by node_id',
    [nodeIds],
  );
  return new Map(rows.map((row) => [row.node_id, Number(row.count)]));
}
