import { resolveName } from './host-check.js';

describe('resolveName', () => {
  test('an IP literal is its own answer, in one spelling', async () => {
    expect(await resolveName('203.0.113.5')).toEqual({ addresses: ['203.0.113.5'] });
    expect(await resolveName('2001:DB8:0:0::1')).toEqual({ addresses: ['2001:db8::1'] });
  });

  test('localhost resolves locally (the system resolver reads /etc/hosts)', async () => {
    const found = await resolveName('localhost');
    expect(found.error).toBeUndefined();
    expect(found.addresses.some((address) => address === '127.0.0.1' || address === '::1')).toBe(true);
  });
});
