import { Inject, Injectable } from '@nestjs/common';
import { LockMode } from '@mikro-orm/core';
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import type { ApplyResult } from '#libs/contracts/node-queue.js';
import { TunnelInterface } from '../interfaces/interface.entity.js';
import { Node } from '../revisions/node.entity.js';
import type { WarrenConfig } from '../config/config.js';
import { WARREN_CONFIG } from '../runtime.js';
import { agentState, isUnmanaged, type AgentState } from '../system/agent-state.js';
import { NodeAgent } from './node-agent.entity.js';

/** What the node's agent last said, as the node's page shows it. */
export interface NodeAgentView {
  /**
   * The one rule in system/agent-state.ts: never-enrolled, enrolled, connected, disconnected, or
   * unmanaged (the local node of a panel with WARREN_LOCAL_AGENT=off: no agent is waited for).
   */
  state: AgentState;
  version: string | null;
  lastSeenAt: Date | null;
  /** What the host cannot do (not root, tools missing); empty when it can apply everything. */
  gaps: string[];
  /** The outcome of the agent's last apply (per interface), or null. */
  lastApply: ApplyResult | null;
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
  /** Its interfaces are kept down on the host (POST /api/tunnels/stop) until started. */
  tunnelsStopped: boolean;
  agent: NodeAgentView;
  createdAt: Date;
  updatedAt: Date;
}

export interface NodeChanges {
  name?: string;
  address?: string;
  note?: string;
}

/**
 * The node registry's rows: nodes with their agent rows and interface counts, as views. Rules
 * (name uniqueness, what may be deleted) are the service's; this holds the queries and locks.
 */
@Injectable()
export class NodesRepository {
  constructor(
    @Inject(MikroORM) private readonly orm: MikroORM,
    /** Whether this controller runs an agent for the local node (isUnmanaged). */
    @Inject(WARREN_CONFIG) private readonly config: Pick<WarrenConfig, 'localAgent'>,
  ) {}

  /** A fresh context outside any transaction (each call its own identity map). */
  fork(): EntityManager {
    return this.orm.em.fork();
  }

  async list(): Promise<NodeView[]> {
    const em = this.fork();
    const nodes = await em.find(Node, {}, { orderBy: { isLocal: 'desc', name: 'asc' } });
    const counts = await interfaceCounts(
      em,
      nodes.map((node) => node.id),
    );
    const agents = new Map((await em.find(NodeAgent, {})).map((agent) => [agent.node.id, agent]));
    return nodes.map((node) => this.nodeView(node, counts.get(node.id) ?? 0, agents.get(node.id)));
  }

  async view(id: string): Promise<NodeView | undefined> {
    const em = this.fork();
    const node = await em.findOne(Node, { id });
    if (!node) return undefined;
    const agent = await em.findOne(NodeAgent, { node: node.id });
    return this.nodeView(node, (await interfaceCounts(em, [node.id])).get(node.id) ?? 0, agent);
  }

  async find(id: string, em: EntityManager = this.fork()): Promise<Node | null> {
    return em.findOne(Node, { id });
  }

  async nameTaken(name: string, em: EntityManager = this.fork()): Promise<boolean> {
    return (await em.count(Node, { name })) > 0;
  }

  async insert(
    input: { name: string; address: string; note: string },
    em: EntityManager = this.fork(),
  ): Promise<NodeView> {
    const node = em.create(Node, { ...input, isLocal: false });
    await em.flush();
    return this.nodeView(node, 0);
  }

  async findLocal(): Promise<Node | null> {
    return this.fork().findOne(Node, { isLocal: true });
  }

  async insertLocal(name: string): Promise<Node> {
    const em = this.fork();
    const node = em.create(Node, { name, address: '127.0.0.1', isLocal: true });
    await em.flush();
    return node;
  }

  async update(node: Node, changes: NodeChanges, em: EntityManager): Promise<void> {
    if (changes.name !== undefined) node.name = changes.name;
    if (changes.address !== undefined) node.address = changes.address;
    if (changes.note !== undefined) node.note = changes.note;
    await em.flush();
  }

  /**
   * Locks the node's interface rows, then the node row: interface rows before node rows is the
   * lock order every writer follows (see revisions/). Returns how many interfaces it has.
   */
  async lockWithInterfaces(tx: EntityManager, id: string): Promise<number> {
    const interfaces = await tx.find(
      TunnelInterface,
      { node: id },
      { fields: ['id'], lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    return interfaces.length;
  }

  /** The node's agent state now, read inside `em` (DELETE decides on it). */
  async agentStateOf(node: Node, em: EntityManager): Promise<AgentState> {
    return this.agentView(node, await em.findOne(NodeAgent, { node: node.id })).state;
  }

  /** Deletes the node row; its interfaces, hosts, accounts and agent row cascade in the database. */
  async delete(tx: EntityManager, id: string): Promise<void> {
    await tx.nativeDelete(Node, { id });
  }

  private nodeView(node: Node, interfaceCount: number, agent?: NodeAgent | null): NodeView {
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
      tunnelsStopped: node.tunnelsStopped,
      agent: this.agentView(node, agent),
      createdAt: node.createdAt,
      updatedAt: node.updatedAt,
    };
  }

  private agentView(node: Node, row: NodeAgent | null | undefined, now = Date.now()): NodeAgentView {
    return {
      state: agentState(
        {
          hasCredential: Boolean(row?.credentialHash),
          connected: row?.connected ?? false,
          lastSeenAt: row?.lastSeenAt ?? null,
          unmanaged: isUnmanaged(node, this.config),
        },
        now,
      ),
      version: row?.version ?? null,
      lastSeenAt: row?.lastSeenAt ?? null,
      gaps: row?.gaps ?? [],
      lastApply: row?.lastApply ?? null,
    };
  }
}

/** Interfaces per node, in one grouped query. */
async function interfaceCounts(em: EntityManager, nodeIds: string[]): Promise<Map<string, number>> {
  if (nodeIds.length === 0) return new Map();
  const counts = await em.countBy(TunnelInterface, 'node', { where: { node: { $in: nodeIds } } });
  return new Map(Object.entries(counts));
}
