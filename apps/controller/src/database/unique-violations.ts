import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { conflict } from '../http/api-error.js';

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
