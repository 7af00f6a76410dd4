/**
 * Helpers for the raw SQL of the clients module. MikroORM's `em.execute` inlines `?` parameters
 * into the statement text: a string becomes a quoted literal, but an array becomes a bare list
 * (`'a', 'b'`), so arrays are always written as `array[?]::<type>[]` (an empty array then reads
 * `array[]::uuid[]`, which is valid). Timestamps come back as PostgreSQL's text (MikroORM keeps
 * them raw) and int8 as strings; the readers below turn them into Date and number.
 */

/** A timestamptz as PostgreSQL prints it (`2027-01-01 10:00:00.123+00`), or null. */
export function readTimestamp(value: unknown): Date | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value;
  const text = String(value).replace(' ', 'T');
  return new Date(/[+-]\d\d$/.test(text) ? `${text}:00` : text);
}

export function readRequiredTimestamp(value: unknown): Date {
  const date = readTimestamp(value);
  if (!date) throw new Error('expected a timestamp, got null');
  return date;
}

/** int8 (and count(*)) arrive as strings; every value the panel writes stays below 2^53. */
export function readNumber(value: unknown): number {
  return typeof value === 'number' ? value : Number(value);
}

export function readNullableNumber(value: unknown): number | null {
  return value === null || value === undefined ? null : readNumber(value);
}

/** `like` treats % and _ as wildcards and \ as the escape; a search for them means themselves. */
export function likeContains(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** `(?, ?, ?), (?, ?, ?)` for a multi-row insert of `rows` rows of `columns` values. */
export function valuesPlaceholders(rows: number, columns: number): string {
  const row = `(${new Array(columns).fill('?').join(', ')})`;
  return new Array(rows).fill(row).join(', ');
}

/** Rows per multi-row insert: well under PostgreSQL's 65,535 parameters at 16 columns a row. */
export const INSERT_CHUNK = 2000;

/** `items` in consecutive slices of at most `size`. */
export function* chunks<T>(items: readonly T[], size: number): Generator<T[]> {
  for (let start = 0; start < items.length; start += size) yield items.slice(start, start + size);
}
