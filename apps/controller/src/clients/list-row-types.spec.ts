import pg from 'pg';
import { isoTimestamp, parseTextArrayFast } from './list-row-types.js';

// The fast paths must answer exactly what node-postgres's own parsers (plus Date#toJSON) answer.
const parseTimestamptz = pg.types.getTypeParser(1184, 'text') as (text: string) => Date | number;
const parseTextArray = pg.types.getTypeParser(1009 as never, 'text') as (text: string) => (string | null)[];
const viaDate = (text: string) => {
  const value = parseTimestamptz(text);
  return (value instanceof Date ? value : new Date(value)).toJSON();
};

describe('isoTimestamp', () => {
  it.each([
    '2027-01-01 10:00:00+00',
    '2027-01-01 10:00:00.1+00',
    '2027-01-01 10:00:00.123+00',
    '2027-01-01 10:00:00.999999+00',
    '2027-01-01 10:00:00.000001+00',
    '1999-12-31 23:59:59.5+00',
    '2027-01-01 10:00:00.123456+02',
    '2027-01-01 10:00:00-05:30',
    '0050-06-01 00:00:00+00',
  ])('%s reads as the Date node-postgres makes', (text) => {
    expect(isoTimestamp(text)).toBe(viaDate(text));
  });

  it('agrees with node-postgres on random UTC timestamps with 0..6 fractional digits', () => {
    let seed = 42;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 20_000; i++) {
      const date = new Date(Math.floor(next() * 4e12));
      const digits = Math.floor(next() * 7);
      const fraction = digits ? `.${String(Math.floor(next() * 10 ** digits)).padStart(digits, '0')}` : '';
      const text = `${date.toISOString().slice(0, 10)} ${date.toISOString().slice(11, 19)}${fraction}+00`;
      expect(isoTimestamp(text)).toBe(viaDate(text));
    }
  });
});

describe('parseTextArrayFast', () => {
  it.each([
    '{}',
    '{a}',
    '{a,b,c}',
    '{NULL}',
    '{a,NULL,b}',
    '{"NULL"}',
    '{"a,b",c}',
    '{"a\\"b"}',
    '{"a b"}',
    '{""}',
    '{{a,b},{c,d}}',
    '{"{x}"}',
  ])('%s parses as node-postgres parses it', (text) => {
    expect(parseTextArrayFast(text)).toEqual(parseTextArray(text));
  });
});
