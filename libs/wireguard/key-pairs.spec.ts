import { generateKeyPairs, generatePresharedKeys, KEY_PAIRS_IN_WORKER_FROM } from './key-pairs.js';
import { isWireGuardKey, publicKeyFromPrivate } from './keys.js';

describe('generateKeyPairs', () => {
  test.each([3, KEY_PAIRS_IN_WORKER_FROM + 1])(
    '%i pairs: canonical keys, each public key its private key’s, all distinct',
    async (count) => {
      const pairs = await generateKeyPairs(count);
      expect(pairs).toHaveLength(count);
      for (const pair of pairs) {
        expect(isWireGuardKey(pair.privateKey) && isWireGuardKey(pair.publicKey)).toBe(true);
        expect(publicKeyFromPrivate(pair.privateKey)).toBe(pair.publicKey);
      }
      expect(new Set(pairs.map((pair) => pair.privateKey)).size).toBe(count);
    },
  );

  test('none is an empty list', async () => {
    expect(await generateKeyPairs(0)).toEqual([]);
  });
});

describe('generatePresharedKeys', () => {
  test('distinct 32-byte keys', () => {
    const keys = generatePresharedKeys(100);
    expect(keys.every((key) => isWireGuardKey(key))).toBe(true);
    expect(new Set(keys).size).toBe(100);
  });
});
