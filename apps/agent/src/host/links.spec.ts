import { parseLinks } from './links.js';
import { parseInterfaceAddress } from './addressing.js';

test('ip -d -j address show: index, kind, MTU, up flag and addresses per link', () => {
  const json = JSON.stringify([
    { ifindex: 1, ifname: 'lo', flags: ['LOOPBACK'], mtu: 65536, addr_info: [] },
    {
      ifindex: 3,
      ifname: 'wg0',
      flags: ['POINTOPOINT', 'NOARP', 'UP', 'LOWER_UP'],
      mtu: 1420,
      linkinfo: { info_kind: 'tun' },
      addr_info: [
        { family: 'inet', local: '10.8.0.1', prefixlen: 24, scope: 'global' },
        { family: 'inet6', local: 'fe80::1', prefixlen: 64, scope: 'link' },
      ],
    },
  ]);
  const links = parseLinks(json);
  expect(links.get('lo')).toEqual({ ifindex: 1, name: 'lo', kind: null, mtu: 65536, up: false, addresses: [] });
  expect(links.get('wg0')).toEqual({
    ifindex: 3,
    name: 'wg0',
    kind: 'tun',
    mtu: 1420,
    up: true,
    addresses: [
      { family: 'inet', local: '10.8.0.1', prefixlen: 24, scope: 'global' },
      { family: 'inet6', local: 'fe80::1', prefixlen: 64, scope: 'link' },
    ],
  });
});

test('interface addresses keep their host bits; nonsense is refused', () => {
  expect(parseInterfaceAddress('10.8.0.1/24')).toEqual({ local: '10.8.0.1', prefixlen: 24 });
  expect(parseInterfaceAddress('10.8.0.1')).toBeNull();
  expect(parseInterfaceAddress('10.8.0.1/33')).toBeNull();
  expect(parseInterfaceAddress('999.8.0.1/24')).toBeNull();
});
