import { publicKeyFromPrivate } from '../../libs/wireguard/keys.js';
import { answer, fixtures, signedInPanel, type Schemas } from '../support/fixtures.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';
import { refusal } from '../support/refusal.js';

/**
 * GET and PUT /api/template (docs/template.md): the configuration as one document naming rows by
 * name, round-tripped through the API into an empty panel; imports matched by name, checked whole
 * before any write; secrets only for the owner's session.
 */

type Template = Schemas['TemplateDto'];

const session = signedInPanel();
const f = fixtures(session);
const { typed, createNode, createInterface, createHost } = f;

const WG_PEER = 'xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=';
const HOP_KEY = 'YFU0R0nwaKQoB/Pb5aNf9tPD6ZZ5kDz7vLq+fHqS0m4=';
const ZERO_KEY = `${'A'.repeat(43)}=`;
const HOP_PSK = 'lWvHbO1GbKzT6X3Yj8C4Hq6h4W9m7rZ0cQ2eY1uVnAE=';

/** What the owner's panel is configured with before each export. */
let made: { nodeName: string; socksPassword: string; ifacePrivateKey: string };

async function exported(as?: string, query = ''): Promise<Template> {
  const read = await session().t.call('GET', `template${query}`, { token: as ?? session().token });
  expect(read.status).toBe(200);
  return read.body;
}

async function put(t: TestPanel, token: string, body: unknown, query = '') {
  return t.call('PUT', `template${query}`, { token, body });
}

/** Everything a panel's template covers, counted by table. */
async function counts(t: TestPanel) {
  const tables = ['nodes', 'interfaces', 'hosts', 'outbounds', 'routing_rules', 'routing_basics', 'settings'];
  const result: Record<string, number> = {};
  for (const table of tables)
    result[table] = Number((await t.query<{ n: string }>(`select count(*) as n from ${table}`))[0].n);
  return result;
}

beforeAll(async () => {
  const node = await createNode({ name: 'fra-1', address: 'fra-1.example.com', note: 'Frankfurt' });
  const local = await createInterface({
    name: 'wg0',
    listenPort: 51820,
    subnet: '10.8.0.0/24',
    endpointHost: 'vpn.example.com',
  });
  const remote = await createInterface({
    nodeId: node.id,
    name: 'awg0',
    mode: 'amnezia',
    listenPort: 51821,
    subnet: '10.9.0.0/24',
    endpointHost: 'fra-1.example.com',
    dns: ['9.9.9.9'],
  });
  await createHost({ interfaceId: local.id, name: 'backup', address: 'vpn2.example.com', port: 443, priority: 5 });
  await createHost({ interfaceId: remote.id, name: 'edge', address: '198.51.100.4' });
  const socks = await answer(
    typed().POST('/api/outbounds', {
      body: {
        tag: 'proxy',
        kind: 'socks',
        address: '203.0.113.7:1080',
        username: 'u',
        password: 'socks-secret-password',
      },
    }),
  );
  expect(socks.status).toBe(201);
  const wg = await answer(
    typed().POST('/api/outbounds', {
      body: {
        nodeId: node.id,
        tag: 'upstream',
        kind: 'wireguard',
        address: '203.0.113.8:51820',
        peerPublicKey: WG_PEER,
        privateKey: HOP_KEY,
        presharedKey: HOP_PSK,
        tunnelAddress: '10.66.0.2/32',
      },
    }),
  );
  expect(wg.status).toBe(201);
  expect(
    (
      await answer(
        typed().PUT('/api/routing', {
          params: { query: { nodeId: node.id } },
          body: { defaultOutbound: 'upstream', blockPorts: ['25'], failClosed: true },
        }),
      )
    ).status,
  ).toBe(200);
  for (const body of [
    { name: 'mail direct', ports: ['587'], outboundTag: 'direct' },
    { name: 'wg via proxy', interfaces: [local.id], destIps: ['192.0.2.0/24'], outboundTag: 'proxy' },
    { name: 'team', groups: ['team'], network: 'tcp' as const, outboundTag: 'blocked' },
  ]) {
    expect((await answer(typed().POST('/api/routing/rules', { body }))).status).toBe(201);
  }
  expect((await answer(typed().PATCH('/api/settings', { body: { probeTimeoutMs: 7000, backupKeep: 9 } }))).status).toBe(
    200,
  );
  const [key] = await session().t.query<{ private_key: string }>('select private_key from interfaces where id = $1', [
    local.id,
  ]);
  made = { nodeName: node.name, socksPassword: 'socks-secret-password', ifacePrivateKey: key.private_key };
});

