import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Subscription and one-time link tokens: 32 characters of base64url (192 bits), so a guess is
 * hopeless even unthrottled. Only a token's SHA-256 is stored and looked up: a database read
 * gives no working link, and the lookup compares hashes the caller cannot steer.
 */
export const TOKEN_LENGTH = 32;
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{32}$/;

export function isTokenShaped(value: string): boolean {
  return TOKEN_PATTERN.test(value);
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Two hex hashes equal, compared in constant time. */
export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}

/** A random token (one-time links, which are shown once and never again). */
export function randomToken(): string {
  return randomBytes((TOKEN_LENGTH * 3) / 4).toString('base64url');
}

/** A fresh nonce for a client's link; a rotation replaces it, so the old token stops matching. */
export function newNonce(): string {
  return randomBytes(16).toString('hex');
}

/** A fresh panel subscription key (kept in the settings table, so every replica and a restore share it). */
export function newSubscriptionKey(): string {
  return randomBytes(32).toString('base64');
}

/**
 * A client's link token: an HMAC of its id and nonce under the panel's key. The link can be shown
 * again (GET /api/clients/{id}/subscription) without being stored, and changes with the nonce.
 */
export function subscriptionToken(key: string, clientId: string, nonce: string): string {
  return createHmac('sha256', Buffer.from(key, 'base64'))
    .update(`${clientId}.${nonce}`, 'utf8')
    .digest()
    .subarray(0, (TOKEN_LENGTH * 3) / 4)
    .toString('base64url');
}
