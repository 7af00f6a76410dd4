import { Injectable } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import { conflict, notFound } from '../http/api-error.js';
import { isId } from '../http/id.js';
import { bumpRevisions } from '../revisions/revisions.js';
import { TunnelsRepository, type TunnelNode } from './tunnels.repository.js';

/** What a restart, stop or start of a node's tunnels answers. */
export interface TunnelsOutcome {
  nodeId: string;
  /** The node's tunnels are kept down (until started). */
  tunnelsStopped: boolean;
  /** Enabled interfaces the request concerned on the node. */
  interfaces: number;
  /** The node's desired revision after the request (unchanged when it changed nothing). */
  revision: number | null;
}

/** What restarting one interface answers. */
export interface InterfaceRestart {
  id: string;
  nodeId: string;
  revision: number;
}

/**
 * Restarting, stopping and starting tunnels (docs/interfaces.md, "Restart, stop, start"). Each is
 * a change of the node's desired state, delivered to its agent like any other (a revision bump in
 * the same transaction): a restart moves the interfaces' restart serials, which the agent answers
 * by taking them down and up again; a stop keeps every interface of the node down, also across
 * agent restarts (the agent re-applies the stopped state it recorded), until a start.
 */
@Injectable()
export class TunnelsService {
  constructor(private readonly tunnels: TunnelsRepository) {}

  restartInterface(id: string): Promise<InterfaceRestart> {
    return this.tunnels.transaction(async (em) => {
      const target = isId(id) ? await this.tunnels.lockInterface(em, id) : null;
      if (!target) throw notFound('interface not found', 'id');
      if (!target.enabled) throw conflict('the interface is disabled: it does not run on its node', 'id');
      const node = (await this.tunnels.lockNode(em, target.nodeId))!;
      if (node.tunnelsStopped)
        throw conflict("this node's tunnels are stopped: start them (POST /api/tunnels/start)", 'id');
      await this.tunnels.addRestart(em, node.id, target.id);
      const revision = (await bumpRevisions(em, [node.id])).get(node.id)!;
      return { id: target.id, nodeId: node.id, revision };
    });
  }

  restart(nodeId: string | undefined): Promise<TunnelsOutcome> {
    return this.tunnels.transaction(async (em) => {
      const node = await this.node(em, nodeId);
      if (node.tunnelsStopped)
        throw conflict("this node's tunnels are stopped: start them (POST /api/tunnels/start)", 'nodeId');
      const restarted = await this.tunnels.addRestart(em, node.id);
      // A node without enabled interfaces has nothing to restart: no revision for nothing.
      const revision = restarted > 0 ? (await bumpRevisions(em, [node.id])).get(node.id)! : null;
      return { nodeId: node.id, tunnelsStopped: false, interfaces: restarted, revision };
    });
  }

  /** Stops (true) or starts (false) the node's tunnels; asking for the state it is in changes nothing. */
  setStopped(nodeId: string | undefined, stopped: boolean): Promise<TunnelsOutcome> {
    return this.tunnels.transaction(async (em) => {
      const node = await this.node(em, nodeId);
      let revision: number | null = null;
      if (node.tunnelsStopped !== stopped) {
        await this.tunnels.setStopped(em, node.id, stopped);
        revision = (await bumpRevisions(em, [node.id])).get(node.id)!;
      }
      return { nodeId: node.id, tunnelsStopped: stopped, interfaces: node.enabledInterfaces, revision };
    });
  }

  /** The node named (or the local node), locked. */
  private async node(em: EntityManager, nodeId: string | undefined): Promise<TunnelNode> {
    const id = nodeId ?? (await this.tunnels.localNodeId(em));
    if (id === null) throw notFound('there is no local node; pass nodeId', 'nodeId');
    const node = isId(id) ? await this.tunnels.lockNode(em, id) : null;
    if (!node) throw notFound('node not found', 'nodeId');
    return node;
  }
}
