import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Marks that these nodes must change: their desired-state revision grows by one. Call it inside
 * the same transaction as the change itself, so a revision never exists without its change (or
 * the other way round). Returns the new revision per node.
 */
export async function bumpRevisions(em: EntityManager, nodeIds: Iterable<string>): Promise<Map<string, number>> {
  const ids = [...new Set(nodeIds)];
  if (ids.length === 0) return new Map();
  // em.execute runs inside the caller's transaction when there is one.
  const rows = await em.execute<{ id: string; desired_revision: string }[]>(
    `update nodes set desired_revision = desired_revision + 1, updated_at = now()
      where id = any(?::uuid[]) returning id, desired_revision`,
    [ids],
  );
  return new Map(rows.map((row) => [row.id, Number(row.desired_revision)]));
}
