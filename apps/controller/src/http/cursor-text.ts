import { badRequest } from './api-error.js';

/** A timestamp as PostgreSQL prints it (`2026-11-26 14:03:07.123456+00`): what list cursors keep. */
export const PRINTED_TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?[+-]\d{2}(:\d{2})?$/;

/** The refusal of a cursor the list never handed out. */
export const forgedCursor = () => badRequest('cursor is not a cursor this list handed out', 'cursor');

/** What a list's cursor carries (base64url of JSON), or the forged-cursor 400 when it is not that. */
export function cursorJson(text: string, maxLength: number): unknown {
  if (!new RegExp(`^[A-Za-z0-9_-]{1,${maxLength}}$`).test(text)) throw forgedCursor();
  try {
    return JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw forgedCursor();
  }
}

export const encodeCursorJson = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
