import { generateKeyPair, publicKeyFromPrivate } from '#libs/wireguard/keys.js';
import { answer, fixtures, signedInPanel, type Schemas } from '../support/fixtures.js';
import { fakeAgentWorker } from '../support/node-queue.js';
import { refusal } from '../support/refusal.js';

const session = signedInPanel();
const f = fixtures(session, { unchanged: async () => [await f.count('outbounds'), await f.revisions()] });
const { typed, call, createUser, createToken, expectRefused } = f;

type OutboundBody = Schemas['CreateOutboundDto'];

async function parse(text: string, tag?: string) {
  const response = await answer(typed().POST('/api/outbounds/parse', { body: tag ? { text, tag } : { text } }));
  expect({ status: response.status, body: response.body }).toMatchObject({ status: 200 });
  return response.body;
}

async function createOutbound(body: OutboundBody) {
  const created = await answer(typed().POST('/api/outbounds', { body }));
  expect({ status: created.status, body: created.body }).toMatchObject({ status: 201 });
  return created.body;
}

const b64 = (text: string) => Buffer.from(text).toString('base64');
const UPSTREAM = generateKeyPair();
const OWN = generateKeyPair();
const WG_FILE = `# exported by a provider
[Interface]
PrivateKey = ${OWN.privateKey}
Address = 10.66.0.2/32, fd00:66::2/128
DNS = 1.1.1.1
MTU = 1380

[Peer]
PublicKey = ${UPSTREAM.publicKey}
AllowedIPs = 0.0.0.0/0, ::/0
Endpoint = 203.0.113.20:51820
PersistentKeepalive = 15
`;

