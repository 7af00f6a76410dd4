import pg from 'pg';

const TIMESTAMPTZ_OID = 1184;
const TEXT_ARRAY_OID = 1009;
const builtinParser = pg.types.getTypeParser as (oid: number, format: 'text') => (text: string) => unknown;
const parseTimestamptz = builtinParser(TIMESTAMPTZ_OID, 'text') as (text: string) => Date | number;
const parseTextArray = builtinParser(TEXT_ARRAY_OID, 'text') as (text: string) => (string | null)[];

/** A UTC timestamptz as PostgreSQL prints it with DateStyle ISO: `2027-01-01 10:00:00.123456+00`. */
const UTC_TEXT = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?\+00$/;

/**
 * A timestamptz's text as JSON shows the Date that node-postgres would have made of it
 * (`Date#toJSON`), without making one: parsing into a Date and printing it again was about a
 * tenth of the panel's CPU on a client list page (perf, 50 rows, 5 timestamps each). The
 * milliseconds are cut exactly as node-postgres cuts them (trunc(1000 × fraction), in floating
 * point); text in any other shape (another session time zone, BC, infinity) takes the Date path.
 */
export function isoTimestamp(text: string): string | null {
  const utc = UTC_TEXT.exec(text);
  if (!utc) return toDate(parseTimestamptz(text)).toJSON();
  const ms = utc[3] === undefined ? 0 : Math.trunc(1000 * parseFloat(`.${utc[3]}`));
  return `${utc[1]}T${utc[2]}.${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z`;
}

function toDate(value: Date | number): Date {
  return value instanceof Date ? value : new Date(value);
}

/**
 * A one-dimensional text[] as node-postgres parses it. PostgreSQL quotes every element holding a
 * quote, backslash, comma, brace or space, so without a quote or backslash the text is a plain
 * comma list (an unquoted NULL is null): split, several times faster than the general parser,
 * which was ~5% of the panel's CPU on a list page (groups and interfaceIds of every row).
 */
export function parseTextArrayFast(text: string): (string | null)[] {
  if (text === '{}') return [];
  if (text.charCodeAt(0) !== 123 || /["\\{}]/.test(text.slice(1, -1)) || text.charCodeAt(text.length - 1) !== 125)
    return parseTextArray(text);
  const items: (string | null)[] = text.slice(1, -1).split(',');
  for (let i = 0; i < items.length; i++) if (items[i] === 'NULL') items[i] = null;
  return items;
}

/**
 * node-postgres type parsers for list rows: timestamptz kept as PostgreSQL's text (for
 * isoTimestamp), text[] through parseTextArrayFast; everything else as usual.
 */
export const LIST_ROW_TYPES = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (format === 'binary') return pg.types.getTypeParser(oid, format);
    if (oid === TIMESTAMPTZ_OID) return (text: string) => text;
    if (oid === TEXT_ARRAY_OID) return parseTextArrayFast;
    return pg.types.getTypeParser(oid, format);
  },
};
