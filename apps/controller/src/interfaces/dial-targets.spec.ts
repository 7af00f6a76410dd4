import { dialTargets, type DialHost } from './dial-targets.js';

const iface = { endpointHost: 'vpn.example.com', listenPort: 51820 };
const host = (over: Partial<DialHost>): DialHost => ({
  id: 'h',
  name: 'h',
  address: 'h.example.com',
  port: 0,
  priority: 0,
  enabled: true,
  ...over,
});

describe('dialTargets', () => {
  test('without hosts: the interface endpoint, named default', () => {
    expect(dialTargets(iface, [])).toEqual([
      { hostId: null, hostName: 'default', address: 'vpn.example.com', port: 51820, endpoint: 'vpn.example.com:51820' },
    ]);
  });

  test('only disabled hosts count as none', () => {
    expect(dialTargets(iface, [host({ id: 'a', enabled: false })])).toEqual([
      expect.objectContaining({ hostId: null, hostName: 'default' }),
    ]);
  });

  test('one per enabled host, priority desc then name, port 0 meaning the listen port', () => {
    const targets = dialTargets(iface, [
      host({ id: '1', name: 'b-low', priority: 1, address: '198.51.100.1', port: 443 }),
      host({ id: '2', name: 'z-high', priority: 10, address: 'cdn.example.net' }),
      host({ id: '3', name: 'a-low', priority: 1, address: '198.51.100.2' }),
      host({ id: '4', name: 'off', priority: 99, enabled: false }),
    ]);
    expect(targets).toEqual([
      { hostId: '2', hostName: 'z-high', address: 'cdn.example.net', port: 51820, endpoint: 'cdn.example.net:51820' },
      { hostId: '3', hostName: 'a-low', address: '198.51.100.2', port: 51820, endpoint: '198.51.100.2:51820' },
      { hostId: '1', hostName: 'b-low', address: '198.51.100.1', port: 443, endpoint: '198.51.100.1:443' },
    ]);
  });

  test('IPv6 endpoints are bracketed', () => {
    expect(dialTargets({ endpointHost: '2001:db8::1', listenPort: 51820 }, [])[0].endpoint).toBe('[2001:db8::1]:51820');
    expect(dialTargets(iface, [host({ address: '2001:db8::2', port: 8443 })])[0].endpoint).toBe('[2001:db8::2]:8443');
  });

  test('the order is total and does not depend on input order', () => {
    const hosts = [host({ id: 'b', name: 'same' }), host({ id: 'a', name: 'same' })];
    expect(dialTargets(iface, hosts).map((t) => t.hostId)).toEqual(['a', 'b']);
    expect(dialTargets(iface, [...hosts].reverse()).map((t) => t.hostId)).toEqual(['a', 'b']);
  });

  test('does not reorder the caller’s array', () => {
    const hosts = [host({ id: 'x', name: 'x', priority: 0 }), host({ id: 'y', name: 'y', priority: 5 })];
    dialTargets(iface, hosts);
    expect(hosts.map((h) => h.id)).toEqual(['x', 'y']);
  });

  test('a client carries hosts of groups tied to its groups, and untied ones, in group order', () => {
    const hosts = [
      host({ id: 'open', name: 'open', priority: 9 }),
      host({ id: 'gold', name: 'gold', groupPosition: 1, clientGroups: ['gold'] }),
      host({ id: 'trial', name: 'trial', groupPosition: 0, clientGroups: ['trial'] }),
      host({ id: 'shared', name: 'shared', groupPosition: 2, clientGroups: [] }),
    ];
    const ids = (groups?: string[]) => dialTargets(iface, hosts, groups).map((t) => t.hostId);
    expect(ids(['gold'])).toEqual(['gold', 'shared', 'open']);
    expect(ids(['gold', 'trial'])).toEqual(['trial', 'gold', 'shared', 'open']);
    expect(ids([])).toEqual(['shared', 'open']);
    // No client in view (the template, the agent): every enabled host.
    expect(ids()).toEqual(['trial', 'gold', 'shared', 'open']);
  });

  test('position decides between hosts of equal priority, before the name', () => {
    const hosts = [host({ id: 'a', name: 'a', position: 1 }), host({ id: 'b', name: 'b', position: 0 })];
    expect(dialTargets(iface, hosts).map((t) => t.hostId)).toEqual(['b', 'a']);
  });
});
