import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Node } from '../../revisions/node.entity.js';

/**
 * The peer journal: an account whose peer changed on a node, written by triggers
 * (Migration20261127150000_peer_journal) and stamped with the node's next revision by
 * bumpRevisions. A delivery reads the rows after the revision it last delivered, so a delta reads
 * the accounts that changed, not the node's every peer. Kept 20 minutes after it was stamped
 * (DeliveryService, DeliveryRepository.pruneJournal).
 */
export const PeerChange = defineEntity({
  name: 'PeerChange',
  tableName: 'peer_changes',
  indexes: [
    { properties: ['node', 'revision'], name: 'peer_changes_node_revision_index' },
    {
      name: 'peer_changes_stamped_at_index',
      expression: `create index "peer_changes_stamped_at_index" on "peer_changes" ("stamped_at") where "stamped_at" is not null`,
    },
  ],
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    node: () => p.manyToOne(Node).deleteRule('cascade'),
    accountId: p.uuid(),
    /** What the node knew the peer by before the change; null for an account added. */
    oldInterfaceId: p.uuid().nullable(),
    oldPublicKey: p.text().nullable(),
    oldIp: p.text().nullable(),
    /** The node revision that carries the change; null until bumpRevisions stamps it. */
    revision: p.bigint('number').nullable(),
    createdAt: p.datetime().defaultRaw('clock_timestamp()'),
    /**
     * When bumpRevisions stamped the row (Migration20261127170000_warren_function_names): what
     * the prune goes by. Not created_at: a long transaction's rows are written long before its
     * commit makes them readable.
     */
    stampedAt: p.datetime().nullable(),
  },
});
export type PeerChange = InferEntity<typeof PeerChange>;
