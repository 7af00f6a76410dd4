import { badRequest } from '../http/api-error.js';
import { isId } from '../http/id.js';

/** Where a walk of the log stands: the last entry shown (its time as PostgreSQL printed it, and id). */
export interface AuditCursor {
  at: string;
  id: string;
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?[+-]\d{2}(:\d{2})?$/;

export const encodeAuditCursor = (cursor: AuditCursor): string =>
  Buffer.from(JSON.stringify([cursor.at, cursor.id])).toString('base64url');

/** The cursor, or a 400 naming `cursor` when the log never handed it out. */
export function decodeAuditCursor(text: string): AuditCursor {
  const forged = () => badRequest('cursor is not a cursor this list handed out', 'cursor');
  if (!/^[A-Za-z0-9_-]{1,512}$/.test(text)) throw forged();
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw forged();
  }
  if (!Array.isArray(value) || value.length !== 2) throw forged();
  const [at, id] = value as unknown[];
  if (typeof at !== 'string' || !TIMESTAMP.test(at) || !isId(id)) throw forged();
  return { at, id };
}
