import { canonicalAddress, forbiddenReason, isLocalhostName } from './forbidden-targets.js';

describe('canonicalAddress', () => {
  test.each([
    ['FD00::0002', 'fd00:0:0:0:0:0:0:2'],
    ['fd00:0:0::2', 'fd00:0:0:0:0:0:0:2'],
    ['[fd00::2]', 'fd00:0:0:0:0:0:0:2'],
    ['0:0:0:0:0:0:0:1', '0:0:0:0:0:0:0:1'],
    ['::ffff:192.0.2.2', '192.0.2.2'],
    ['::ffff:7f00:1', '127.0.0.1'],
    ['::FFFF:0:10.0.0.1', '10.0.0.1'],
    ['::127.0.0.1', '127.0.0.1'],
    ['64:ff9b::a9fe:a9fe', '169.254.169.254'],
    ['fe80::1%eth0', 'fe80:0:0:0:0:0:0:1'],
    ['192.0.2.7', '192.0.2.7'],
  ])('%s is %s', (text, canonical) => expect(canonicalAddress(text)?.text).toBe(canonical));

  test.each(['example.org', '', '1.2.3', '::g', '1::2::3'])('%j is not an address', (text) =>
    expect(canonicalAddress(text)).toBeNull(),
  );
});

describe('forbiddenReason', () => {
  const own = ['192.0.2.2', 'fd00::2', '2001:db8::5'];
  test.each([
    '127.0.0.1',
    '::1',
    '0:0:0:0:0:0:0:1',
    '::ffff:7f00:1',
    '::ffff:127.0.0.1',
    '::127.0.0.1',
    '0.0.0.0',
    '::',
    '0.1.2.3',
    '169.254.169.254',
    'fe80::1',
    '10.0.0.1',
    '::ffff:10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '100.64.0.1',
    '100.127.255.254',
    'fc00::1',
    'fd12:3456::1',
    'FD00::0002',
    '224.0.0.1',
    '239.255.255.250',
    'ff02::1',
    '255.255.255.255',
    '240.0.0.1',
    '::ffff:255.255.255.255',
    // IETF protocol assignments and the benchmarking range, in their IPv6 spellings too.
    '192.0.0.8',
    '192.0.0.170',
    '198.18.0.1',
    '198.19.255.254',
    '::ffff:198.18.0.1',
    // Prefixes that lead on to IPv4, whatever IPv4 address they embed.
    '64:ff9b::a9fe:a9fe',
    '64:ff9b::203.0.113.7',
    '64:FF9B:0:0:0:0:cb00:7107',
    '64:ff9b:1::a00:1',
    '64:ff9b:1:ffff::1',
    '2002:a00:1::1',
    '2002:cb00:7107::1',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    '2001::1',
    // Own addresses in every spelling.
    '192.0.2.2',
    '::ffff:192.0.2.2',
    '2001:DB8:0::0005',
  ])('%s is refused', (address) => expect(forbiddenReason(address, own)).not.toBeNull());

  test.each([
    '203.0.113.7',
    '198.51.100.2',
    '172.32.0.1',
    '100.128.0.1',
    '11.0.0.1',
    '2001:db8::7',
    '::ffff:203.0.113.7',
    '2606:4700::1111',
    // Neighbours of the new ranges.
    '192.0.1.1',
    '198.17.255.255',
    '198.20.0.1',
    '64:ff9b:2::1',
    '2003::1',
    '2001:1::1',
  ])('%s is allowed', (address) => expect(forbiddenReason(address, own)).toBeNull());

  test.each([
    ['64:ff9b::a9fe:a9fe', 'a NAT64 (64:ff9b::/96) address leading to 169.254.169.254 (a link-local address)'],
    ['64:ff9b::203.0.113.7', 'a NAT64 (64:ff9b::/96) address leading to 203.0.113.7'],
    ['64:ff9b:1::a00:1', 'a local-use NAT64 (64:ff9b:1::/48) address'],
    ['2002:a00:1::1', 'a 6to4 (2002::/16) address leading to 10.0.0.1 (a private (RFC 1918) address)'],
    // RFC 4380's example: client 192.0.2.45 (inverted in the last 32 bits).
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'a Teredo (2001::/32) address leading to 192.0.2.45'],
  ])('%s: the IPv4 address it embeds is decoded into the reason', (address, reason) =>
    expect(forbiddenReason(address, own)).toBe(reason),
  );

  test.each([
    ['0.0.0.0', 'an unspecified ("this network") address'],
    ['::', 'an unspecified address'],
    ['192.0.0.170', 'an IETF protocol assignment (192.0.0.0/24) address'],
    ['fd00::1', 'a unique local (private) address'],
  ])('%s: the reason reads as English ("an unspecified", "a unique")', (address, reason) =>
    expect(forbiddenReason(address, own)).toBe(reason),
  );

  test('a name is not an address (callers resolve first)', () =>
    expect(forbiddenReason('example.org', own)).toBe('not an IP address'));
  test('this host: localhost names', () => {
    expect(isLocalhostName('LOCALHOST.')).toBe(true);
    expect(isLocalhostName('a.localhost')).toBe(true);
    expect(isLocalhostName('localhost.example.org')).toBe(false);
  });
});