test('GET /api/template names rows by name, leaves the built-in outbounds out, and shows secrets to the owner’s session', async () => {
  const template = await exported();
  expect(Object.keys(template).sort()).toEqual(['hosts', 'interfaces', 'nodes', 'outbounds', 'routing', 'settings']);
  expect(template.nodes).toContainEqual({ name: 'fra-1', address: 'fra-1.example.com', note: 'Frankfurt' });
  expect(template.interfaces).toContainEqual(
    expect.objectContaining({ node: 'fra-1', name: 'awg0', mode: 'amnezia', awg: expect.any(Object) }),
  );
  expect(template.hosts).toContainEqual({
    node: 'fra-1',
    interface: 'awg0',
    name: 'edge',
    address: '198.51.100.4',
    port: 0,
    priority: 0,
    enabled: true,
  });
  expect(template.outbounds!.map((hop) => hop.tag).sort()).toEqual(['proxy', 'upstream']);
  const rules = template.routing!.flatMap((routing) => routing.rules);
  expect(rules).toContainEqual(
    expect.objectContaining({ name: 'wg via proxy', interfaces: ['wg0'], outboundTag: 'proxy' }),
  );
  expect(template.routing!.find((routing) => routing.node === 'fra-1')!.basic).toMatchObject({
    defaultOutbound: 'upstream',
    blockPorts: ['25'],
    failClosed: true,
  });
  expect(template.settings).toMatchObject({ probeTimeoutMs: 7000, backupKeep: 9 });
  const text = JSON.stringify(template);
  for (const secret of [made.socksPassword, made.ifacePrivateKey, HOP_KEY, HOP_PSK]) expect(text).toContain(secret);
});

test('an API token (even the owner’s) and an admin session read the template without secrets', async () => {
  const token = await f.createToken();
  const admin = await f.createUser('admin');
  const viewer = await f.createUser('viewer');
  for (const as of [token.token, admin.token, viewer.token]) {
    const template = await exported(as);
    const text = JSON.stringify(template);
    for (const secret of [made.socksPassword, made.ifacePrivateKey, HOP_KEY, HOP_PSK])
      expect(text).not.toContain(secret);
    expect(template.interfaces!.every((row) => !('privateKey' in row))).toBe(true);
    expect(
      template.outbounds!.every((row) => !('password' in row) && !('privateKey' in row) && !('presharedKey' in row)),
    ).toBe(true);
    expect(template.nodes).toEqual((await exported()).nodes);
  }
  // A viewer may read but not import.
  expect((await put(session().t, viewer.token, { nodes: [] })).status).toBe(403);
});

test('?section= reads one part as {section: ...}; an unknown section is refused', async () => {
  expect(Object.keys(await exported(undefined, '?section=hosts'))).toEqual(['hosts']);
  expect(await exported(undefined, '?section=routing')).toEqual({ routing: (await exported()).routing });
  const refused = await session().t.call('GET', 'template?section=clients', { token: session().token });
  expect({ status: refused.status, body: refused.body }).toEqual({
    status: 400,
    body: refusal('section'),
  });
});

