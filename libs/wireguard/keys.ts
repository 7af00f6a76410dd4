import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes } from 'node:crypto';

export interface WireGuardKeyPair {
  /** Standard base64 of the raw 32-byte X25519 private scalar, as `wg genkey` prints it. */
  privateKey: string;
  /** Standard base64 of the raw 32-byte X25519 public key, as `wg pubkey` prints it. */
  publicKey: string;
}

// 32 bytes always encode to 43 base64 characters plus one '='. The 43rd character carries only
// 4 significant bits, so it must be one whose low 2 bits are zero: `wg` rejects any other
// spelling, and accepting it here would let two different strings name the same key.
// Checked with lookup tables rather than a regex: server configs validate tens of thousands
// of keys per render and this is several times faster.
const BASE64_CHAR = charTable('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/');
const LAST_KEY_CHAR = charTable('AEIMQUYcgkosw048');
const KEY_LENGTH = 44;
const PAD = 0x3d; // '='

// Node cannot import a bare 32-byte X25519 scalar (its JWK import insists on the public `x`
// we are trying to compute), so the scalar is wrapped in the fixed PKCS#8 header
// (RFC 8410: OID 1.3.101.110) and imported as DER.
const PKCS8_X25519_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');

/** True when `s` is the canonical base64 spelling of a 32-byte WireGuard key. */
export function isWireGuardKey(s: unknown): s is string {
  if (typeof s !== 'string' || s.length !== KEY_LENGTH || s.charCodeAt(KEY_LENGTH - 1) !== PAD) return false;
  for (let i = 0; i < KEY_LENGTH - 2; i++) {
    if (BASE64_CHAR[s.charCodeAt(i)] !== 1) return false;
  }
  return LAST_KEY_CHAR[s.charCodeAt(KEY_LENGTH - 2)] === 1;
}

export function generateKeyPair(): WireGuardKeyPair {
  const { privateKey } = generateKeyPairSync('x25519');
  const jwk = privateKey.export({ format: 'jwk' });
  if (jwk.d === undefined || jwk.x === undefined) {
    throw new Error('X25519 key export returned no key material');
  }
  return { privateKey: base64UrlToBase64(jwk.d), publicKey: base64UrlToBase64(jwk.x) };
}

/**
 * Derives the public key the way `wg pubkey` does. The scalar is used as given: X25519 clamps
 * it internally, so an unclamped private key (e.g. from an RFC test vector) yields the same
 * public key as its clamped form, matching WireGuard's behaviour.
 */
export function publicKeyFromPrivate(privateKeyB64: string): string {
  if (!isWireGuardKey(privateKeyB64)) {
    throw new TypeError('private key must be the base64 encoding of 32 bytes');
  }
  const der = Buffer.concat([PKCS8_X25519_PREFIX, Buffer.from(privateKeyB64, 'base64')]);
  const privateKey = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
  if (jwk.x === undefined) throw new Error('X25519 key export returned no public key');
  return base64UrlToBase64(jwk.x);
}

/** A preshared key is plain randomness (`wg genpsk`), not a curve point. */
export function generatePresharedKey(): string {
  return randomBytes(32).toString('base64');
}

function base64UrlToBase64(s: string): string {
  // Round-tripping through bytes restores the padding that JWK's base64url drops.
  return Buffer.from(s, 'base64url').toString('base64');
}

function charTable(chars: string): Uint8Array {
  // Indexing past the end yields undefined, so non-ASCII characters fail the `=== 1` checks.
  const table = new Uint8Array(128);
  for (let i = 0; i < chars.length; i++) table[chars.charCodeAt(i)] = 1;
  return table;
}
