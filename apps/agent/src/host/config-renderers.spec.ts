import { ConfigValueError } from '#libs/files/config-value.js';
import { generateKeyPair } from '#libs/wireguard/keys.js';
import { desiredInterface } from '../../../../test/support/desired-state.js';
import { renderResolverConfig } from './routing/domain-resolver.js';
import { hopFiles, renderProxyHop, type ProxyHop } from './routing/proxy-hop-config.js';
import { renderWireguardHop, type WireguardHop } from './routing/wireguard-hop.js';
import { renderInterfaceConfig } from './wireguard-config.js';

/**
 * Every config the agent writes refuses a control character in any value (issue 19): the job
 * schema checks them on arrival, and each renderer checks again before writing. Each case is a
 * value that would otherwise have added a line of its own to the file.
 */
const files = hopFiles('/var/lib/warren-agent', 3);
const LINE = '\nPostUp = sh -c id';
const AMNEZIA = { jc: 4, jmin: 40, jmax: 120, s1: 20, s2: 33, h1: 123456, h2: 1234567, h3: 12345678, h4: 123456789 };

describe('the agent interface config (wg/awg syncconf)', () => {
  const desired = desiredInterface('wg0', 8, { mode: 'amnezia', amnezia: AMNEZIA });
  test('renders AmneziaWG parameters as integers', () => {
    expect(renderInterfaceConfig(desired).text).toContain('H4 = 123456789\n');
  });
  test('refuses an AmneziaWG value holding a line', () => {
    expect(() =>
      renderInterfaceConfig({ ...desired, amnezia: { ...AMNEZIA, h4: `341630256${LINE}` as never } }),
    ).toThrow(ConfigValueError);
  });
});

describe('a WireGuard hop config', () => {
  const hop: WireguardHop = {
    kind: 'wireguard',
    interfaceName: 'wh3',
    privateKey: generateKeyPair().privateKey,
    address: '10.66.0.2/32',
    peerPublicKey: generateKeyPair().publicKey,
    presharedKey: null,
    endpointHost: '192.0.2.1',
    endpointPort: 51820,
    allowedIps: ['0.0.0.0/0'],
    mtu: 1420,
    persistentKeepalive: 25,
  };
  test('renders', () => {
    expect(renderWireguardHop(hop).text).toContain('PersistentKeepalive = 25\n');
  });
  test.each<[string, Partial<WireguardHop>]>([
    ['a keepalive that is text', { persistentKeepalive: `25${LINE}` as never }],
    ['an endpoint holding a line', { endpointHost: `192.0.2.1${LINE}` }],
    ['a key holding a line', { peerPublicKey: `${hop.peerPublicKey}${LINE}` }],
  ])('refuses %s', (_why, patch) => {
    expect(() => renderWireguardHop({ ...hop, ...patch })).toThrow();
  });
});

describe('redsocks and ss-redir configs', () => {
  const socks: ProxyHop = { kind: 'socks', host: 'proxy.example', port: 1080, username: 'user', password: 'pass' };
  const shadowsocks: ProxyHop = {
    kind: 'shadowsocks',
    host: 'proxy.example',
    port: 8388,
    method: 'chacha20-ietf-poly1305',
    password: 'pass',
  };
  test('render', () => {
    expect(renderProxyHop(socks, '192.0.2.1', 12003, files).text).toContain('\tlogin = "user";\n');
    expect(JSON.parse(renderProxyHop(shadowsocks, '192.0.2.1', 12003, files).text)).toMatchObject({ password: 'pass' });
  });
  test.each<[string, ProxyHop, number]>([
    ['a redsocks username holding a line', { ...socks, username: `user"${LINE}` }, 12003],
    ['a redsocks password holding a carriage return', { ...socks, password: 'pa\rss' }, 12003],
    ['a redsocks port that is text', { ...socks, port: `1080;${LINE}` as never }, 12003],
    ['an ss-redir password holding a line', { ...shadowsocks, password: `pass${LINE}` }, 12003],
    ['an ss-redir method holding a line', { ...shadowsocks, method: `aes-256-gcm${LINE}` as never }, 12003],
    ['a redirector port that is not an integer', socks, 12003.5],
  ])('refuse %s', (_why, hop, port) => {
    expect(() => renderProxyHop(hop, '192.0.2.1', port, files)).toThrow();
  });
});

describe('the resolver config (dnsmasq)', () => {
  const sets = (domains: string[]) => new Map([['d_0123456789abcdef', domains]]);
  test('renders', () => {
    expect(renderResolverConfig('warren_routing', ['10.8.0.1'], sets(['example.com']))).toContain(
      'nftset=/example.com/4#ip#warren_routing#d_0123456789abcdef\n',
    );
  });
  test.each<[string, string, string[], string]>([
    ['a domain holding a line', 'warren_routing', [`example.com${LINE}`], 'd_0123456789abcdef'],
    ['a domain holding a separator', 'warren_routing', ['example.com/4#ip#other#set'], 'd_0123456789abcdef'],
    ['a table name holding a line', `warren_routing${LINE}`, ['example.com'], 'd_0123456789abcdef'],
    ['a set name holding a line', 'warren_routing', ['example.com'], `d_0${LINE}`],
  ])('refuses %s', (_why, table, domains, set) => {
    expect(() => renderResolverConfig(table, ['10.8.0.1'], new Map([[set, domains]]))).toThrow(ConfigValueError);
  });
});