describe('round trip into an empty panel', () => {
  let other: TestPanel;
  let otherToken: string;
  beforeAll(async () => {
    other = await startTestPanel();
    otherToken = await other.login();
  });
  afterAll(async () => {
    await other?.stop();
  });

  test('export, import into a fresh panel, export again: the same template; importing again only updates', async () => {
    const first = await exported();
    // The fresh panel's local node is named as ours (the machine's name), so it is matched, not created.
    const imported = await put(other, otherToken, first);
    expect({ status: imported.status, body: imported.body }).toMatchObject({
      status: 200,
      body: { created: { nodes: 1, interfaces: 2, hosts: 2, outbounds: 2, rules: 3 }, skipped: [] },
    });
    const again = await other.call('GET', 'template', { token: otherToken });
    expect(again.body).toEqual(first);

    const before = await counts(other);
    const second = await put(other, otherToken, first);
    expect(second.status).toBe(200);
    expect(second.body.created).toEqual({
      nodes: 0,
      interfaces: 0,
      hosts: 0,
      outbounds: 0,
      routing: 0,
      rules: 0,
      settings: 0,
    });
    expect(second.body.updated).toMatchObject({ nodes: 2, interfaces: 2, hosts: 2, outbounds: 2, rules: 3 });
    expect(await counts(other)).toEqual(before);
    expect((await other.call('GET', 'template', { token: otherToken })).body).toEqual(first);
  });

  test('one bad row among many: 400 naming its path, and nothing written', async () => {
    const template = structuredClone(await exported());
    template.nodes!.push({ name: 'new-node', address: '192.0.2.99', note: '' });
    template.hosts!.push({
      node: 'fra-1',
      interface: 'awg0',
      name: 'another',
      address: 'x.example.com',
      port: 0,
      priority: 0,
      enabled: true,
    });
    template.interfaces!.push({ ...template.interfaces![0], name: 'wg9', listenPort: 70000, subnet: '10.77.0.0/24' });
    const bad = template.interfaces!.length - 1;
    const before = await counts(other);
    const snapshot = (await other.call('GET', 'template', { token: otherToken })).body;
    const refused = await put(other, otherToken, template);
    expect({ status: refused.status, body: refused.body }).toEqual({
      status: 400,
      body: refusal(`interfaces.${bad}.listenPort`),
    });
    expect(await counts(other)).toEqual(before);
    expect((await other.call('GET', 'template', { token: otherToken })).body).toEqual(snapshot);

    // References are checked too: an unknown node, interface or outbound tag.
    for (const [change, field] of [
      [
        (t: Template) => t.hosts!.push({ ...t.hosts![0], interface: 'nope' }),
        `hosts.${snapshot.hosts.length}.interface`,
      ],
      [
        (t: Template) => t.outbounds!.push({ ...t.outbounds![0], node: 'nowhere', tag: 'x' }),
        `outbounds.${snapshot.outbounds.length}.node`,
      ],
      [(t: Template) => (t.routing![0].rules[0].outboundTag = 'missing'), 'routing.0.rules.0.outboundTag'],
      // What the services normalise is checked before the first write, too.
      [
        (t: Template) => (t.interfaces!.find((row) => row.name === 'awg0')!.mode = 'standard'),
        `interfaces.${snapshot.interfaces.findIndex((row: { name: string }) => row.name === 'awg0')}.mode`,
      ],
      [
        (t: Template) => (t.routing![0].rules[0].destIps = ['192.0.2.0/24', '300.1.1.1']),
        'routing.0.rules.0.destIps.1',
      ],
      [(t: Template) => (t.routing![0].basic.blockPorts = ['70000']), 'routing.0.basic.blockPorts.0'],
      [
        (t: Template) =>
          t.outbounds!.push({ ...t.outbounds!.find((hop) => hop.kind === 'socks')!, tag: 'y', method: 'aes-256-gcm' }),
        `outbounds.${snapshot.outbounds.length}.method`,
      ],
      [
        (t: Template) =>
          t.outbounds!.push({
            ...t.outbounds!.find((hop) => hop.kind === 'socks')!,
            tag: 'z',
            address: '127.0.0.1:1080',
          }),
        `outbounds.${snapshot.outbounds.length}.address`,
      ],
      // The shared forbidden-address check (private ranges, canonical forms) applies to imports.
      [
        (t: Template) =>
          t.outbounds!.push({
            ...t.outbounds!.find((hop) => hop.kind === 'socks')!,
            tag: 'z',
            address: '[::ffff:10.0.0.1]:1080',
          }),
        `outbounds.${snapshot.outbounds.length}.address`,
      ],
      [
        (t: Template) =>
          t.outbounds!.push({
            ...t.outbounds!.find((hop) => hop.kind === 'socks')!,
            tag: 'z',
            address: '[0:0:0:0:0:0:0:1]:1080',
          }),
        `outbounds.${snapshot.outbounds.length}.address`,
      ],
      // Credentials redsocks cannot read.
      [
        (t: Template) =>
          t.outbounds!.push({ ...t.outbounds!.find((hop) => hop.kind === 'socks')!, tag: 'z', password: 'a"b' }),
        `outbounds.${snapshot.outbounds.length}.password`,
      ],
      [
        (t: Template) =>
          t.outbounds!.push({ ...t.outbounds!.find((hop) => hop.kind === 'socks')!, tag: 'z', username: 'a\r\nb' }),
        `outbounds.${snapshot.outbounds.length}.username`,
      ],
      // A socks hop at an IPv6 literal (its redirector dials IPv4); a shadowsocks hop with an empty password.
      [
        (t: Template) =>
          t.outbounds!.push({
            ...t.outbounds!.find((hop) => hop.kind === 'socks')!,
            tag: 'z',
            address: '[2001:db8::5]:1080',
          }),
        `outbounds.${snapshot.outbounds.length}.address`,
      ],
      [
        (t: Template) =>
          t.outbounds!.push({
            node: t.outbounds![0].node,
            tag: 's',
            kind: 'shadowsocks',
            address: '203.0.113.50:8388',
            method: 'aes-256-gcm',
            password: '',
            enabled: true,
            note: '',
            position: 0,
          }),
        `outbounds.${snapshot.outbounds.length}.password`,
      ],
      // A built-in's tag in another case.
      [
        (t: Template) => t.outbounds!.push({ ...t.outbounds!.find((hop) => hop.kind === 'socks')!, tag: 'Direct' }),
        `outbounds.${snapshot.outbounds.length}.tag`,
      ],
      // WireGuard keys that cannot work: all-zero, or the peer's own key pair.
      [
        (t: Template) =>
          t.outbounds!.push({
            ...t.outbounds!.find((hop) => hop.kind === 'wireguard')!,
            tag: 'w',
            privateKey: ZERO_KEY,
          }),
        `outbounds.${snapshot.outbounds.length}.privateKey`,
      ],
      [
        (t: Template) =>
          t.outbounds!.push({
            ...t.outbounds!.find((hop) => hop.kind === 'wireguard')!,
            tag: 'w',
            privateKey: HOP_KEY,
            peerPublicKey: publicKeyFromPrivate(HOP_KEY),
          }),
        `outbounds.${snapshot.outbounds.length}.peerPublicKey`,
      ],
      // A probe URL with an IPv6 zone id (the DTO's validator takes it, the URL parser does not): checked
      // before the first write, not a 500 after the rows before settings were written.
      [(t: Template) => (t.settings!.probeUrl = 'http://[fe80::1%25eth0]/'), 'settings.probeUrl'],
      // A probe URL on a private address, unless private targets are allowed.
      [(t: Template) => (t.settings!.probeUrl = 'http://10.0.0.1/'), 'settings.probeUrl'],
    ] as [(t: Template) => void, string][]) {
      const copy = structuredClone(snapshot) as Template;
      change(copy);
      const answer = await put(other, otherToken, copy);
      expect({ status: answer.status, body: answer.body }).toEqual({
        status: 400,
        body: refusal(field),
      });
    }
    expect(await counts(other)).toEqual(before);
  });

  test('?section= imports one part only; a rule naming a client this panel lacks is skipped with a reason', async () => {
    const routing = (await exported(undefined, '?section=routing')).routing!;
    const local = routing.find((entry) => entry.node !== made.nodeName)!;
    const body = {
      routing: [
        {
          node: local.node,
          rules: [...local.rules, { ...local.rules[0], name: 'for alice', ports: [], clients: ['alice'] }],
        },
      ],
    };
    const before = await counts(other);
    const imported = await put(other, otherToken, body, '?section=routing');
    expect({ status: imported.status, body: imported.body }).toMatchObject({
      status: 200,
      body: {
        created: { rules: 0 },
        updated: { rules: local.rules.length },
        skipped: [{ path: `routing.0.rules.${local.rules.length}`, reason: expect.stringContaining('alice') }],
      },
    });
    expect(await counts(other)).toEqual(before);
    // Another section in the body than the one named is refused.
    const refused = await put(other, otherToken, { ...body, nodes: [] }, '?section=routing');
    expect({ status: refused.status, body: refused.body }).toEqual({
      status: 400,
      body: refusal('nodes'),
    });
  });

  test('a template that turns private targets off may not bring hops on private addresses', async () => {
    expect(
      (await other.call('PATCH', 'settings', { token: otherToken, body: { allowPrivateTargets: true } })).status,
    ).toBe(200);
    try {
      const hop = {
        ...(await exported()).outbounds!.find((row) => row.kind === 'socks')!,
        tag: 'inside',
        address: '10.0.0.5:1080',
      };
      const refused = await put(other, otherToken, { outbounds: [hop], settings: { allowPrivateTargets: false } });
      expect({ status: refused.status, body: refused.body }).toEqual({
        status: 400,
        body: refusal('outbounds.0.address'),
      });
      // Kept on, the same hop is accepted.
      const imported = await put(other, otherToken, { outbounds: [hop] });
      expect(imported.status).toBe(200);
    } finally {
      const listed = (await other.call('GET', 'outbounds', { token: otherToken })).body as {
        id: string;
        tag: string;
      }[];
      for (const row of listed.filter((outbound) => outbound.tag === 'inside'))
        await other.call('DELETE', `outbounds/${row.id}`, { token: otherToken });
      await other.call('PATCH', 'settings', { token: otherToken, body: { allowPrivateTargets: false } });
    }
  });

  test('an admin imports a template as it is, but cannot change owner-only settings through it', async () => {
    const adminPanel = fixtures(() => ({ t: other, token: otherToken }));
    const admin = await adminPanel.createUser('admin');
    const template = (await other.call('GET', 'template', { token: admin.token })).body as Template;
    const imported = await put(other, admin.token, template);
    expect(imported.status).toBe(200);
    const refused = await put(other, admin.token, { settings: { ...template.settings, backupKeep: 3 } });
    expect({ status: refused.status, body: refused.body }).toEqual({
      status: 403,
      body: refusal('settings.backupKeep'),
    });
    // Without secrets the keys stay as they were (the owner's export still equals the first).
    const owner = (await other.call('GET', 'template', { token: otherToken })).body as Template;
    expect(owner.interfaces).toEqual((await exported()).interfaces);
  });
});
