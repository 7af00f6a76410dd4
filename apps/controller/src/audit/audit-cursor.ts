import { cursorJson, encodeCursorJson, forgedCursor, PRINTED_TIMESTAMP } from '../http/cursor-text.js';
import { isId } from '../http/id.js';

/** Where a walk of the log stands: the last entry shown (its time as PostgreSQL printed it, and id). */
export interface AuditCursor {
  at: string;
  id: string;
}

export const encodeAuditCursor = (cursor: AuditCursor): string => encodeCursorJson([cursor.at, cursor.id]);

/** The cursor, or a 400 naming `cursor` when the log never handed it out. */
export function decodeAuditCursor(text: string): AuditCursor {
  const value = cursorJson(text, 512);
  if (!Array.isArray(value) || value.length !== 2) throw forgedCursor();
  const [at, id] = value as unknown[];
  if (typeof at !== 'string' || !PRINTED_TIMESTAMP.test(at) || !isId(id)) throw forgedCursor();
  return { at, id };
}
