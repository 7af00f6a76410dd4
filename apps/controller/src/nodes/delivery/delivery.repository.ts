import { Inject, Injectable } from '@nestjs/common';
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import type { DesiredQuota, DesiredState } from '#libs/contracts/desired-state.js';
import type { ApplyResult } from '#libs/contracts/node-queue.js';
import { MAX_REVISION } from '#libs/contracts/numbers.js';
import { NodeAgent, type NodeTables } from '../node-agent.entity.js';
import { nodeRouting } from '../../routing/node-routing.query.js';
import { speedLimitsByInterface } from './desired-speed-limits.js';
import {
  assembleState,
  formerOwners,
  peerLists,
  type InterfaceRow,
  type JournalRow,
  type NodeChanges,
  type NodeHead,
  type PeerListRow,
  type ReadState,
} from './desired-state-patch.js';
import { WHOLE_STATE_MARKER } from '../../revisions/revisions.js';

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
 * The journal's prune, `minutes` the placeholder of how many minutes stamped rows are kept. It
 * walks the partial index on stamped_at (whose `is not null` the condition implies), never the
 * table: the horizon is computed from now(), which is stable within the statement, where
 * clock_timestamp() is volatile and cannot bound an index scan (the prune by created_at against
 * clock_timestamp() read the whole table: 200,000 rows to find 2,000 to delete). Alone in its
 * statement, now() is the moment it runs. Exported for the test of its plan.
 */
