import { Injectable, Logger } from '@nestjs/common';
import type { EnrolResponse } from '#libs/contracts/agent-link.js';
import type { UserRole } from '#libs/contracts/user-roles.js';
import { mapUniqueViolations } from '../database/unique-violations.js';
import { ApiError, conflict, notFound } from '../http/api-error.js';
import { lockNode } from '../revisions/revisions.js';
import type { AgentState } from '../system/agent-state.js';
import { AgentCredentialsService, type Enrolment } from './enrolment/agent-credentials.service.js';
import { DeliveryService } from './delivery/delivery.service.js';
import { AgentLinkGateway } from './link/agent-link.gateway.js';
import { NodesRepository, type NodeChanges, type NodeView } from './nodes.repository.js';

export type { NodeAgentView, NodeView } from './nodes.repository.js';

const NAME_TAKEN = (name: string) => `a node named "${name}" already exists`;
const UNIQUE_FIELDS = { nodes_name_unique: { field: 'name', message: 'a node with this name already exists' } };
const nodeNotFound = () => notFound('node not found', 'id');
const LOCAL_NODE_MANAGED = (state: AgentState) =>
  state === 'connected'
    ? 'the local node cannot be deleted: an agent is linked for it (a controller with WARREN_LOCAL_AGENT on runs it)'
    : 'the local node cannot be deleted: this panel runs its agent (with WARREN_LOCAL_AGENT=off the host is unmanaged and its node can be deleted)';

/**
 * The registry of tunnel hosts and what a node's life means for its agent: a new node gets an
 * enrolment, a deleted or re-enrolled one loses its link and queue access at once. Editing a
 * node's name, address or note changes nothing on the host, so it does not bump the node's
 * revision; its interfaces and clients do.
 */
@Injectable()
export class NodesService {
  private readonly logger = new Logger('nodes');

  constructor(
    private readonly nodes: NodesRepository,
    private readonly credentials: AgentCredentialsService,
    private readonly links: AgentLinkGateway,
    delivery: DeliveryService,
  ) {
    // After a restore the credentials and Redis users are the backup's: every link is cut (its
    // agent reconnects and is checked against the restored credential) and every Redis user put back.
    delivery.whenRestored(async () => {
      for (const nodeId of this.links.connectedNodes()) this.links.disconnect(nodeId);
      await this.credentials.restoreQueueUsers();
    });
    // A node re-enrolled or deleted through any controller: a link this one holds with the old
    // credential ends (the new agent's link, on whichever controller, still authenticates).
    delivery.whenCredentialsChanged((nodeIds) => nodeIds.forEach((nodeId) => void this.links.recheck(nodeId)));
  }

  list(): Promise<NodeView[]> {
    return this.nodes.list();
  }

  async get(id: string): Promise<NodeView> {
    const node = await this.nodes.view(id);
    if (!node) throw nodeNotFound();
    return node;
  }

  /**
   * The node exists either way; a panel that cannot enrol remote agents (no REDIS_URL) says why
   * instead of an enrolment.
   */
  async create(
    input: { name: string; address: string; note?: string },
    panelUrl: string,
  ): Promise<NodeView & ({ enrolment: Enrolment } | { enrolment: null; enrolmentError: string })> {
    const em = this.nodes.fork();
    const node = await mapUniqueViolations(async () => {
      if (await this.nodes.nameTaken(input.name, em)) throw conflict(NAME_TAKEN(input.name), 'name');
      return this.nodes.insert({ name: input.name, address: input.address, note: input.note ?? '' }, em);
    }, UNIQUE_FIELDS);
    try {
      return { ...node, enrolment: await this.credentials.issueEnrolment(node.id, panelUrl) };
    } catch (error) {
      if (error instanceof ApiError && error.status === 409)
        return { ...node, enrolment: null, enrolmentError: error.message };
      throw error;
    }
  }

  async update(id: string, changes: NodeChanges): Promise<NodeView> {
    const em = this.nodes.fork();
    const node = await this.nodes.find(id, em);
    if (!node) throw nodeNotFound();
    await mapUniqueViolations(async () => {
      if (changes.name !== undefined && changes.name !== node.name && (await this.nodes.nameTaken(changes.name, em))) {
        throw conflict(NAME_TAKEN(changes.name), 'name');
      }
      await this.nodes.update(node, changes, em);
    }, UNIQUE_FIELDS);
    return this.get(id);
  }

  /**
   * Deleting a node cascades to its interfaces, their hosts and every account on them. That
   * is refused while the node has interfaces unless forced, and for the local node while it is
   * managed (this panel runs its agent, or an agent is linked for it); unmanaged
   * (WARREN_LOCAL_AGENT=off) it is a node like any other. Its agent is cut off: the credential
   * rows cascade, the open link and the Redis user go here.
   */
  async remove(id: string, force: boolean): Promise<{ id: string; deleted: true; interfacesRemoved: number }> {
    const removed = await this.nodes.fork().transactional(async (tx) => {
      const node = await this.nodes.find(id, tx);
      if (!node) throw nodeNotFound();
      if (node.isLocal) {
        const state = await this.nodes.agentStateOf(node, tx);
        if (state !== 'unmanaged') throw conflict(LOCAL_NODE_MANAGED(state));
      }
      const count = await this.nodes.lockWithInterfaces(tx, id);
      await lockNode(tx, id, 'id');
      if (count > 0 && !force) {
        throw conflict(
          `${count} ${count === 1 ? 'interface is' : 'interfaces are'} still on this node; delete ${count === 1 ? 'it' : 'them'} or pass ?force=true`,
        );
      }
      await this.nodes.delete(tx, id);
      return { id, deleted: true as const, interfacesRemoved: count };
    });
    this.links.disconnect(id);
    await this.credentials
      .forget(id)
      .catch((error: Error) => this.logger.warn(`removing the Redis user of node ${id} failed: ${error.message}`));
    return removed;
  }

  /** A fresh enrolment secret for the node; an earlier unused one stops working. */
  issueEnrolment(id: string, panelUrl: string, role: UserRole): Promise<Enrolment> {
    return this.credentials.issueEnrolment(id, panelUrl, role);
  }

  /** The agent's exchange; the node's previous credential is void, so a link still open with it (a lost host) ends now. */
  async enrolAgent(secret: string): Promise<EnrolResponse> {
    const enrolled = await this.credentials.enrol(secret);
    this.links.disconnect(enrolled.nodeId);
    this.logger.log(`node ${enrolled.nodeName} (${enrolled.nodeId}): an agent enrolled; a previous credential is void`);
    return enrolled;
  }
}
