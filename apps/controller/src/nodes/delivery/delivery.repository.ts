import { Inject, Injectable } from '@nestjs/common';
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import type { AmneziaParams } from '#libs/wireguard/amnezia.js';
import { gatewayAddress } from '#libs/wireguard/address-pool.js';
import { parseCidr } from '#libs/wireguard/ipv4.js';
import type { DesiredInterface, DesiredPeer, DesiredQuota, DesiredState } from '#libs/contracts/desired-state.js';
import type { ApplyResult } from '#libs/contracts/node-queue.js';
import { MAX_REVISION } from '#libs/contracts/numbers.js';
import { NodeAgent, type NodeTables } from '../node-agent.entity.js';
import { nodeRouting } from '../../routing/node-routing.query.js';
import { speedLimitsByInterface, type PeerRow } from './desired-speed-limits.js';

/** A node and what its agent row says, as delivery decides whether any agent is waited for. */
export interface NodeAgentFacts {
  id: string;
  isLocal: boolean;
  hasCredential: boolean;
  connected: boolean;
  lastSeenAt: Date | null;
}

/** A node whose agent has not applied its desired revision yet. */
export interface NodeBehind extends NodeAgentFacts {
  desiredRevision: number;
  deliveredRevision: number;
}

/**
 * What delivery reads and marks: a node's whole desired state, which nodes are behind, and the
 * outbox mark (`nodes.delivered_revision`).
 */
@Injectable()
export class DeliveryRepository {
  constructor(@Inject(MikroORM) private readonly orm: MikroORM) {}

  private db() {
    return this.orm.em.fork().getKysely<NodeTables>();
  }

  /** Nodes with their agent rows (none: no credential, never seen). */
  private nodesWithAgents() {
    return this.db()
      .selectFrom('nodes')
      .leftJoin('node_agents', 'node_agents.node_id', 'nodes.id')
      .select((eb) => [
        'nodes.id',
        'nodes.is_local',
        'nodes.desired_revision',
        'nodes.delivered_revision',
        eb('node_agents.credential_hash', 'is not', null).as('has_credential'),
        'node_agents.connected',
        'node_agents.last_seen_at',
      ]);
  }

  async nodesBehind(): Promise<NodeBehind[]> {
    const rows = await this.nodesWithAgents()
      .whereRef('nodes.desired_revision', '>', 'nodes.applied_revision')
      .execute();
    // int8 arrives as a string from pg, whatever the entity-derived type says.
    return rows.map((row) => ({
      ...agentFacts(row),
      desiredRevision: Number(row.desired_revision),
      deliveredRevision: Number(row.delivered_revision),
    }));
  }

  /** The node and its agent row; undefined when the node does not exist. */
  async agentFactsOf(nodeId: string): Promise<NodeAgentFacts | undefined> {
    const row = await this.nodesWithAgents().where('nodes.id', '=', nodeId).executeTakeFirst();
    return row && agentFacts(row);
  }

  /** The highest revision an apply job was enqueued for; never moves back. */
  async markDelivered(nodeId: string, revision: number): Promise<void> {
    await this.db()
      .updateTable('nodes')
      .set((eb) => ({ delivered_revision: eb.fn<number>('greatest', ['delivered_revision', eb.val(revision)]) }))
      .where('id', '=', nodeId)
      .execute();
  }

  /**
   * The agent's own account of its host's revision (hello); returns the node's desired revision.
   * A host ahead of every revision this database issued (a restored backup, a recreated row, or
   * an agent that lies) runs a state nobody here knows: the desired revision moves one past it,
   * so the next delivery supersedes it (an agent skips jobs older than what it applied). A claim
   * at or beyond MAX_REVISION is no honest host's: it is recorded as nothing applied, so the node
   * shows out of sync instead of moving its revisions to where they would stop being exact.
   */
  async setAppliedRevision(nodeId: string, revision: number): Promise<number | undefined> {
    const credible = revision < MAX_REVISION;
    const row = await this.db()
      .updateTable('nodes')
      .set((eb) => ({
        applied_revision: credible
          ? revision
          : eb.case().when('desired_revision', '<', revision).then(0).else(revision).end(),
        desired_revision: credible
          ? eb
              .case()
              .when('desired_revision', '<', revision)
              .then(revision + 1)
              .else(eb.ref('desired_revision'))
              .end()
          : eb.ref('desired_revision'),
      }))
      .where('id', '=', nodeId)
      .returning('desired_revision')
      .executeTakeFirst();
    return row && Number(row.desired_revision);
  }

  /**
   * A complete apply of this revision; a no-op when it is already recorded, or when it claims a
   * revision beyond the desired one (no job ever carried it: recording it would take the node out
   * of the sweep's sight).
   */
  async markApplied(nodeId: string, revision: number): Promise<void> {
    await this.db()
      .updateTable('nodes')
      .set({ applied_revision: revision })
      .where('id', '=', nodeId)
      .where('applied_revision', '<>', revision)
      .where('desired_revision', '>=', revision)
      .execute();
  }

  /** The outcome of the agent's last apply, per interface, for the node's page. */
  async recordApplyResult(nodeId: string, result: ApplyResult): Promise<void> {
    await this.orm.em.fork().nativeUpdate(NodeAgent, { node: nodeId }, { lastApply: result });
  }

