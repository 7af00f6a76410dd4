import { throttleAddress } from './throttle-address.js';

describe('throttleAddress', () => {
  test('IPv4 is counted as itself, also when mapped into IPv6', () => {
    expect(throttleAddress('192.0.2.7')).toBe('192.0.2.7');
    expect(throttleAddress('::ffff:192.0.2.7')).toBe('192.0.2.7');
  });

  test('IPv6 is counted by its /64, however it is written', () => {
    expect(throttleAddress('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(throttleAddress('2001:0DB8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(throttleAddress('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(throttleAddress('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(throttleAddress('::1')).toBe('0:0:0:0::/64');
  });
});
