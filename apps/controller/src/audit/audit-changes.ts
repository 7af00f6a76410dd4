import { isDeepStrictEqual } from 'node:util';
import { AUDIT_SECRET_MARK, type AuditChange } from '#libs/contracts/audit.js';

/**
 * Field names whose values are secrets: passwords, keys, token secrets, one-time codes and their
 * hashes. Their changes are recorded as `secret: true` with neither value; inside a nested value
 * (a device's keys in a list) the value is replaced by AUDIT_SECRET_MARK.
 */
const SECRET_FIELD =
  /(password|passphrase|secret|private_?key|preshared_?key|^token$|token_?hash|^code$|recovery_?codes?|otp|_hash$|hash$)/i;

export const isSecretField = (field: string): boolean => SECRET_FIELD.test(field);

/** A value longer than this (as JSON) is recorded as a note of its size, not in full. */
const MAX_VALUE_CHARS = 2000;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The value with every secret field inside it masked, and a huge one replaced by its size. */
export function recordable(value: unknown): Json {
  const masked = mask(value, 0);
  const text = JSON.stringify(masked) ?? 'null';
  return text.length > MAX_VALUE_CHARS ? `[${text.length} characters, not recorded]` : masked;
}

function mask(value: unknown, depth: number): Json {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object') return typeof value === 'function' ? null : (value as Json);
  if (depth > 8) return '[nested too deep]';
  if (Array.isArray(value)) return value.map((item) => mask(item, depth + 1));
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([key, item]) => [
      key,
      isSecretField(key) && item !== null && item !== undefined ? AUDIT_SECRET_MARK : mask(item, depth + 1),
    ]),
  );
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);

/**
 * The fields a request asked to change, old → new. `body` is what was sent; `before` the target
 * as it was (null when unknown: a create, a target without a reader); `after` what the route
 * answered (null before it has), whose value for a field wins over the body's (it is what was
 * stored: trimmed, normalised). A field whose old and new values are equal is left out.
 */
export function requestedChanges(body: unknown, before: unknown, after: unknown): AuditChange[] {
  if (!isPlainObject(body)) return [];
  const old = isPlainObject(before) ? before : null;
  const stored = isPlainObject(after) ? after : null;
  const changes: AuditChange[] = [];
  for (const field of Object.keys(body).sort()) {
    if (isSecretField(field)) {
      changes.push({ field, secret: true });
      continue;
    }
    const next = recordable(stored && field in stored ? stored[field] : body[field]);
    if (old && field in old) {
      const previous = recordable(old[field]);
      if (isDeepStrictEqual(previous, next)) continue;
      changes.push({ field, old: previous, new: next });
    } else changes.push({ field, new: next });
  }
  return changes;
}

/** What a delete removed: the target's own top-level values (not its nested lists), as old values. */
export function removedFields(before: unknown): AuditChange[] {
  if (!isPlainObject(before)) return [];
  return Object.keys(before)
    .sort()
    .filter((field) => {
      const value = before[field];
      return value === null || value instanceof Date || typeof value !== 'object';
    })
    .map((field) => (isSecretField(field) ? { field, secret: true } : { field, old: recordable(before[field]) }));
}

/** The target's name for the log, when it has one. */
export function nameOf(view: unknown): string | null {
  if (!isPlainObject(view)) return null;
  // A hop (outbound) is named by its tag ("direct").
  const name = view.name ?? view.username ?? view.tag;
  return typeof name === 'string' ? name.slice(0, 256) : null;
}
