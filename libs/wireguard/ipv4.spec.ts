import { isIP } from 'node:net';
import {
  addressCount,
  broadcastAddress,
  cidrContains,
  cidrsOverlap,
  formatCidr,
  intToIp,
  ipToInt,
  Ipv4FormatError,
  isIpv4,
  parseCidr,
} from './ipv4.js';

describe('ipToInt / intToIp', () => {
  test.each([
    ['0.0.0.0', 0],
    ['10.0.0.1', 0x0a000001],
    ['192.168.1.254', 0xc0a801fe],
    ['255.255.255.255', 0xffffffff],
  ])('%s <-> %d', (ip, n) => {
    expect(ipToInt(ip)).toBe(n);
    expect(intToIp(n)).toBe(ip);
  });

  test.each([
    '256.0.0.1',
    '1.2.3',
    '1.2.3.4.5',
    '01.2.3.4',
    '1.2.3.00',
    '1..2.3',
    '.1.2.3',
    '1.2.3.',
    '1.2.3.4 ',
    '',
    '1.2.3.-4',
    '1.2.3.\u0664',
    '::1',
    '1.2.3.4/32',
  ])('rejects %j', (ip) => {
    expect(isIpv4(ip)).toBe(false);
    expect(() => ipToInt(ip)).toThrow(Ipv4FormatError);
  });

  test('agrees with node:net on random dotted strings', () => {
    const alphabet = '0123456789.';
    for (let i = 0; i < 20_000; i++) {
      let s = '';
      const length = 7 + Math.floor(Math.random() * 9);
      for (let j = 0; j < length; j++) s += alphabet[Math.floor(Math.random() * alphabet.length)];
      expect([s, isIpv4(s)]).toEqual([s, isIP(s) === 4]);
    }
  });

  test('intToIp refuses values that are not unsigned 32-bit integers', () => {
    expect(() => intToIp(-1)).toThrow(RangeError);
    expect(() => intToIp(2 ** 32)).toThrow(RangeError);
    expect(() => intToIp(1.5)).toThrow(RangeError);
  });
});

describe('parseCidr', () => {
  test('parses network and prefix', () => {
    expect(parseCidr('10.8.0.0/24')).toEqual({ network: 0x0a080000, prefix: 24 });
    expect(parseCidr('0.0.0.0/0')).toEqual({ network: 0, prefix: 0 });
    expect(parseCidr('255.255.255.255/32')).toEqual({ network: 0xffffffff, prefix: 32 });
    expect(formatCidr(parseCidr('172.16.0.0/12'))).toBe('172.16.0.0/12');
  });

  test('refuses host bits and names the intended network', () => {
    expect(() => parseCidr('10.8.0.5/24')).toThrow(/host bits set; the network is 10\.8\.0\.0\/24/);
    expect(() => parseCidr('128.0.0.0/0')).toThrow(/0\.0\.0\.0\/0/);
  });

  test.each(['10.0.0.0', '10.0.0.0/', '10.0.0.0/33', '10.0.0.0/08', '10.0.0.0/-1', '10.0.0/8', '10.0.0.0/8/8', 'x/8'])(
    'rejects %j',
    (s) => {
      expect(() => parseCidr(s)).toThrow(Ipv4FormatError);
    },
  );
});

describe('sizes and membership', () => {
  test('addressCount and broadcast', () => {
    const c = parseCidr('10.8.0.0/22');
    expect(addressCount(c)).toBe(1024);
    expect(intToIp(broadcastAddress(c))).toBe('10.8.3.255');
    expect(addressCount(parseCidr('0.0.0.0/0'))).toBe(2 ** 32);
    expect(broadcastAddress(parseCidr('255.255.255.0/24'))).toBe(0xffffffff);
  });

  test('cidrContains', () => {
    const c = parseCidr('10.8.0.0/24');
    expect(cidrContains(c, ipToInt('10.8.0.0'))).toBe(true);
    expect(cidrContains(c, ipToInt('10.8.0.255'))).toBe(true);
    expect(cidrContains(c, ipToInt('10.8.1.0'))).toBe(false);
    expect(cidrContains(c, ipToInt('10.7.255.255'))).toBe(false);
  });
});

describe('cidrsOverlap', () => {
  test.each([
    ['10.0.0.0/24', '10.0.0.0/24', true],
    ['10.0.0.0/16', '10.0.5.0/24', true],
    ['10.0.5.0/24', '10.0.0.0/16', true],
    ['10.0.0.0/24', '10.0.1.0/24', false],
    ['10.0.0.0/25', '10.0.0.128/25', false],
    ['10.0.0.252/30', '10.0.1.0/30', false],
    ['0.0.0.0/0', '192.168.0.0/16', true],
    ['128.0.0.0/1', '127.255.255.255/32', false],
    ['255.255.255.255/32', '255.255.255.0/24', true],
  ])('%s vs %s -> %s', (a, b, expected) => {
    expect(cidrsOverlap(a, b)).toBe(expected);
    expect(cidrsOverlap(parseCidr(b), parseCidr(a))).toBe(expected);
  });
});
