import { badRequest } from '../http/api-error.js';
import { cursorJson, encodeCursorJson, forgedCursor, PRINTED_TIMESTAMP as TIMESTAMP } from '../http/cursor-text.js';
import { isId } from '../http/id.js';
import type { ClientSort } from './dto/client.dto.js';

/**
 * Where a list walk stands: the sort, and the sort key and id of the last row shown. Opaque to
 * callers (base64url of JSON); the key is kept exactly as PostgreSQL printed it (timestamps with
 * their microseconds, int8 as digits), so the next page starts right after that row.
 */
export interface ClientCursor {
  sort: ClientSort;
  key: string | null;
  id: string;
}

/** What each sort's key looks like as PostgreSQL prints it; anything else is a forged cursor. */
const INTEGER = /^-?\d{1,19}$/;
const KEY_SHAPE: Record<ClientSort, { pattern: RegExp | null; nullable: boolean }> = {
  newest: { pattern: TIMESTAMP, nullable: false },
  oldest: { pattern: TIMESTAMP, nullable: false },
  name: { pattern: null, nullable: false },
  traffic: { pattern: INTEGER, nullable: false },
  remaining: { pattern: INTEGER, nullable: true },
  expiry: { pattern: TIMESTAMP, nullable: true },
};
const MAX_KEY_LENGTH = 256;

export function encodeCursor(cursor: ClientCursor): string {
  return encodeCursorJson([cursor.sort, cursor.key, cursor.id]);
}

export { forgedCursor };

/** The cursor, or a 400 naming `cursor` when it is malformed or belongs to another sort. */
export function decodeCursor(text: string, sort: ClientSort): ClientCursor {
  const malformed = forgedCursor;
  const value = cursorJson(text, 1024);
  if (!Array.isArray(value) || value.length !== 3) throw malformed();
  const [cursorSort, key, id] = value as unknown[];
  if (typeof cursorSort !== 'string' || !Object.hasOwn(KEY_SHAPE, cursorSort) || !isId(id)) throw malformed();
  if (cursorSort !== sort)
    throw badRequest(`cursor belongs to sort=${cursorSort}; keep the sort of the walk`, 'cursor');
  const shape = KEY_SHAPE[sort];
  if (
    key === null
      ? !shape.nullable
      : typeof key !== 'string' ||
        key.length > MAX_KEY_LENGTH ||
        (shape.pattern ? !shape.pattern.test(key) : key.includes('\u0000'))
  ) {
    throw malformed();
  }
  return { sort, key: key as string | null, id };
}