describe('POST /api/outbounds/parse: share links and files to a create body', () => {
  test.each([
    [
      'SIP002 (base64url userinfo, as shadowsocks-android shares)',
      `ss://${Buffer.from('chacha20-ietf-poly1305:s3cret pass').toString('base64url')}@203.0.113.9:8388#Tokyo%20one`,
      {
        tag: 'Tokyo-one',
        kind: 'shadowsocks',
        address: '203.0.113.9:8388',
        method: 'chacha20-ietf-poly1305',
        password: 's3cret pass',
      },
    ],
    [
      'SIP002 with percent-encoded userinfo (AEAD ciphers may go unencoded)',
      'ss://aes-256-gcm:p%40ss%3Aword@ss.example.net:443',
      {
        tag: 'ss-ss-example-net',
        kind: 'shadowsocks',
        address: 'ss.example.net:443',
        method: 'aes-256-gcm',
        password: 'p@ss:word',
      },
    ],
    [
      'legacy ss:// (base64 of method:password@host:port)',
      `ss://${b64('aes-128-gcm:test@203.0.113.10:8888')}#example-server`,
      {
        tag: 'example-server',
        kind: 'shadowsocks',
        address: '203.0.113.10:8888',
        method: 'aes-128-gcm',
        password: 'test',
      },
    ],
    [
      'socks5:// with credentials',
      'socks5://alice:wonder%20land@203.0.113.7:1080#upstream',
      { tag: 'upstream', kind: 'socks', address: '203.0.113.7:1080', username: 'alice', password: 'wonder land' },
    ],
    [
      'socks:// as v2rayN writes it (base64 of user:password)',
      `socks://${b64('bob:hunter2')}@203.0.113.8:1081#v2rayN`,
      { tag: 'v2rayN', kind: 'socks', address: '203.0.113.8:1081', username: 'bob', password: 'hunter2' },
    ],
    [
      'socks5:// without credentials',
      'socks5://203.0.113.7:1080',
      { tag: 'socks-203-0-113-7', kind: 'socks', address: '203.0.113.7:1080' },
    ],
    [
      'http:// proxy with credentials',
      'http://carol:p%40ss@proxy.example.com:3128/',
      {
        tag: 'http-proxy-example-com',
        kind: 'http',
        address: 'proxy.example.com:3128',
        username: 'carol',
        password: 'p@ss',
      },
    ],
  ])('%s', async (_what, text, expected) => {
    const parsed = await parse(text);
    expect(parsed).toEqual({ outbound: expected, ignored: [] });
  });

  test('a WireGuard .conf: the client side becomes the hop; DNS and the IPv6 address are named as ignored', async () => {
    const parsed = await parse(WG_FILE, 'provider-wg');
    expect(parsed).toEqual({
      outbound: {
        tag: 'provider-wg',
        kind: 'wireguard',
        address: '203.0.113.20:51820',
        privateKey: OWN.privateKey,
        peerPublicKey: UPSTREAM.publicKey,
        allowedIps: ['0.0.0.0/0', '::/0'],
        tunnelAddress: '10.66.0.2/32',
        mtu: 1380,
        keepalive: 15,
      },
      ignored: ['Address fd00:66::2/128', 'DNS = 1.1.1.1'],
    });
  });

  test('what parse answers, create takes as it is; the hop config reads back to the same body (owner session)', async () => {
    for (const text of [
      'socks5://alice:secret@203.0.113.31:1080#rt-socks',
      'http://carol:pw@203.0.113.32:3128#rt-http',
      `ss://${Buffer.from('aes-256-gcm:pw').toString('base64url')}@203.0.113.33:8388#rt-ss`,
      WG_FILE.replace('203.0.113.20', '203.0.113.34').replace('# exported', '# rt'),
    ]) {
      const { outbound } = await parse(text, text.startsWith('[') || text.startsWith('#') ? 'rt-wg' : undefined);
      const created = await createOutbound(outbound);
      const config = await answer(typed().GET('/api/outbounds/{id}/config', { params: { path: { id: created.id } } }));
      expect(config.status).toBe(200);
      expect(config.body.secretsHidden).toBe(false);
      const again = await parse(config.body.text!, created.tag);
      expect(again.outbound).toEqual({ ...outbound, ...(outbound.kind === 'wireguard' ? {} : {}) });
    }
  });

  test.each([
    ['an https:// proxy (TLS to the proxy)', 'https://u:p@203.0.113.7:443', /https/],
    ['another scheme', 'vmess://eyJhZGQiOiJ4In0=', /vmess/],
    ['plain words', 'hello there', /neither/],
    ['ss:// that is no base64 and has no @', 'ss://%%%', /SIP002/],
    ['ss:// with a cipher no node runs', `ss://${b64('rc4-md5:pw')}@203.0.113.9:8388`, /cipher rc4-md5/],
    [
      'ss:// with a plugin',
      `ss://${b64('aes-256-gcm:pw')}@203.0.113.9:8388/?plugin=obfs-local%3Bobfs%3Dhttp`,
      /plugin/,
    ],
    ['ss:// without a port', `ss://${b64('aes-256-gcm:pw')}@203.0.113.9`, /port/],
    ['socks5:// without a port', 'socks5://203.0.113.7', /port/],
    ['socks5:// with a path', 'socks5://203.0.113.7:1080/x', /path/],
    ['a socks password redsocks cannot read', 'socks5://u:a%22b@203.0.113.7:1080', /\(password\).*quote/],
    ['a socks IPv6 literal', 'socks5://[2001:db8::1]:1080', /\(address\).*IPv4/],
    ['a private address', 'socks5://192.168.1.10:1080', /\(address\).*private/],
    ['a built-in tag from the name', 'socks5://203.0.113.7:1080#Direct', /\(tag\).*built-in/],
    [
      'two [Peer] sections',
      `${WG_FILE}\n[Peer]\nPublicKey = ${UPSTREAM.publicKey}\nEndpoint = 203.0.113.21:51820\n`,
      /2 \[Peer\]/,
    ],
    ['no [Peer] PublicKey', WG_FILE.replace(/PublicKey = .*\n/, ''), /PublicKey/],
    ['a bad key', WG_FILE.replace(OWN.privateKey, 'not-a-key'), /\(privateKey\)/],
    ['AmneziaWG keys', WG_FILE.replace('MTU = 1380', 'Jc = 4'), /AmneziaWG/],
    ['an unknown key', WG_FILE.replace('MTU = 1380', 'Bogus = 1'), /bogus/],
    ['a line that is no key', WG_FILE.replace('MTU = 1380', 'MTU 1380'), /line 6/],
    ['IPv6 only', WG_FILE.replace('10.66.0.2/32, ', ''), /IPv4/],
    ['its own peer', WG_FILE.replace(UPSTREAM.publicKey, OWN.publicKey), /\(peerPublicKey\)/],
  ])('400 on text: %s', async (_what, text, message) => {
    await expectRefused('POST', 'outbounds/parse', { text }, 400, 'text', message);
  });

  test('fuzz-style bodies: each a 400 naming its field, never a 500, nothing created', async () => {
    await expectRefused('POST', 'outbounds/parse', {}, 400, 'text');
    await expectRefused('POST', 'outbounds/parse', { text: '' }, 400, 'text');
    await expectRefused('POST', 'outbounds/parse', { text: 42 }, 400, 'text');
    await expectRefused('POST', 'outbounds/parse', { text: null }, 400, 'text');
    await expectRefused('POST', 'outbounds/parse', { text: 'x'.repeat(65_537) }, 400, 'text');
    await expectRefused('POST', 'outbounds/parse', { text: 'socks5://203.0.113.7:1080', tag: 'bad tag!' }, 400, 'tag');
    await expectRefused('POST', 'outbounds/parse', { text: 'socks5://203.0.113.7:1080', nodeId: 'x' }, 400, 'nodeId');
    for (const text of [
      'ss://',
      'socks5://',
      'http://:@:1',
      'ss://@:0',
      '[Interface]',
      '[Peer]\n[Interface]',
      'socks5://u:p@[::1',
      `ss://${'A'.repeat(5000)}`,
    ]) {
      const response = await call('POST', 'outbounds/parse', { text });
      expect({ text, status: response.status, body: response.body }).toEqual({
        text,
        status: 400,
        body: refusal('text'),
      });
    }
  });

  test('owner and admin; a viewer and a reseller are refused', async () => {
    const admin = await createUser('admin');
    const ok = await session().t.call('POST', 'outbounds/parse', {
      token: admin.token,
      body: { text: 'socks5://203.0.113.7:1080' },
    });
    expect(ok.status).toBe(200);
    for (const role of ['viewer', 'reseller'] as const) {
      const user = await createUser(role);
      const refused = await session().t.call('POST', 'outbounds/parse', {
        token: user.token,
        body: { text: 'socks5://203.0.113.7:1080' },
      });
      expect(refused.status).toBe(403);
    }
  });
});

