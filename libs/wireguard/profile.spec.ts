import { generateKeyPair, generatePresharedKey } from './keys.js';
import {
  type ClientProfileInput,
  profileFilename,
  renderClientProfile,
  renderServerConfig,
  renderServerPeers,
} from './profile.js';
import { intToIp } from './ipv4.js';
import { ConfigValueError } from './config-text.js';

// Fixed keys (RFC 7748 section 6.1 values) so the expected text can be written out in full.
const DEVICE_PRIVATE = 'dwdtCnMYpX08FsFyUbJmRd9ML4frwJkqsXf7pR25LCo=';
const SERVER_PUBLIC = '3p7bfXt9wbTTW2HC7OQ1Nz+DQ8hbeGdNrfx+FG+IK08=';
const PSK = 'Sl2dW6TOLeFyjjv0gDUPJeB+IclH0Z4zdvCbPB4WF0I=';
const DEVICE_PUBLIC = 'hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmo=';

const base: ClientProfileInput = {
  privateKey: DEVICE_PRIVATE,
  address: '10.8.0.2',
  dns: '10.8.0.1',
  mtu: 1420,
  serverPublicKey: SERVER_PUBLIC,
  presharedKey: PSK,
  endpointHost: 'vpn.example.com',
  endpointPort: 51820,
};

const AMNEZIA = { jc: 4, jmin: 40, jmax: 120, s1: 20, s2: 33, h1: 123456, h2: 1234567, h3: 12345678, h4: 123456789 };
/** What issue 19 restored into an interface's `awg`. */
const INJECTED = '341630256\nPostUp = curl http://127.0.0.1:9/x | sh' as unknown as number;

describe('renderClientProfile', () => {
  test('renders a WireGuard profile', () => {
    expect(renderClientProfile(base)).toBe(
      `[Interface]
PrivateKey = dwdtCnMYpX08FsFyUbJmRd9ML4frwJkqsXf7pR25LCo=
Address = 10.8.0.2/32
DNS = 10.8.0.1
MTU = 1420

[Peer]
PublicKey = 3p7bfXt9wbTTW2HC7OQ1Nz+DQ8hbeGdNrfx+FG+IK08=
PresharedKey = Sl2dW6TOLeFyjjv0gDUPJeB+IclH0Z4zdvCbPB4WF0I=
AllowedIPs = 0.0.0.0/0, ::/0
Endpoint = vpn.example.com:51820
PersistentKeepalive = 25
`,
    );
  });

  test('renders an AmneziaWG profile', () => {
    const text = renderClientProfile({
      ...base,
      dns: ['1.1.1.1', '1.0.0.1'],
      mtu: 1280,
      endpointHost: '203.0.113.7',
      endpointPort: 443,
      amnezia: { jc: 4, jmin: 40, jmax: 120, s1: 20, s2: 33, h1: 123456, h2: 1234567, h3: 12345678, h4: 123456789 },
    });
    expect(text).toBe(
      `[Interface]
PrivateKey = dwdtCnMYpX08FsFyUbJmRd9ML4frwJkqsXf7pR25LCo=
Address = 10.8.0.2/32
DNS = 1.1.1.1, 1.0.0.1
MTU = 1280
Jc = 4
Jmin = 40
Jmax = 120
S1 = 20
S2 = 33
H1 = 123456
H2 = 1234567
H3 = 12345678
H4 = 123456789

[Peer]
PublicKey = 3p7bfXt9wbTTW2HC7OQ1Nz+DQ8hbeGdNrfx+FG+IK08=
PresharedKey = Sl2dW6TOLeFyjjv0gDUPJeB+IclH0Z4zdvCbPB4WF0I=
AllowedIPs = 0.0.0.0/0, ::/0
Endpoint = 203.0.113.7:443
PersistentKeepalive = 25
`,
    );
  });

  test('brackets IPv6 endpoint hosts once', () => {
    expect(renderClientProfile({ ...base, endpointHost: '2001:db8::1' })).toContain('Endpoint = [2001:db8::1]:51820\n');
    expect(renderClientProfile({ ...base, endpointHost: '[2001:db8::1]' })).toContain(
      'Endpoint = [2001:db8::1]:51820\n',
    );
  });

  test('omits PresharedKey when there is none', () => {
    expect(renderClientProfile({ ...base, presharedKey: null })).not.toContain('PresharedKey');
  });

  test.each<[string, Partial<ClientProfileInput>]>([
    ['a newline in the endpoint host', { endpointHost: 'x\nPostUp = rm -rf /' }],
    ['a comment in a DNS entry', { dns: '1.1.1.1 # x' }],
    ['an empty endpoint host', { endpointHost: '' }],
    ['port 0', { endpointPort: 0 }],
    ['an invalid key', { serverPublicKey: 'abc' }],
    ['an address with a prefix', { address: '10.8.0.2/32' }],
    ['an MTU out of range', { mtu: 100 }],
    ['a line in an AmneziaWG header (a restored archive)', { amnezia: { ...AMNEZIA, h4: INJECTED } }],
    ['AmneziaWG junk that is text, not a number', { amnezia: { ...AMNEZIA, jc: '4' as never } }],
    ['a line in a DNS entry', { dns: ['1.1.1.1', '1.0.0.1\nPostUp = sh'] }],
    ['a Unicode line separator in the endpoint host', { endpointHost: 'vpn.example.com\u2028PostUp = sh' }],
  ])('refuses %s', (_why, patch) => {
    expect(() => renderClientProfile({ ...base, ...patch })).toThrow(ConfigValueError);
  });
});

