import { isHostAddress, isIpAddress } from './validators.js';

describe('isHostAddress', () => {
  test.each([
    '198.51.100.7',
    '2001:db8::1',
    '::1',
    'vpn.example.com',
    'localhost',
    'a-b.c-d.example',
    'xn--80ak6aa92e.com',
    `${'a'.repeat(63)}.example.com`,
  ])('accepts %s', (value) => {
    expect(isHostAddress(value)).toBe(true);
  });

  test.each([
    '',
    ' vpn.example.com',
    'vpn.example.com.',
    'vpn..example.com',
    '-vpn.example.com',
    'vpn-.example.com',
    'vpn_1.example.com',
    'vpn.example.com:51820',
    '[2001:db8::1]',
    'fe80::1%eth0',
    '10.0.0.256',
    '010.0.0.1',
    '1.2.3',
    `${'a'.repeat(64)}.example.com`,
    `${'a.'.repeat(127)}com`,
    'http://vpn.example.com',
  ])('refuses %j', (value) => {
    expect(isHostAddress(value)).toBe(false);
  });

  test('refuses non-strings', () => {
    expect(isHostAddress(123)).toBe(false);
    expect(isHostAddress(null)).toBe(false);
  });
});

describe('isIpAddress', () => {
  test('addresses only, no hostnames or CIDRs', () => {
    expect(isIpAddress('1.1.1.1')).toBe(true);
    expect(isIpAddress('2606:4700:4700::1111')).toBe(true);
    expect(isIpAddress('one.one.one.one')).toBe(false);
    expect(isIpAddress('10.8.0.0/24')).toBe(false);
  });
});