describe('GET /api/outbounds/{id}/config', () => {
  test("secrets only for the owner's session: an owner token and an admin get the link without them", async () => {
    const hop = await createOutbound({
      tag: 'cfg-socks',
      kind: 'socks',
      address: '203.0.113.41:1080',
      username: 'u',
      password: 'top-secret',
    });
    const ss = await createOutbound({
      tag: 'cfg-ss',
      kind: 'shadowsocks',
      address: '203.0.113.42:8388',
      method: 'aes-256-gcm',
      password: 'top-secret',
    });
    const wg = await createOutbound({
      tag: 'cfg-wg',
      kind: 'wireguard',
      address: '203.0.113.43:51820',
      peerPublicKey: UPSTREAM.publicKey,
      tunnelAddress: '10.67.0.2/32',
      presharedKey: generateKeyPair().publicKey,
    });
    const owner = await answer(typed().GET('/api/outbounds/{id}/config', { params: { path: { id: hop.id } } }));
    expect(owner.body).toEqual({
      id: hop.id,
      tag: 'cfg-socks',
      kind: 'socks',
      format: 'link',
      text: 'socks5://u:top-secret@203.0.113.41:1080#cfg-socks',
      secretsHidden: false,
    });

    const ownerToken = (await createToken()).token;
    const admin = await createUser('admin');
    for (const token of [ownerToken, admin.token]) {
      const socks = await session().t.call('GET', `outbounds/${hop.id}/config`, { token });
      expect(socks.body).toMatchObject({ text: 'socks5://u@203.0.113.41:1080#cfg-socks', secretsHidden: true });
      const hiddenSs = await session().t.call('GET', `outbounds/${ss.id}/config`, { token });
      expect(hiddenSs.body).toMatchObject({ format: 'link', text: null, secretsHidden: true });
      const hiddenWg = await session().t.call('GET', `outbounds/${wg.id}/config`, { token });
      expect(hiddenWg.body.text).toContain(`PublicKey = ${UPSTREAM.publicKey}`);
      expect(hiddenWg.body.text).not.toMatch(/PrivateKey|PresharedKey/);
      expect(JSON.stringify([socks.body, hiddenSs.body, hiddenWg.body])).not.toContain('top-secret');
    }
    const viewer = await createUser('viewer');
    expect((await session().t.call('GET', `outbounds/${hop.id}/config`, { token: viewer.token })).status).toBe(403);
    await expectRefused('GET', 'outbounds/00000000-0000-4000-8000-000000000000/config', undefined, 404, 'id');
    await expectRefused('GET', 'outbounds/not-an-id/config', undefined, 404, 'id');
  });

  test('the built-ins have no config (text and format null)', async () => {
    const listed = await answer(typed().GET('/api/outbounds', { params: { query: {} } }));
    const direct = listed.body.find((outbound) => outbound.tag === 'direct')!;
    const config = await answer(typed().GET('/api/outbounds/{id}/config', { params: { path: { id: direct.id } } }));
    expect(config.body).toMatchObject({ kind: 'direct', format: null, text: null });
  });
});

