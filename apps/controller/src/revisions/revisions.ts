import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../http/api-error.js';
import type { NodeTable } from './node.entity.js';

/** The PostgreSQL notification channel that carries the ids of nodes whose revision grew. */
export const REVISIONS_CHANNEL = 'warren_revisions';
/**
 * Notified when a restore replaced the whole database (its payload: when the restored backup
 * was made). Every controller then drops what it holds about agents: their links (credentials
 * may have changed) and their Redis users (put back from the restored rows).
 */
export const RESTORED_CHANNEL = 'warren_restored';
/**
 * Notified (by a trigger on node_agents, migration credential_changes) with a node's id when its
 * agent credential changed or went: every controller checks the link it holds for that node.
 */
export const CREDENTIALS_CHANNEL = 'warren_credentials';

/**
 * The peer journal's account id of a row that says "the node's whole state, not a patch": a
 * restore writes one per node, stamped with the node's new revision, so a controller that still
 * holds a state from before the restore (a delivery in flight when it was told, or a notification
 * it missed) reads the whole state instead of patching the old one (DeliveryRepository.changesSince).
 */
export const WHOLE_STATE_MARKER = '00000000-0000-0000-0000-000000000000';

/**
 * Marks that these nodes must change: their desired-state revision grows by one. Call it inside
 * the same transaction as the change itself, so a revision never exists without its change (or
 * the other way round). Returns the new revision per node.
 */
export async function bumpRevisions(em: EntityManager, nodeIds: Iterable<string>): Promise<Map<string, number>> {
  const ids = [...new Set(nodeIds)].sort();
  if (ids.length === 0) return new Map();
  // Raw SQL on purpose: every write of the panel runs this, and one statement locks the rows in
  // order and bumps them (the typed builders need a select-for-update and an update apart).
  // em.execute runs inside the caller's transaction when there is one. It inlines parameters and
  // spells an array as a comma list, hence `array[?]`. The rows are locked in id order first, so
  // two transactions bumping overlapping sets of nodes cannot deadlock on each other.
  // The same statement stamps the peer journal's rows this transaction wrote for these nodes with
  // the new revision (Migration20261127150000_peer_journal): under the node row's lock, so the
  // revisions order the rows as the commits do, and a delivery reads a revision's rows exactly.
  // Rows another transaction left unstamped (committed, so a delivery reads them anyway) are
  // stamped too; another transaction's uncommitted rows are invisible here. `stamped_at` is what
  // the journal is pruned by (DeliveryRepository.pruneJournal): the stamp is at the end of the
  // writing transaction, where `created_at` may be long before its commit.
  // `for no key update`, not `for update`: writing a journal row takes a key-share lock on its
  // node (the foreign key), which `for update` waits for; two transactions that each wrote rows
  // for a node and then bumped it deadlocked on each other.
  const rows = await em.execute<{ id: string; desired_revision: string }[]>(
    `with locked as (select id from nodes where id = any(array[?]::uuid[]) order by id for no key update),
     bumped as (
       update nodes set desired_revision = desired_revision + 1, updated_at = now()
         from locked where nodes.id = locked.id
       returning nodes.id, nodes.desired_revision
     ), stamped as (
       update peer_changes p set revision = bumped.desired_revision, stamped_at = clock_timestamp()
         from bumped
        where p.node_id = bumped.id and p.revision is null
     )
     select id, desired_revision from bumped`,
    [ids],
  );
  // Delivered only on commit (and not at all on rollback): the delivery service listens and
  // enqueues the apply jobs at once; its sweep covers a notification lost to a dropped listener.
  await em.execute(`select pg_notify(?, ?)`, [REVISIONS_CHANNEL, ids.join(',')]);
  return new Map(rows.map((row) => [row.id, Number(row.desired_revision)]));
}

/**
 * Locks a node row until the transaction ends. Every write that must see a node's interfaces
 * as a whole (name, port and subnet uniqueness) takes this lock first, so two parallel
 * requests check one after the other instead of both passing. Lock order across the
 * controller: interface rows before node rows (bumpRevisions updates the node row last).
 */
export async function lockNode(em: EntityManager, nodeId: string, field: string): Promise<void> {
  const locked = await em
    .getKysely<{ nodes: NodeTable }>()
    .selectFrom('nodes')
    .select('id')
    .where('id', '=', nodeId)
    // As bumpRevisions: it serializes the node's writers without waiting for key-share holders
    // (the peer journal's rows hold one on their node).
    .forNoKeyUpdate()
    .executeTakeFirst();
  if (!locked) throw notFound('node not found', field);
}
