import type { EntityManager } from '@mikro-orm/postgresql';
import type { HopCounters } from '#libs/contracts/agent-link.js';

/**
 * Adds the hop deltas of agents' counter batches to their nodes' outbounds, inside the batches'
 * transaction (clients/usage.service.ts): each batch's sequence number is claimed there, so a
 * batch sent twice adds its hops' bytes once, like its peers'. Only outbounds of a batch's own
 * node count; one deleted meanwhile takes nothing. One statement for all the batches of a
 * transaction (clients/counter-commits.ts), fed in id order as the counters feed theirs.
 * Totals saturate at 2^53 - 1, as the clients' do (clients/usage.repository.ts): a node reporting
 * the most the link allows for a long time cannot overflow bigint and make its own batches, and
 * the other nodes' batches recorded in the same transaction, fail.
 */
const MAX_BYTES = Number.MAX_SAFE_INTEGER;

/** One claimed batch's hop counters, with the node that sent them. */
export interface NodeHops {
  nodeId: string;
  hops: readonly HopCounters[];
}

export async function addHopTraffic(em: EntityManager, batches: readonly NodeHops[]): Promise<void> {
  const rows = batches.flatMap(({ nodeId, hops }) =>
    hops.map((hop) => ({ id: hop.id, node_id: nodeId, up: hop.upBytes, down: hop.downBytes })),
  );
  if (rows.length === 0) return;
  // One JSON parameter, whatever the number of hops; a hop listed twice in a batch counts twice
  // (summed: an update meets each row once).
  await em.execute(
    `update outbounds o set up_bytes = least(o.up_bytes + h.up, ${MAX_BYTES}),
                            down_bytes = least(o.down_bytes + h.down, ${MAX_BYTES})
       from (select id, node_id, sum(up) as up, sum(down) as down
               from jsonb_to_recordset(?::jsonb) as r(id uuid, node_id uuid, up bigint, down bigint)
              group by id, node_id order by id) h
      where o.id = h.id and o.node_id = h.node_id`,
    [JSON.stringify(rows)],
  );
}