describe('POST /api/wgkey', () => {
  test('a fresh key pair each call whose public key is the private key’s; stored nowhere; not for a viewer', async () => {
    const first = await answer(typed().POST('/api/wgkey', {}));
    const second = await answer(typed().POST('/api/wgkey', {}));
    expect(first.status).toBe(200);
    expect(publicKeyFromPrivate(first.body.privateKey)).toBe(first.body.publicKey);
    expect(second.body.privateKey).not.toBe(first.body.privateKey);
    const viewer = await createUser('viewer');
    expect((await session().t.call('POST', 'wgkey', { token: viewer.token })).status).toBe(403);
    await expectRefused('POST', 'wgkey', { extra: 1 }, 400, 'extra');
  });
});

describe('POST /api/outbounds/check: every hop of a node', () => {
  test("each enabled hop is probed on its node's queue, at most 8 at a time; answers in list order", async () => {
    // The local node: its agent is not meant to run here (unmanaged), so probes go to its queue,
    // where this test's worker answers them; a node never linked would answer agent-not-linked.
    const [node] = await session().t.query<{ id: string }>('select id from nodes where is_local');
    const hops: Schemas['OutboundDto'][] = [];
    for (let i = 0; i < 12; i++) {
      hops.push(
        await createOutbound({ nodeId: node.id, tag: `all-${i}`, kind: 'socks', address: `203.0.113.${100 + i}:1080` }),
      );
    }
    await answer(
      typed().PATCH('/api/outbounds/{id}', { params: { path: { id: hops[11].id } }, body: { enabled: false } }),
    );
    let inFlight = 0;
    let most = 0;
    let started = 0;
    let open!: () => void;
    // The first 8 probes are held until all 8 run at once: the bound is what is measured, not the agent's speed.
    const opened = new Promise<void>((resolve) => (open = resolve));
    const worker = fakeAgentWorker(session().t, node.id, async (job) => {
      inFlight++;
      most = Math.max(most, inFlight);
      if (++started === 8) open();
      await opened;
      inFlight--;
      const first = job.data.outboundId === hops[0].id;
      return {
        ok: true,
        latencyMs: 7,
        stages: { dns: null, connect: 3, handshake: 2, firstByte: 2 },
        errorClass: null,
        error: null,
        egressIp: first ? '198.51.100.1' : '198.51.100.2',
      };
    });
    worker.concurrency = 50;
    try {
      const pending = call('POST', `outbounds/check?nodeId=${node.id}&mode=tcp`);
      const response = await pending;
      expect(response.status).toBe(200);
      const listed = await answer(typed().GET('/api/outbounds', { params: { query: {} } }));
      const expected = listed.body.filter((hop) => !hop.builtin && hop.enabled).map((hop) => hop.tag);
      expect(expected).toEqual(expect.arrayContaining(hops.slice(0, 11).map((hop) => hop.tag)));
      expect(expected).not.toContain(hops[11].tag);
      expect(response.body.map((entry: { tag: string }) => entry.tag)).toEqual(expected);
      expect(response.body.every((entry: { result: { ok: boolean } }) => entry.result.ok)).toBe(true);
      expect(response.body.find((entry: { tag: string }) => entry.tag === 'all-0').result.egressIp).toBe(
        '198.51.100.1',
      );
      expect(most).toBe(8);
    } finally {
      await worker.close();
    }
  });

  test('bad input: unknown node 404, bad mode 400; a viewer 403', async () => {
    await expectRefused(
      'POST',
      'outbounds/check?nodeId=00000000-0000-4000-8000-000000000000',
      undefined,
      404,
      'nodeId',
    );
    await expectRefused('POST', 'outbounds/check?mode=udp', undefined, 400, 'mode');
    await expectRefused('POST', 'outbounds/check?extra=1', undefined, 400, 'extra');
    const viewer = await createUser('viewer');
    expect((await session().t.call('POST', 'outbounds/check', { token: viewer.token })).status).toBe(403);
  });
});
