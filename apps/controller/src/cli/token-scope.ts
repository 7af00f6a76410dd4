import { UsageError } from './usage.js';

const DAY_MS = 86_400_000;

/**
 * `--expires`: a number of days from now (`30` or `30d`), a date (`2027-01-31`: the token works
 * through that day, UTC, and stops at the next midnight), or a date and time with a time zone as
 * the API takes it. Returns the ISO 8601 instant, or undefined when the option was not given.
 */
export function expiresOption(value: string | undefined, now = new Date()): string | undefined {
  if (value === undefined) return undefined;
  const days = /^(\d{1,5})d?$/.exec(value);
  if (days) {
    const count = Number(days[1]);
    if (count < 1) throw new UsageError('--expires needs at least 1 day');
    return new Date(now.getTime() + count * DAY_MS).toISOString();
  }
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (date) {
    const start = new Date(`${value}T00:00:00Z`);
    if (Number.isNaN(start.getTime()) || start.toISOString().slice(0, 10) !== value)
      throw new UsageError(`--expires: ${value} is not a date`);
    return new Date(start.getTime() + DAY_MS).toISOString();
  }
  // Anything else goes to the API's own rule (a date-time with a time zone), which names --expires.
  return value;
}

/** `--groups clients,devices`: route groups, comma-separated; checked against the list by the API's DTO. */
export function groupsOption(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value
    .split(',')
    .map((group) => group.trim())
    .filter(Boolean);
}
