import type { EntityManager } from '@mikro-orm/postgresql';
import type { HopCounters } from '#libs/contracts/agent-link.js';

/**
 * Adds the hop deltas of an agent's counter batch to its node's outbounds, inside the batch's
 * transaction (clients/usage.service.ts): the batch's sequence number is claimed there, so a
 * batch sent twice adds its hops' bytes once, like its peers'. Only outbounds of the agent's own
 * node count; one deleted meanwhile takes nothing. One statement for the whole batch. Totals
 * saturate at 2^53 - 1, as the clients' do (clients/usage.repository.ts): a node reporting the
 * most the link allows for a long time cannot overflow bigint and make its own batches, and the
 * other nodes' batches recorded in the same transaction, fail.
 */
const MAX_BYTES = Number.MAX_SAFE_INTEGER;

export async function addHopTraffic(em: EntityManager, nodeId: string, hops: readonly HopCounters[]): Promise<void> {
  if (hops.length === 0) return;
  await em.execute(
    `update outbounds o set up_bytes = least(o.up_bytes + h.up, ${MAX_BYTES}),
                            down_bytes = least(o.down_bytes + h.down, ${MAX_BYTES})
       from (select unnest(array[?]::uuid[]) as id, unnest(array[?]::bigint[]) as up,
                    unnest(array[?]::bigint[]) as down) h
      where o.id = h.id and o.node_id = ?`,
    [hops.map((hop) => hop.id), hops.map((hop) => hop.upBytes), hops.map((hop) => hop.downBytes), nodeId],
  );
}