  /**
   * What a node must look like at its current revision: its enabled interfaces, each with the
   * peers of active clients' enabled accounts. Read in one repeatable-read snapshot, so the
   * revision and the rows belong together (a change committed meanwhile carries a higher revision
   * and gets its own job).
   *
   * Raw SQL on purpose: this is the delivery hot path (a node of 100,000 peers reads 100,000
   * account rows per apply), the rows go straight into the job without entities, and it reads
   * tables of the interfaces and clients domains without pulling their entities in here.
   */
  async desiredState(nodeId: string): Promise<DesiredState | undefined> {
    return this.orm.em.fork().transactional(
      async (tx) => {
        // The peers query sorts a whole node's accounts (100,000 rows, ~12 MB). With the defaults
        // PostgreSQL spills that sort to disk and runs it in parallel workers whose sorted
        // streams are merged again: ~330 ms of machine CPU per delivery at 100,000 peers, against
        // ~255 ms in memory in one process (pgbench; docs/benchmarks.md). A delivery is
        // background work, so using less CPU beats finishing 40 ms sooner.
        await tx.execute(`set local max_parallel_workers_per_gather = 0`);
        await tx.execute(`set local work_mem = '32MB'`);
        const [node] = await tx.execute<{ desired_revision: string; tunnels_stopped: boolean }[]>(
          'select desired_revision, tunnels_stopped from nodes where id = ?',
          [nodeId],
        );
        if (!node) return undefined;
        const interfaces = await tx.execute<
          {
            id: string;
            name: string;
            mode: 'standard' | 'amnezia';
            private_key: string;
            listen_port: number;
            subnet: string;
            mtu: number;
            nat_interface: string | null;
            awg: AmneziaParams | null;
            restart_serial: number;
          }[]
        >(
          `select id, name, mode, private_key, listen_port, subnet, mtu, nat_interface, awg, restart_serial
             from interfaces where node_id = ? and enabled order by name`,
          [nodeId],
        );
        const peers = await tx.execute<
          (PeerRow & { interface_id: string; public_key: string; preshared_key: string; ip: string })[]
        >(
          `select a.interface_id, a.public_key, a.preshared_key, a.ip, d.client_id, c.rate_bits_per_sec
             from accounts a
             join devices d on d.id = a.device_id
             join clients c on c.id = d.client_id
            where a.node_id = ? and a.enabled and c.status = 'active'
            order by a.interface_id, a.ip`,
          [nodeId],
        );
        const byInterface = new Map<string, DesiredPeer[]>();
        for (const row of peers) {
          let list = byInterface.get(row.interface_id);
          if (!list) byInterface.set(row.interface_id, (list = []));
          list.push({ publicKey: row.public_key, presharedKey: row.preshared_key || null, ip: row.ip });
        }
        const limits = speedLimitsByInterface(peers);
        const quotas = await this.quotas(tx, nodeId);
        const { outbounds, routing } = await nodeRouting(tx, nodeId);
        // The agent checks its hops' resolved addresses against it (settings change bumps every node with hops).
        const [allowPrivate] = await tx.execute<{ value: unknown }[]>(
          `select value from settings where key = 'allowPrivateTargets'`,
        );
        return {
          nodeId,
          revision: Number(node.desired_revision),
          outbounds,
          routing,
          allowPrivateTargets: allowPrivate?.value === true,
          ...(quotas.length > 0 ? { quotas } : {}),
          interfaces: interfaces.map((row): DesiredInterface => ({
            name: row.name,
            mode: row.mode,
            privateKey: row.private_key,
            listenPort: row.listen_port,
            address: `${gatewayAddress(row.subnet)}/${parseCidr(row.subnet).prefix}`,
            subnet: row.subnet,
            mtu: row.mtu,
            natInterface: row.nat_interface,
            amnezia: row.mode === 'amnezia' ? row.awg : null,
            peers: byInterface.get(row.id) ?? [],
            ...(limits.has(row.id) ? { speedLimits: limits.get(row.id) } : {}),
            // Only when set: a node never restarted or stopped sends what older agents know.
            ...(row.restart_serial > 0 ? { restartSerial: row.restart_serial } : {}),
            ...(node.tunnels_stopped ? { down: true } : {}),
          })),
        };
      },
      { isolationLevel: 'repeatable read', readOnly: true },
    );
  }

  /**
   * Kernel byte allowances (docs/agent-host.md, "Quotas"): each active client with a quota that has
   * peers here, with what it has left as of this snapshot and its peer addresses on this node.
   * A query of its own rather than columns on the peers query: a node without quota clients pays
   * one index walk, and the peers query stays the hot path it was measured as.
   */
  private async quotas(tx: EntityManager, nodeId: string): Promise<DesiredQuota[]> {
    const rows = await tx.execute<{ client_id: string; remaining: string; ips: string[] }[]>(
      `select c.id as client_id, greatest(c.quota_bytes - c.used_bytes, 0) as remaining,
              array_agg(a.ip order by a.ip) as ips
         from accounts a
         join devices d on d.id = a.device_id
         join clients c on c.id = d.client_id
        where a.node_id = ? and a.enabled and c.status = 'active' and c.quota_bytes > 0
        group by c.id
        order by c.id`,
      [nodeId],
    );
    return rows.map((row) => ({ client: row.client_id, remainingBytes: Number(row.remaining), ips: row.ips }));
  }
}

function agentFacts(row: {
  id: string;
  is_local: boolean;
  has_credential: boolean | 0 | 1 | null;
  connected: boolean | null;
  last_seen_at: Date | string | null;
}): NodeAgentFacts {
  return {
    id: row.id,
    isLocal: row.is_local,
    hasCredential: Boolean(row.has_credential),
    connected: row.connected ?? false,
    lastSeenAt: row.last_seen_at === null ? null : new Date(row.last_seen_at),
  };
}