describe('renderServerConfig with AmneziaWG parameters', () => {
  test('refuses a value that is not an integer, whatever it holds', () => {
    for (const field of Object.keys(AMNEZIA))
      expect(() =>
        renderServerConfig({
          privateKey: DEVICE_PRIVATE,
          listenPort: 443,
          peers: [],
          amnezia: { ...AMNEZIA, [field]: INJECTED },
        }),
      ).toThrow(ConfigValueError);
  });
});

describe('renderServerConfig', () => {
  test('renders setconf format', () => {
    const text = renderServerConfig({
      privateKey: DEVICE_PRIVATE,
      listenPort: 51820,
      peers: [
        { publicKey: SERVER_PUBLIC, presharedKey: PSK, ip: '10.8.0.2' },
        { publicKey: DEVICE_PUBLIC, ip: '10.8.0.3' },
      ],
    });
    expect(text).toBe(
      `[Interface]
PrivateKey = dwdtCnMYpX08FsFyUbJmRd9ML4frwJkqsXf7pR25LCo=
ListenPort = 51820

[Peer]
PublicKey = 3p7bfXt9wbTTW2HC7OQ1Nz+DQ8hbeGdNrfx+FG+IK08=
PresharedKey = Sl2dW6TOLeFyjjv0gDUPJeB+IclH0Z4zdvCbPB4WF0I=
AllowedIPs = 10.8.0.2/32

[Peer]
PublicKey = hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmo=
AllowedIPs = 10.8.0.3/32
`,
    );
  });

  test('renders an interface without peers, with AmneziaWG settings', () => {
    expect(
      renderServerConfig({
        privateKey: DEVICE_PRIVATE,
        listenPort: 443,
        peers: [],
        amnezia: { jc: 3, jmin: 50, jmax: 100, s1: 15, s2: 16, h1: 100001, h2: 1000001, h3: 10000001, h4: 100000001 },
      }),
    ).toBe(
      `[Interface]
PrivateKey = dwdtCnMYpX08FsFyUbJmRd9ML4frwJkqsXf7pR25LCo=
ListenPort = 443
Jc = 3
Jmin = 50
Jmax = 100
S1 = 15
S2 = 16
H1 = 100001
H2 = 1000001
H3 = 10000001
H4 = 100000001
`,
    );
  });

  test('refuses duplicate keys and addresses', () => {
    expect(() =>
      renderServerPeers([
        { publicKey: SERVER_PUBLIC, ip: '10.8.0.2' },
        { publicKey: SERVER_PUBLIC, ip: '10.8.0.3' },
      ]),
    ).toThrow(/appears twice/);
    expect(() =>
      renderServerPeers([
        { publicKey: SERVER_PUBLIC, ip: '10.8.0.2' },
        { publicKey: DEVICE_PUBLIC, ip: '10.8.0.2' },
      ]),
    ).toThrow(/appears twice/);
  });

  test('refuses a bad listen port or peer address', () => {
    expect(() => renderServerConfig({ privateKey: DEVICE_PRIVATE, listenPort: 70000, peers: [] })).toThrow(TypeError);
    expect(() => renderServerPeers([{ publicKey: SERVER_PUBLIC, ip: '10.8.0.2\n' }])).toThrow(TypeError);
  });

  // How fast this is: bench/wireguard-libs.js (docs/benchmarks.md), not a test.
  test('renders 10,000 peers, each with its key, preshared key and address', () => {
    const psk = generatePresharedKey();
    const peers = Array.from({ length: 10_000 }, (_, i) => ({
      publicKey: generateKeyPair().publicKey,
      presharedKey: psk,
      ip: intToIp(0x0a000002 + i),
    }));
    const text = renderServerConfig({ privateKey: generateKeyPair().privateKey, listenPort: 51820, peers });
    const sections = text.split('[Peer]').slice(1);
    expect(sections).toHaveLength(10_000);
    expect(sections[9_999]).toContain(peers[9_999].publicKey);
    expect(sections[9_999]).toContain(`${intToIp(0x0a000002 + 9_999)}/32`);
  });
});

