import type { EntityManager } from '@mikro-orm/postgresql';
import type { HopCounters } from '#libs/contracts/agent-link.js';

/**
 * Adds the hop deltas of an agent's counter batch to its node's outbounds, inside the batch's
 * transaction (clients/usage.service.ts): the batch's sequence number is claimed there, so a
 * batch sent twice adds its hops' bytes once, like its peers'. Only outbounds of the agent's own
 * node count; one deleted meanwhile takes nothing. One statement for the whole batch.
 */
export async function addHopTraffic(em: EntityManager, nodeId: string, hops: readonly HopCounters[]): Promise<void> {
  if (hops.length === 0) return;
  await em.execute(
    `update outbounds o set up_bytes = o.up_bytes + h.up, down_bytes = o.down_bytes + h.down
       from (select unnest(array[?]::uuid[]) as id, unnest(array[?]::bigint[]) as up,
                    unnest(array[?]::bigint[]) as down) h
      where o.id = h.id and o.node_id = ?`,
    [hops.map((hop) => hop.id), hops.map((hop) => hop.upBytes), hops.map((hop) => hop.downBytes), nodeId],
  );
}
