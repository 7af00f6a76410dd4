import type { EntityManager } from '@mikro-orm/postgresql';

/** Tables whose rows a node keeps in an order of its own (a `position` column). */
type OrderedTable = 'outbounds' | 'routing_rules';

/**
 * Sets position = index in `ids` for the node's rows of `table`, in one statement for any number;
 * rows already in place are left alone (no write, no updated_at). The caller checks `ids`.
 */
export async function setPositions(
  em: EntityManager,
  table: OrderedTable,
  nodeId: string,
  ids: readonly string[],
): Promise<void> {
  await em.execute(
    `update ${table} t set position = o.position - 1, updated_at = now()
       from unnest(array[?]::uuid[]) with ordinality as o(id, position)
      where t.id = o.id and t.node_id = ? and t.position <> o.position - 1`,
    [[...ids], nodeId],
  );
}