export const JOURNAL_PRUNE = (minutes: string) =>
  `delete from peer_changes where stamped_at < now() - make_interval(mins => ${minutes})`;

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
    return (await this.wholeState(nodeId))?.state;
  }

  /** The node's whole state, and the ids of its interfaces in the state's order (what a patch checks). */
  async wholeState(nodeId: string): Promise<ReadState | undefined> {
    return this.snapshot({ whole: true }, async (tx) => {
      const head = await this.head(tx, nodeId);
      if (!head) return undefined;
      const peers = await this.peers(tx, nodeId);
      const quotas = await this.quotas(tx, nodeId);
      return {
        state: assembleState(head, peerLists(peers), speedLimitsByInterface(peers), quotas),
        interfaceIds: head.interfaces.map((row) => row.id),
      };
    });
  }

  /**
   * What changed on the node since `base` (a state this controller delivered): the node's own
   * settings, interfaces and routing as they are now (a few rows), and from the peer journal
   * (Migration20261127150000_peer_journal) the accounts whose peers changed since base's revision,
   * with the current peers, speed limits and quotas of every client those accounts belong or
   * belonged to. The caller patches `base` with it (desired-state-patch.ts). Reads rows in
   * proportion to the change, not to the node: the point of a delta (issue 27, item 1).
   * `undefined` when the node is gone; 'whole' past `most` journal rows (the whole state is cheaper).
   */
  async changesSince(nodeId: string, base: DesiredState, most: number): Promise<NodeChanges | 'whole' | undefined> {
    return this.snapshot({ whole: false }, async (tx) => {
      const head = await this.head(tx, nodeId);
      if (!head) return undefined;
      // Rows stamped after base's revision, and rows no bump has stamped yet that this snapshot
      // sees (committed, so already part of this state: a write that bumped before it changed).
      const journal = await tx.execute<JournalRow[]>(
        `select account_id, old_interface_id, old_public_key, old_ip from peer_changes
          where node_id = ? and (revision > ? or revision is null) limit ?`,
        [nodeId, base.revision, most + 1],
      );
      // More rows than a patch is worth, or a restore's marker: the whole state.
      if (journal.length > most || journal.some((row) => row.account_id === WHOLE_STATE_MARKER)) return 'whole';
      if (journal.length === 0) return { head, journal, peers: [], clients: [], quotas: [] };
      const accounts = [...new Set(journal.map((row) => row.account_id))];
      const owners = await tx.execute<{ client_id: string }[]>(
        `select distinct d.client_id from accounts a join devices d on d.id = a.device_id
          where a.id = any(array[?]::uuid[])`,
        [accounts],
      );
      const clients = [...new Set([...owners.map((row) => row.client_id), ...formerOwners(base, journal)])];
      const peers = await this.peers(tx, nodeId, { accounts, clients });
      return { head, journal, peers, clients, quotas: await this.quotas(tx, nodeId, clients) };
    });
  }

  /**
   * One repeatable-read snapshot, so the revision and the rows belong together. `whole`: it reads
   * a whole node's peers (a patch's few rows need neither setting, nor the round trips for them).
   */
  private snapshot<T>({ whole }: { whole: boolean }, read: (tx: EntityManager) => Promise<T>): Promise<T> {
    return this.orm.em.fork().transactional(
      async (tx) => {
        // The peers query sorts a whole node's accounts (100,000 rows, ~12 MB). With the defaults
        // PostgreSQL spills that sort to disk and runs it in parallel workers whose sorted
        // streams are merged again: ~330 ms of machine CPU per delivery at 100,000 peers, against
        // ~255 ms in memory in one process (pgbench; docs/benchmarks.md). A delivery is
        // background work, so using less CPU beats finishing 40 ms sooner.
        if (whole) {
          await tx.execute(`set local max_parallel_workers_per_gather = 0`);
          await tx.execute(`set local work_mem = '32MB'`);
        }
        return read(tx);
      },
      { isolationLevel: 'repeatable read', readOnly: true },
    );
  }

  /** The node's revision and everything of its state but peers, speed limits and quotas. */
  private async head(tx: EntityManager, nodeId: string): Promise<NodeHead | undefined> {
    const [node] = await tx.execute<{ desired_revision: string; tunnels_stopped: boolean }[]>(
      'select desired_revision, tunnels_stopped from nodes where id = ?',
      [nodeId],
    );
    if (!node) return undefined;
    const interfaces = await tx.execute<InterfaceRow[]>(
      `select id, name, mode, private_key, listen_port, subnet, mtu, nat_interface, awg, restart_serial
         from interfaces where node_id = ? and enabled order by name`,
      [nodeId],
    );
    const { outbounds, routing } = await nodeRouting(tx, nodeId);
    // The agent checks its hops' resolved addresses against it (settings change bumps every node with hops).
    const [allowPrivate] = await tx.execute<{ value: unknown }[]>(
      `select value from settings where key = 'allowPrivateTargets'`,
    );
    return {
      nodeId,
      revision: Number(node.desired_revision),
      tunnelsStopped: node.tunnels_stopped,
      interfaces,
      outbounds,
      routing,
      allowPrivateTargets: allowPrivate?.value === true,
    };
  }

  /**
   * Peers of active clients' enabled accounts on the node: all of them, or only those of the given
   * accounts and clients (a delta's).
   */
  private peers(tx: EntityManager, nodeId: string, only?: { accounts: string[]; clients: string[] }) {
    if (!only)
      return tx.execute<PeerListRow[]>(
        `select a.interface_id, a.public_key, a.preshared_key, a.ip, d.client_id, c.rate_bits_per_sec
           from accounts a
           join devices d on d.id = a.device_id
           join clients c on c.id = d.client_id
          where a.node_id = ? and a.enabled and c.status = 'active'
          order by a.interface_id, a.ip`,
        [nodeId],
      );
    // The accounts are found by their ids and their clients' devices first (index probes), then
    // kept if on the node: with `a.id = any(…) or d.client_id = any(…)` beside `a.node_id = ?`
    // PostgreSQL could use no index for the `or` across two tables and joined every account of
    // the node (70 ms at 10,000 peers, a loaded machine) to find a delta's few rows.
    return tx.execute<PeerListRow[]>(
      `with wanted as (
         select id from accounts where id = any(array[?]::uuid[])
         union
         select a.id from devices d join accounts a on a.device_id = d.id where d.client_id = any(array[?]::uuid[])
       )
       select a.interface_id, a.public_key, a.preshared_key, a.ip, d.client_id, c.rate_bits_per_sec
         from wanted w
         join accounts a on a.id = w.id
         join devices d on d.id = a.device_id
         join clients c on c.id = d.client_id
        where a.node_id = ? and a.enabled and c.status = 'active'
        order by a.interface_id, a.ip`,
      [only.accounts, only.clients, nodeId],
    );
  }

  /**
   * Kernel byte allowances (docs/agent-host.md, "Quotas"): each active client with a quota that has
   * peers here, with what it has left as of this snapshot and its peer addresses on this node; all
   * of them, or those of the given clients.
   * A query of its own rather than columns on the peers query: a node without quota clients pays
   * one index walk, and the peers query stays the hot path it was measured as.
   */
  private async quotas(tx: EntityManager, nodeId: string, clients?: string[]): Promise<DesiredQuota[]> {
    const rows = await tx.execute<{ client_id: string; remaining: string; ips: string[] }[]>(
      `select c.id as client_id, greatest(c.quota_bytes - c.used_bytes, 0) as remaining,
              array_agg(a.ip order by a.ip) as ips
         from accounts a
         join devices d on d.id = a.device_id
         join clients c on c.id = d.client_id
        where a.node_id = ? and a.enabled and c.status = 'active' and c.quota_bytes > 0
          ${clients ? 'and c.id = any(array[?]::uuid[])' : ''}
        group by c.id
        order by c.id`,
      clients ? [nodeId, clients] : [nodeId],
    );
    return rows.map((row) => ({ client: row.client_id, remainingBytes: Number(row.remaining), ips: row.ips }));
  }

  /**
   * Journal rows stamped with their revision more than `keepMinutes` ago go: a delivery patches
   * only a base younger than that (DeliveryService), so nothing still needs them. By when they
   * were stamped, not written: a transaction open longer than the horizon commits rows written
   * past it, which a delivery has not read yet (they went before any delta carried them). Rows
   * not stamped yet stay. See JOURNAL_PRUNE for how it finds them.
   */
  async pruneJournal(keepMinutes: number): Promise<number> {
    const [row] = await this.orm.em
      .fork()
      .execute<{ pruned: number }[]>(
        `with gone as (${JOURNAL_PRUNE('?')} returning 1) select count(*)::int as pruned from gone`,
        [keepMinutes],
      );
    return row?.pruned ?? 0;
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
