import { Inject, Injectable } from '@nestjs/common';
import { LockMode, MikroORM, type EntityManager, type InferKyselyDB } from '@mikro-orm/postgresql';
import type { AmneziaParams } from '#libs/wireguard/amnezia.js';
import type { ApplyResult } from '#libs/contracts/node-queue.js';
import { ONLINE_WINDOW_MS } from '../common/online.js';
import { agentState } from '../system/agent-state.js';
import { gatewayAddress, poolCapacity } from '#libs/wireguard/address-pool.js';
import { Node } from '../revisions/node.entity.js';
import { TunnelInterface, type InterfaceMode, type InterfaceProtocol } from './interface.entity.js';

export interface InterfaceUsage {
  /** Addresses handed out (accounts on the interface). */
  allocated: number;
  /** Distinct clients attached to the interface. */
  clients: number;
  /** Distinct devices with an account on the interface. */
  devices: number;
  /** Distinct devices with a handshake on the interface within the online window (common/online.ts). */
  online: number;
  /** Up plus down bytes of the accounts on the interface (each counted since its client's last reset). */
  usedBytes: number;
}

/** Whether the interface is up on its node, as far as the panel knows. */
export interface InterfaceRunning {
  /**
   * The node's agent is connected and its last apply reported this interface, under its
   * current name, as up. False while that is not known (agent away, change not applied yet).
   */
  running: boolean;
}

export interface InterfaceView extends InterfaceUsage, InterfaceRunning {
  id: string;
  nodeId: string;
  name: string;
  protocol: InterfaceProtocol;
  mode: InterfaceMode;
  listenPort: number;
  subnet: string;
  /** The server's address on the tunnel (first host of the subnet). */
  gateway: string;
  endpointHost: string;
  mtu: number;
  dns: string[];
  natInterface: string | null;
  enabled: boolean;
  publicKey: string;
  awg: AmneziaParams | null;
  /** Addresses the pool can hand out (network, gateway and broadcast excluded). */
  capacity: number;
  createdAt: Date;
  updatedAt: Date;
}

/** What must be unique on a node: another interface's name, port and subnet. */
export interface Placement {
  id: string;
  name: string;
  listenPort: number;
  subnet: string;
}

export type NewInterface = Omit<TunnelInterface, 'id' | 'node' | 'createdAt' | 'updatedAt' | 'restartSerial'> & {
  nodeId: string;
};

type InterfacesDb = InferKyselyDB<typeof TunnelInterface>;

const NONE: InterfaceUsage = { allocated: 0, clients: 0, devices: 0, online: 0, usedBytes: 0 };

/** What node_agents says about a node's agent, as the running flag needs it. */
interface NodeAgentFacts {
  hasCredential: boolean;
  connected: boolean;
  lastSeenAt: Date | null;
  lastApply: ApplyResult | null;
}

function isRunning(row: TunnelInterface, agent: NodeAgentFacts | undefined, now: number): boolean {
  if (!agent || agentState(agent, now) !== 'connected') return false;
  return agent.lastApply?.interfaces.some((outcome) => outcome.name === row.name && outcome.state === 'up') ?? false;
}

