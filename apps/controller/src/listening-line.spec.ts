import type { NetworkInterfaceInfo } from 'node:os';
import { listeningLine } from './listening-line.js';

const iface = (address: string, family: 'IPv4' | 'IPv6', internal = false) =>
  ({ address, family, internal, netmask: '', mac: '', cidr: null }) as unknown as NetworkInterfaceInfo;
const interfaces = {
  lo: [iface('127.0.0.1', 'IPv4', true), iface('::1', 'IPv6', true)],
  eth0: [iface('203.0.113.7', 'IPv4'), iface('2001:db8::7', 'IPv6'), iface('fe80::1', 'IPv6')],
  wg0: [iface('10.8.0.1', 'IPv4')],
};
const base = { localUrl: 'https://127.0.0.1:8443/', port: 8443, basePath: '', interfaces };

test('bound to one address, the line names that URL alone', () => {
  expect(listeningLine({ ...base, bindHost: '127.0.0.1' })).toBe('warren: panel listening on https://127.0.0.1:8443/');
});

test('bound to all IPv4 addresses, the line names this host\u2019s non-loopback IPv4 addresses too', () => {
  expect(listeningLine({ ...base, bindHost: '0.0.0.0' })).toBe(
    'warren: panel listening on https://0.0.0.0:8443/ (from this machine: https://127.0.0.1:8443/, ' +
      'on the network: https://203.0.113.7:8443/ https://10.8.0.1:8443/)',
  );
});

test('bound to ::, IPv6 addresses are bracketed and link-local ones left out', () => {
  expect(
    listeningLine({ ...base, bindHost: '::', basePath: '/panel', localUrl: 'https://127.0.0.1:8443/panel/' }),
  ).toBe(
    'warren: panel listening on https://[::]:8443/panel/ (from this machine: https://127.0.0.1:8443/panel/, ' +
      'on the network: https://203.0.113.7:8443/panel/ https://[2001:db8::7]:8443/panel/ https://10.8.0.1:8443/panel/)',
  );
});

test('WARREN_PUBLIC_URL, when set, is the network address given', () => {
  expect(listeningLine({ ...base, bindHost: '0.0.0.0', publicUrl: 'https://panel.example' })).toBe(
    'warren: panel listening on https://0.0.0.0:8443/ (from this machine: https://127.0.0.1:8443/, on the network: https://panel.example/)',
  );
});
