import { API_TOKEN_PREFIX, generateApiToken, hashSecret, isWellFormedApiToken, tokenHint } from './api-token.js';

describe('API token format', () => {
  test('generated tokens carry the prefix and a valid checksum', () => {
    for (let i = 0; i < 200; i++) {
      const token = generateApiToken();
      expect(token.startsWith(API_TOKEN_PREFIX)).toBe(true);
      expect(token).toHaveLength(50);
      expect(isWellFormedApiToken(token)).toBe(true);
    }
  });

  test('tokens are unique', () => {
    const seen = new Set(Array.from({ length: 1000 }, generateApiToken));
    expect(seen.size).toBe(1000);
  });

  test('a single changed character breaks the checksum', () => {
    const token = generateApiToken();
    const position = 10;
    const swapped = token[position] === 'a' ? 'b' : 'a';
    expect(isWellFormedApiToken(token.slice(0, position) + swapped + token.slice(position + 1))).toBe(false);
  });

  test('rejects other shapes', () => {
    expect(isWellFormedApiToken('')).toBe(false);
    expect(isWellFormedApiToken('wrn_short')).toBe(false);
    expect(isWellFormedApiToken(generateApiToken().replace('wrn_', 'xyz_'))).toBe(false);
    expect(isWellFormedApiToken(generateApiToken() + 'x')).toBe(false);
  });

  test('hash is SHA-256 hex and the hint reveals only the start', () => {
    const token = generateApiToken();
    expect(hashSecret(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(tokenHint(token)).toBe(token.slice(0, 10));
  });
});