function view(row: TunnelInterface, usage: InterfaceUsage, running: boolean): InterfaceView {
  // Built field by field: the private key must never reach a response, whatever the entity grows.
  return {
    id: row.id,
    nodeId: row.node.id,
    name: row.name,
    protocol: row.protocol,
    mode: row.mode,
    listenPort: row.listenPort,
    subnet: row.subnet,
    gateway: gatewayAddress(row.subnet),
    endpointHost: row.endpointHost,
    mtu: row.mtu,
    dns: [...row.dns],
    natInterface: row.natInterface ?? null,
    enabled: row.enabled,
    publicKey: row.publicKey,
    awg: row.awg ?? null,
    capacity: poolCapacity(row.subnet),
    allocated: usage.allocated,
    clients: usage.clients,
    devices: usage.devices,
    online: usage.online,
    usedBytes: usage.usedBytes,
    running,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/**
 * Interface rows, their locks and their views. Writes take the transaction's EntityManager from
 * the service, which owns the transaction and the lock order. Accounts and client attachments
 * are read by table name: they belong to clients/, which sits above interfaces/ in the one-way
 * dependency order.
 */
@Injectable()
export class InterfacesRepository {
  constructor(@Inject(MikroORM) private readonly orm: MikroORM) {}

  transaction<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    return this.orm.em.fork().transactional(work);
  }

  async list(nodeId?: string): Promise<InterfaceView[]> {
    const em = this.orm.em.fork();
    const rows = await em.find(TunnelInterface, nodeId ? { node: nodeId } : {}, {
      orderBy: { name: 'asc', createdAt: 'asc' },
    });
    return this.views(em, rows);
  }

  async get(id: string): Promise<InterfaceView | null> {
    const em = this.orm.em.fork();
    const row = await em.findOne(TunnelInterface, { id });
    return row && (await this.views(em, [row]))[0];
  }

  private async views(em: EntityManager, rows: readonly TunnelInterface[]): Promise<InterfaceView[]> {
    const [usage, agents] = await Promise.all([
      this.usage(
        em,
        rows.map((row) => row.id),
      ),
      this.agents(em, [...new Set(rows.map((row) => row.node.id))]),
    ]);
    const now = Date.now();
    return rows.map((row) => view(row, usage.get(row.id)!, isRunning(row, agents.get(row.node.id), now)));
  }

  /**
   * The agents of some nodes, by node id. node_agents belongs to nodes/, above interfaces/ in the
   * dependency order: read by table name, and judged with system/'s one agent-state rule.
   */
  private async agents(em: EntityManager, nodeIds: readonly string[]): Promise<Map<string, NodeAgentFacts>> {
    const agents = new Map<string, NodeAgentFacts>();
    if (nodeIds.length === 0) return agents;
    const rows = await em.execute<
      {
        node_id: string;
        has_credential: boolean;
        connected: boolean;
        last_seen_at: Date | null;
        last_apply: ApplyResult | null;
      }[]
    >(
      `select node_id, credential_hash is not null as has_credential, connected, last_seen_at, last_apply
         from node_agents where node_id = any(array[?]::uuid[])`,
      [[...nodeIds]],
    );
    for (const row of rows) {
      agents.set(row.node_id, {
        hasCredential: row.has_credential,
        connected: row.connected,
        lastSeenAt: row.last_seen_at === null ? null : new Date(row.last_seen_at),
        lastApply: row.last_apply,
      });
    }
    return agents;
  }

  async nodeExists(nodeId: string): Promise<boolean> {
    return (await this.orm.em.fork().count(Node, { id: nodeId })) > 0;
  }

  async localNodeId(em: EntityManager): Promise<string | null> {
    return (await em.findOne(Node, { isLocal: true }, { fields: ['id'] }))?.id ?? null;
  }

  /**
   * Locks the interface row until the transaction ends and reads it fresh, or null when there
   * is none. The controller's lock order: interface rows before node rows.
   */
  async lock(em: EntityManager, id: string): Promise<TunnelInterface | null> {
    return em.findOne(TunnelInterface, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  }

  /** The interfaces of a node as placement checks need them, by name. */
  async placementsOnNode(em: EntityManager, nodeId: string): Promise<Placement[]> {
    const rows = await em
      .getKysely<InterfacesDb>()
      .selectFrom('interfaces')
      .select(['id', 'name', 'listen_port', 'subnet'])
      .where('node_id', '=', nodeId)
      .orderBy('name')
      .execute();
    return rows.map((row) => ({ id: row.id, name: row.name, listenPort: row.listen_port, subnet: row.subnet }));
  }

  async insert(em: EntityManager, input: NewInterface): Promise<string> {
    const { nodeId, ...fields } = input;
    const row = em.create(TunnelInterface, { ...fields, node: em.getReference(Node, nodeId) });
    await em.flush();
    return row.id;
  }

  /** Writes the changes made to a locked row. */
  async save(em: EntityManager): Promise<void> {
    await em.flush();
  }

  /** Deletes the interface; the database cascades to its hosts, accounts and client attachments. */
  async delete(em: EntityManager, id: string): Promise<void> {
    await em.nativeDelete(TunnelInterface, { id });
  }

  /** Accounts on one interface and the devices they belong to. */
  async accountCounts(em: EntityManager, id: string): Promise<{ accounts: number; devices: number }> {
    const [row] = await em.execute<{ accounts: string; devices: string }[]>(
      'select count(*) as accounts, count(distinct device_id) as devices from accounts where interface_id = ?',
      [id],
    );
    return { accounts: Number(row.accounts), devices: Number(row.devices) };
  }

  /**
   * The interface's row and the peers its node runs on it (active clients' enabled accounts, as
   * delivery reads them), for its server profile; null when there is no such interface.
   */
  async withPeers(id: string): Promise<{ row: TunnelInterface; peers: { publicKey: string; ip: string }[] } | null> {
    const em = this.orm.em.fork();
    const row = await em.findOne(TunnelInterface, { id });
    if (!row) return null;
    const peers = await em.execute<{ public_key: string; ip: string }[]>(
      `select a.public_key, a.ip
         from accounts a
         join devices d on d.id = a.device_id
         join clients c on c.id = d.client_id
        where a.interface_id = ? and a.enabled and c.status = 'active'
        order by a.ip`,
      [id],
    );
    return { row, peers: peers.map((peer) => ({ publicKey: peer.public_key, ip: peer.ip })) };
  }

  /** Usage of many interfaces in two grouped queries, whatever their number. */
  private async usage(em: EntityManager, interfaceIds: readonly string[]): Promise<Map<string, InterfaceUsage>> {
    const usage = new Map<string, InterfaceUsage>();
    if (interfaceIds.length === 0) return usage;
    const ids = [...interfaceIds];
    const [accounts, clients] = await Promise.all([
      em.execute<{ interface_id: string; allocated: string; devices: string; online: string; used_bytes: string }[]>(
        `select interface_id, count(*) as allocated, count(distinct device_id) as devices,
                count(distinct device_id) filter (where last_handshake > ?) as online,
                coalesce(sum(up_bytes + down_bytes), 0) as used_bytes
           from accounts where interface_id = any(array[?]::uuid[]) group by interface_id`,
        [new Date(Date.now() - ONLINE_WINDOW_MS), ids],
      ),
      em.execute<{ interface_id: string; clients: string }[]>(
        `select interface_id, count(distinct client_id) as clients
           from client_interfaces where interface_id = any(array[?]::uuid[]) group by interface_id`,
        [ids],
      ),
    ]);
    for (const id of ids) usage.set(id, { ...NONE });
    for (const row of accounts) {
      Object.assign(usage.get(row.interface_id)!, {
        allocated: Number(row.allocated),
        devices: Number(row.devices),
        online: Number(row.online),
        usedBytes: Number(row.used_bytes),
      });
    }
    for (const row of clients) usage.get(row.interface_id)!.clients = Number(row.clients);
    return usage;
  }
}
