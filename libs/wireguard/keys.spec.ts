import { spawnSync } from 'node:child_process';
import { generateKeyPair, generatePresharedKey, isWireGuardKey, publicKeyFromPrivate } from './keys.js';

const hex = (b64: string) => Buffer.from(b64, 'base64').toString('hex');
const b64 = (hexText: string) => Buffer.from(hexText, 'hex').toString('base64');

describe('generateKeyPair', () => {
  test('yields valid keys whose public half derives from the private half', () => {
    const pair = generateKeyPair();
    expect(isWireGuardKey(pair.privateKey)).toBe(true);
    expect(isWireGuardKey(pair.publicKey)).toBe(true);
    expect(publicKeyFromPrivate(pair.privateKey)).toBe(pair.publicKey);
  });

  test('yields a fresh pair each time', () => {
    const a = generateKeyPair();
    const b = generateKeyPair();
    expect(a.privateKey).not.toBe(b.privateKey);
    expect(a.publicKey).not.toBe(b.publicKey);
  });
});

describe('publicKeyFromPrivate', () => {
  // RFC 7748 section 6.1. Neither private key is pre-clamped (Alice's low bits are set, Bob's
  // top bit is set), so matching these proves the function clamps as X25519 requires.
  test.each([
    [
      'Alice',
      '77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a',
      '8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a',
    ],
    [
      'Bob',
      '5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb',
      'de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f',
    ],
  ])('matches the RFC 7748 test vector for %s', (_name, privateHex, publicHex) => {
    expect(hex(publicKeyFromPrivate(b64(privateHex)))).toBe(publicHex);
  });

  test('gives the same public key for a scalar and its clamped form', () => {
    // The RFC 7748 section 5.2 scalar; clamping clears bits 0-2 and 255 and sets bit 254.
    const raw = Buffer.from('a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4', 'hex');
    const clamped = Buffer.from(raw);
    clamped[0]! &= 248;
    clamped[31]! &= 127;
    clamped[31]! |= 64;
    expect(clamped.equals(raw)).toBe(false);
    expect(publicKeyFromPrivate(raw.toString('base64'))).toBe(publicKeyFromPrivate(clamped.toString('base64')));
  });

  test('refuses input that is not a 32-byte base64 key', () => {
    expect(() => publicKeyFromPrivate('not a key')).toThrow(TypeError);
    expect(() => publicKeyFromPrivate(Buffer.alloc(31).toString('base64'))).toThrow(TypeError);
  });
});

describe('isWireGuardKey', () => {
  test('accepts canonical base64 of 32 bytes', () => {
    expect(isWireGuardKey(Buffer.alloc(32, 0xff).toString('base64'))).toBe(true);
    expect(isWireGuardKey(Buffer.alloc(32).toString('base64'))).toBe(true);
  });

  test.each([
    ['too short', Buffer.alloc(31).toString('base64')],
    ['too long', Buffer.alloc(33).toString('base64')],
    ['unpadded', Buffer.alloc(32).toString('base64').slice(0, 43)],
    ['base64url alphabet', Buffer.alloc(32, 0xff).toString('base64url') + '='],
    // Same bytes as the all-zero key but with stray padding bits: wg refuses it too.
    ['non-canonical last character', 'A'.repeat(42) + 'B='],
    ['surrounding whitespace', ` ${Buffer.alloc(32).toString('base64')}`],
  ])('rejects %s', (_why, value) => {
    expect(isWireGuardKey(value)).toBe(false);
  });

  test('rejects non-strings', () => {
    expect(isWireGuardKey(undefined)).toBe(false);
    expect(isWireGuardKey(Buffer.alloc(32))).toBe(false);
  });
});

describe('generatePresharedKey', () => {
  test('yields distinct 32-byte keys', () => {
    const a = generatePresharedKey();
    expect(isWireGuardKey(a)).toBe(true);
    expect(generatePresharedKey()).not.toBe(a);
  });
});

const hasWg = spawnSync('wg', ['--version']).status === 0;

describe('against wireguard-tools', () => {
  // Needs the `wg` binary (Debian package wireguard-tools); skipped when it is not on PATH.
  (hasWg ? test : test.skip)('`wg pubkey` derives the same public key (skipped: wg not on PATH)', () => {
    for (let i = 0; i < 5; i++) {
      const { privateKey, publicKey } = generateKeyPair();
      const out = spawnSync('wg', ['pubkey'], { input: `${privateKey}\n`, encoding: 'utf8' });
      expect(out.status).toBe(0);
      expect(out.stdout.trim()).toBe(publicKey);
      expect(publicKeyFromPrivate(privateKey)).toBe(publicKey);
    }
  });
});