describe('profileFilename', () => {
  // What wg-quick accepts as an interface name, which it takes from the file name.
  const WG_QUICK_STEM = /^[a-zA-Z0-9_=+.-]{1,15}$/;

  test('is short, safe and mostly readable', () => {
    const name = profileFilename('Alice', 'phone', 'nl1', 'wg0');
    expect(name).toMatch(/^phone-nl1-[0-9a-z]{5}\.conf$/);
  });

  test.each([
    ['Alice Smith', 'Zoë’s iPhone 15 Pro Max', 'Amsterdam (backup)', 'wg-main'],
    ['', '', '', ''],
    ['..', '../../etc/passwd', '/', '\n'],
    ['客户', '电话', '主机', 'wg0'],
    ['a'.repeat(200), 'b'.repeat(200), 'c'.repeat(200), 'd'.repeat(200)],
  ])('stays within wg-quick limits for %j', (...names) => {
    const name = profileFilename(names[0], names[1], names[2], names[3]);
    expect(name.length).toBeLessThanOrEqual(64);
    expect(name).toMatch(/^[A-Za-z0-9_.-]+\.conf$/);
    expect(name.startsWith('.')).toBe(false);
    expect(name.slice(0, -'.conf'.length)).toMatch(WG_QUICK_STEM);
  });

  test('keeps accented letters', () => {
    expect(profileFilename('c', 'Zoë', 'h', 'i')).toMatch(/^Zoe-h-i-c-/);
  });

  test('is stable and tells apart names that sanitise or truncate alike', () => {
    expect(profileFilename('Alice', 'phone', 'nl1', 'wg0')).toBe(profileFilename('Alice', 'phone', 'nl1', 'wg0'));
    const names = new Set([
      profileFilename('Alice', 'phone', 'nl1', 'wg0'),
      profileFilename('Alice', 'phone', 'nl1', 'wg1'),
      profileFilename('Alice', 'phone', 'nl2', 'wg0'),
      profileFilename('Bob', 'phone', 'nl1', 'wg0'),
      profileFilename('Alice', 'my phone', 'h', 'i'),
      profileFilename('Alice', 'my_phone', 'h', 'i'),
    ]);
    expect(names.size).toBe(6);
  });
});
