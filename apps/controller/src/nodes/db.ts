import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { conflict, notFound } from '../http/api-error.js';

/**
 * Locks a node row until the transaction ends. Every write that must see a node's interfaces
 * as a whole (name, port and subnet uniqueness) takes this lock first, so two parallel
 * requests check one after the other instead of both passing. Lock order across the
 * controller: interface rows before node rows (bumpRevisions updates the node row last).
 */
export async function lockNode(em: EntityManager, nodeId: string, field: string): Promise<void> {
  const rows = await em.execute<{ id: string }[]>('select id from nodes where id = ? for update', [nodeId]);
  if (rows.length === 0) throw notFound('node not found', field);
}

/** The name of the unique constraint a failed write violated, if that is why it failed. */
export function violatedUniqueConstraint(error: unknown): string | undefined {
  if (!(error instanceof UniqueConstraintViolationException)) return undefined;
  return (error as { constraint?: string }).constraint ?? '';
}

/**
 * Runs `work` and turns a unique violation into a 409 naming its field. The checks inside
 * `work` normally catch duplicates first with a better message; this is the backstop the
 * database guarantees even where no lock was taken.
 */
export async function mapUniqueViolations<T>(
  work: () => Promise<T>,
  fields: Record<string, { field: string; message: string }>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const constraint = violatedUniqueConstraint(error);
    if (constraint !== undefined) {
      const known = fields[constraint];
      throw known ? conflict(known.message, known.field) : conflict('already exists');
    }
    throw error;
  }
}
