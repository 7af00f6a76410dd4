import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * API token format: `wrn_` + 40 base62 characters of secret + 6 base62 characters of CRC32 over
 * prefix and secret. The fixed prefix and the checksum let secret scanners recognise a leaked
 * Warren token offline, and let the panel reject a mistyped token without a database look-up.
 */
export const API_TOKEN_PREFIX = 'wrn_';
const SECRET_LENGTH = 40;
const CHECKSUM_LENGTH = 6;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function toBase62(value: number, width: number): string {
  let out = '';
  for (let rest = value; out.length < width; rest = Math.floor(rest / 62)) out = BASE62[rest % 62] + out;
  return out;
}

function checksum(body: string): string {
  return toBase62(crc32(body) >>> 0, CHECKSUM_LENGTH);
}

function randomBase62(length: number): string {
  // Rejection sampling keeps every character uniform (256 is not a multiple of 62).
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

/**
 * A new secret in the token format with the given prefix (about 238 bits of secret). The panel's
 * other secrets (node credentials `wnc_`, enrolment secrets `wne_`) share the format, so scanners
 * and the offline checksum work for them too, while the prefix keeps each kind in its own lane.
 */
export function generatePrefixedSecret(prefix: string): string {
  const body = prefix + randomBase62(SECRET_LENGTH);
  return body + checksum(body);
}

const patterns = new Map<string, RegExp>();

/** True when the text has the format with this prefix and its checksum matches. */
export function isWellFormedPrefixedSecret(token: string, prefix: string): boolean {
  let pattern = patterns.get(prefix);
  if (!pattern)
    patterns.set(prefix, (pattern = new RegExp(`^${prefix}[0-9A-Za-z]{${SECRET_LENGTH + CHECKSUM_LENGTH}}$`)));
  if (!pattern.test(token)) return false;
  const body = token.slice(0, -CHECKSUM_LENGTH);
  return checksum(body) === token.slice(-CHECKSUM_LENGTH);
}

/** A new API token. */
export function generateApiToken(): string {
  return generatePrefixedSecret(API_TOKEN_PREFIX);
}

/** True when the text has the API token shape and its checksum matches. */
export function isWellFormedApiToken(token: string): boolean {
  return isWellFormedPrefixedSecret(token, API_TOKEN_PREFIX);
}

/** What the database keeps instead of the token. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** The harmless start of a token, shown in lists so people can tell tokens apart. */
export function tokenHint(token: string): string {
  return token.slice(0, API_TOKEN_PREFIX.length + 6);
}
