import { randomUUID } from 'node:crypto';
import { answer, fixtures, type HostView, type InterfaceView } from '../support/fixtures.js';
import { startLocalDnsResponder } from '../support/dns-responder.js';
import { refusal } from '../support/refusal.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';

/**
 * Hosts at W-UI's breadth (docs/interfaces.md, "Host groups"): the check, groups, tags, bulk
 * actions and order, and which hosts a client's configs carry. Names resolve on a DNS server of
 * the test's own on loopback (WARREN_DNS_SERVERS): nothing is asked of the machine's resolver.
 */
let t: TestPanel;
let token: string;
let dns: Awaited<ReturnType<typeof startLocalDnsResponder>>;
let nodeId: string;
let iface: InterfaceView;

beforeAll(async () => {
  dns = await startLocalDnsResponder({
    'edge.test': '203.0.113.7',
    'node.test': '203.0.113.7',
    'elsewhere.test': '198.51.100.9',
    'inside.test': '10.20.30.40',
    'node-inside.test': '10.20.30.40',
  });
  t = await startTestPanel({ WARREN_DNS_SERVERS: dns.server, WARREN_TRUSTED_PROXIES: '127.0.0.1' });
  token = await t.login();
  nodeId = (await createNode({ name: 'groups-node', address: 'node.test' })).id;
  iface = await createInterface({ nodeId, endpointHost: '203.0.113.8' });
});
afterAll(async () => {
  await t?.stop();
  await dns?.stop();
});

const api = fixtures(() => ({ t, token }));
const { call, typed, createNode, createInterface, createHost, createClient, count } = api;
const revision = () => api.revision(nodeId);
const host = (name: string, over: Partial<Parameters<typeof createHost>[0]> = {}) =>
  createHost({ interfaceId: iface.id, name, address: `${name}.example.net`, ...over });
const hostsById = async () =>
  new Map(((await call('GET', 'hosts')).body as HostView[]).map((entry) => [entry.id, entry]));

describe('POST /api/hosts/{id}/check', () => {
  const check = async (address: string) => {
    const made = await host(`check-${randomUUID().slice(0, 8)}`, { address });
    const response = await answer(typed().POST('/api/hosts/{id}/check', { params: { path: { id: made.id } } }));
    expect(response.status).toBe(200);
    return response.body;
  };

  test('a name resolving to the node: its addresses, the node addresses, a match', async () => {
    expect(await check('edge.test')).toEqual({
      hostId: expect.any(String),
      address: 'edge.test',
      resolves: true,
      addresses: ['203.0.113.7'],
      nodeId,
      nodeName: 'groups-node',
      // The node's address (resolved) and the interface's endpoint (an IP literal).
      nodeAddresses: expect.arrayContaining(['203.0.113.7', '203.0.113.8']),
      matchesNode: true,
    });
  });

  test('a name resolving elsewhere, a missing name, an IP literal (no lookup)', async () => {
    expect(await check('elsewhere.test')).toMatchObject({
      resolves: true,
      addresses: ['198.51.100.9'],
      matchesNode: false,
    });
    const missing = await check('missing.test');
    expect(missing).toMatchObject({ resolves: false, addresses: [], matchesNode: false });
    expect(missing.error).toContain('NXDOMAIN');
    const asked = dns.queries().length;
    expect(await check('203.0.113.8')).toMatchObject({ resolves: true, addresses: ['203.0.113.8'], matchesNode: true });
    expect(
      dns
        .queries()
        .slice(asked)
        .some((query) => query.startsWith('203.0.113.8')),
    ).toBe(false);
  });

  test('names resolve through DNS only: /etc/hosts is not read', async () => {
    const asked = dns.queries().length;
    const local = await check('localhost');
    expect(local).toMatchObject({ resolves: false, addresses: [], matchesNode: false });
    expect(local.error).toContain('NXDOMAIN');
    expect(
      dns
        .queries()
        .slice(asked)
        .some((query) => query.startsWith('localhost ')),
    ).toBe(true);
  });

  test('private addresses a name resolves to are compared, not printed, unless private targets are allowed', async () => {
    // A node on a private address is legitimate: a host resolving to it matches, unprinted.
    const inside = await createNode({ name: 'inside-node', address: 'node-inside.test' });
    const insideIface = await createInterface({ nodeId: inside.id, endpointHost: 'node-inside.test' });
    const made = await createHost({ interfaceId: insideIface.id, name: 'inside-host', address: 'inside.test' });
    const checkInside = async () => {
      const response = await answer(typed().POST('/api/hosts/{id}/check', { params: { path: { id: made.id } } }));
      expect(response.status).toBe(200);
      return response.body;
    };
    const hidden = await checkInside();
    expect(hidden).toEqual({
      hostId: made.id,
      address: 'inside.test',
      resolves: true,
      addresses: [],
      nodeId: inside.id,
      nodeName: 'inside-node',
      nodeAddresses: [],
      matchesNode: true,
      note: 'inside.test resolves to a private address (not shown: settings do not allow private targets)',
      nodeNote: 'node-inside.test resolves to a private address (not shown: settings do not allow private targets)',
    });
    expect(JSON.stringify(hidden)).not.toContain('10.20.30.40');
    // A private IP literal is what the operator wrote: printed as it is.
    expect(await check('10.20.30.41')).toMatchObject({ addresses: ['10.20.30.41'] });
    expect(await check('10.20.30.41')).not.toHaveProperty('note');

    expect((await answer(typed().PATCH('/api/settings', { body: { allowPrivateTargets: true } }))).status).toBe(200);
    try {
      expect(await checkInside()).toEqual({
        ...hidden,
        addresses: ['10.20.30.40'],
        nodeAddresses: ['10.20.30.40'],
        note: undefined,
        nodeNote: undefined,
      });
    } finally {
      await answer(typed().PATCH('/api/settings', { body: { allowPrivateTargets: false } }));
    }
  });

  test('an unknown host is a 404 naming id', async () => {
    expect((await call('POST', `hosts/${randomUUID()}/check`)).body).toEqual(refusal('id', 'host not found'));
  });
});

describe('tags, bulk actions and order', () => {
  test('bulk tag, untag, disable, enable and delete; GET /api/hosts/tags counts them', async () => {
    const [a, b, c] = [await host('bulk-a'), await host('bulk-b'), await host('bulk-c')];
    const ids = [a.id, b.id, c.id];
    let rev = await revision();
    const tagged = await call('POST', 'hosts/bulk', { ids, action: 'tag', tags: [' cdn ', 'fast'] });
    expect(tagged).toMatchObject({ status: 200, body: { action: 'tag', ids, changed: 3 } });
    expect(await revision()).toBe(rev + 1);
    await call('POST', 'hosts/bulk', { ids: [a.id], action: 'untag', tags: ['fast'] });
    expect((await hostsById()).get(a.id)!.tags).toEqual(['cdn']);
    expect((await hostsById()).get(b.id)!.tags).toEqual(['cdn', 'fast']);
    const tags = (await answer(typed().GET('/api/hosts/tags'))).body;
    expect(tags.filter((entry) => ['cdn', 'fast'].includes(entry.tag))).toEqual([
      { tag: 'cdn', hosts: 3 },
      { tag: 'fast', hosts: 2 },
    ]);

    rev = await revision();
    expect((await call('POST', 'hosts/bulk', { ids, action: 'disable' })).body.changed).toBe(3);
    expect([...(await hostsById()).values()].filter((entry) => ids.includes(entry.id)).map((e) => e.enabled)).toEqual([
      false,
      false,
      false,
    ]);
    // Already disabled: nothing changes, no bump.
    expect((await call('POST', 'hosts/bulk', { ids: [a.id], action: 'disable' })).body.changed).toBe(0);
    expect(await revision()).toBe(rev + 1);
    expect((await call('POST', 'hosts/bulk', { ids: [a.id], action: 'enable' })).body.changed).toBe(1);

    expect((await call('POST', 'hosts/bulk', { ids: [b.id, c.id], action: 'delete' })).body.changed).toBe(2);
    const left = await hostsById();
    expect([left.has(a.id), left.has(b.id), left.has(c.id)]).toEqual([true, false, false]);
  });

  test('all or nothing: one unknown id, or bad input, changes no host', async () => {
    const a = await host('whole-a');
    const before = await hostsById();
    const rev = await revision();
    const unknown = randomUUID();
    expect((await call('POST', 'hosts/bulk', { ids: [a.id, unknown], action: 'delete' })).body).toEqual(
      refusal('ids', `host ${unknown} not found`),
    );
    const cases: [unknown, string][] = [
      [{ ids: [a.id], action: 'explode' }, 'action'],
      [{ ids: [], action: 'enable' }, 'ids'],
      [{ ids: [a.id, a.id], action: 'enable' }, 'ids'],
      [{ ids: ['nope'], action: 'enable' }, 'ids'],
      [{ ids: [a.id], action: 'tag' }, 'tags'],
      [{ ids: [a.id], action: 'tag', tags: [''] }, 'tags'],
      [{ ids: [a.id], action: 'tag', tags: ['x'.repeat(33)] }, 'tags'],
      [{ ids: [a.id], action: 'tag', tags: Array.from({ length: 17 }, (_, i) => `t${i}`) }, 'tags'],
    ];
    for (const [body, field] of cases) {
      const response = await call('POST', 'hosts/bulk', body);
      expect({ body, status: response.status, field: response.body.field }).toEqual({ body, status: 400, field });
    }
    expect(await hostsById()).toEqual(before);
    expect(await revision()).toBe(rev);
  });

  test('reorder: positions follow the ids; unknown ids are a 404 and change nothing', async () => {
    const [a, b] = [await host('order-a'), await host('order-b')];
    expect((await call('POST', 'hosts/reorder', { ids: [b.id, a.id] })).body).toEqual({ ids: [b.id, a.id] });
    const after = await hostsById();
    expect([after.get(b.id)!.position, after.get(a.id)!.position]).toEqual([0, 1]);
    const unknown = randomUUID();
    expect((await call('POST', 'hosts/reorder', { ids: [a.id, unknown] })).body).toEqual(
      refusal('ids', `host ${unknown} not found`),
    );
    expect((await hostsById()).get(a.id)!.position).toBe(1);
  });
});

describe('host groups', () => {
  test('create, list in order, replace, reorder, delete (hosts stay, ungrouped)', async () => {
    const h = await host('grouped-h');
    const first = await call('POST', 'hosts/groups', { name: 'Alpha', clientGroups: ['gold'], hostIds: [h.id] });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      id: expect.any(String),
      name: 'Alpha',
      position: expect.any(Number),
      clientGroups: ['gold'],
      hosts: 1,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    // ISO 8601 in UTC, as every other timestamp: Date.toJSON's form exactly, not PostgreSQL's text.
    const iso = (value: string) => new Date(value).toISOString();
    expect([first.body.createdAt, first.body.updatedAt].map(iso)).toEqual([first.body.createdAt, first.body.updatedAt]);
    expect((await hostsById()).get(h.id)!.groupId).toBe(first.body.id);
    const second = (await call('POST', 'hosts/groups', { name: 'Beta' })).body;
    expect((await call('POST', 'hosts/groups', { name: 'alpha' })).body).toEqual(
      refusal('name', 'a host group named "alpha" already exists'),
    );

    const replaced = await call('PUT', `hosts/groups/${first.body.id}`, { name: 'Alpha 2', clientGroups: [] });
    expect(replaced.body).toMatchObject({ name: 'Alpha 2', clientGroups: [], hosts: 1 });
    expect((await call('PUT', `hosts/groups/${second.id}`, { name: 'ALPHA 2' })).status).toBe(409);

    await call('POST', 'hosts/groups/reorder', { ids: [second.id, first.body.id] });
    const listed = (await answer(typed().GET('/api/hosts/groups'))).body.filter((g) =>
      [first.body.id, second.id].includes(g.id),
    );
    expect(listed.map((g) => g.name)).toEqual(['Beta', 'Alpha 2']);
    for (const group of listed)
      expect([iso(group.createdAt), iso(group.updatedAt)]).toEqual([group.createdAt, group.updatedAt]);

    expect((await call('DELETE', `hosts/groups/${first.body.id}`)).body).toEqual({ id: first.body.id, deleted: true });
    expect((await hostsById()).get(h.id)!.groupId).toBeNull();
    await call('DELETE', `hosts/groups/${second.id}`);
  });

  test('bulk: several hosts into a group or out of any; unknown ids change nothing', async () => {
    const [a, b] = [await host('gbulk-a'), await host('gbulk-b')];
    const group = (await call('POST', 'hosts/groups', { name: 'Bulk' })).body;
    const moved = await call('POST', 'hosts/groups/bulk', { groupId: group.id, hostIds: [a.id, b.id] });
    expect(moved.body).toEqual({ groupId: group.id, hostIds: [a.id, b.id], changed: 2 });
    expect((await call('POST', 'hosts/groups/bulk', { groupId: null, hostIds: [a.id, randomUUID()] })).status).toBe(
      404,
    );
    expect((await hostsById()).get(a.id)!.groupId).toBe(group.id);
    expect((await call('POST', 'hosts/groups/bulk', { groupId: null, hostIds: [a.id] })).body.changed).toBe(1);
    expect((await hostsById()).get(a.id)!.groupId).toBeNull();
    expect((await call('POST', 'hosts/groups/bulk', { groupId: randomUUID(), hostIds: [a.id] })).body.field).toBe(
      'groupId',
    );
    await call('DELETE', `hosts/groups/${group.id}`);
  });

  test('bad input is a 4xx naming its field, and writes nothing', async () => {
    const before = await count('host_groups');
    const cases: [string, string, unknown, number, string][] = [
      ['POST', 'hosts/groups', { name: '' }, 400, 'name'],
      ['POST', 'hosts/groups', { name: 'x'.repeat(65) }, 400, 'name'],
      ['POST', 'hosts/groups', { name: 'ok', clientGroups: 'gold' }, 400, 'clientGroups'],
      ['POST', 'hosts/groups', { name: 'ok', clientGroups: ['a', 'a'] }, 400, 'clientGroups'],
      ['POST', 'hosts/groups', { name: 'ok', hostIds: [randomUUID()] }, 404, 'hostIds'],
      ['POST', 'hosts/groups', { name: 'ok', colour: 'red' }, 400, 'colour'],
      ['PUT', `hosts/groups/${randomUUID()}`, { name: 'ok' }, 404, 'gid'],
      ['PUT', 'hosts/groups/nope', { name: 'ok' }, 404, 'gid'],
      ['DELETE', `hosts/groups/${randomUUID()}`, undefined, 404, 'gid'],
      ['POST', 'hosts/groups/reorder', { ids: [randomUUID()] }, 404, 'ids'],
      ['POST', 'hosts/groups/bulk', { groupId: 'nope', hostIds: [randomUUID()] }, 400, 'groupId'],
      [
        'POST',
        'hosts',
        { interfaceId: iface.id, name: 'g', address: 'g.example', groupId: randomUUID() },
        404,
        'groupId',
      ],
    ];
    for (const [method, path, body, status, field] of cases) {
      const response = await call(method, path, body);
      expect({ path, body, status: response.status, field: response.body.field }).toEqual({
        path,
        body,
        status,
        field,
      });
    }
    expect(await count('host_groups')).toBe(before);
  });
});

describe("which hosts a client's configs carry follows its groups", () => {
  test('tied groups only for their clients, untied hosts for everyone, in group then host order', async () => {
    const own = await createInterface({ nodeId, endpointHost: '203.0.113.8' });
    const make = (name: string) =>
      createHost({ interfaceId: own.id, name, address: `${name}.example.net`, priority: 0 });
    const open = await make('open');
    const premiumEdge = await make('premium-edge');
    const trialEdge = await make('trial-edge');
    const everyone = await make('everyone-edge');
    const premium = (await call('POST', 'hosts/groups', { name: 'Premium hosts', clientGroups: ['premium'] })).body;
    const trial = (await call('POST', 'hosts/groups', { name: 'Trial hosts', clientGroups: ['trial'] })).body;
    const untied = (await call('POST', 'hosts/groups', { name: 'Shared hosts' })).body;
    await call('POST', 'hosts/groups/bulk', { groupId: premium.id, hostIds: [premiumEdge.id] });
    await call('POST', 'hosts/groups/bulk', { groupId: trial.id, hostIds: [trialEdge.id] });
    await call('POST', 'hosts/groups/bulk', { groupId: untied.id, hostIds: [everyone.id] });
    await call('POST', 'hosts/groups/reorder', { ids: [premium.id, trial.id, untied.id] });

    const client = async (name: string, groups: string[]) =>
      (await createClient({ name, groups, interfaceIds: [own.id] })).id;
    const hostsOf = async (id: string) => {
      const configs = (await call('GET', `clients/${id}/configs`)).body as {
        devices: { profiles: { hostName: string }[] }[];
      };
      return configs.devices[0].profiles.map((profile) => profile.hostName);
    };
    const gold = await client('groups-premium', ['premium']);
    const both = await client('groups-both', ['trial', 'premium']);
    const nobody = await client('groups-none', []);
    expect(await hostsOf(gold)).toEqual(['premium-edge', 'everyone-edge', 'open']);
    expect(await hostsOf(both)).toEqual(['premium-edge', 'trial-edge', 'everyone-edge', 'open']);
    expect(await hostsOf(nobody)).toEqual(['everyone-edge', 'open']);

    // The groups' order, then (ungrouped hosts last) the hosts' own.
    await call('POST', 'hosts/groups/reorder', { ids: [trial.id, untied.id, premium.id] });
    expect(await hostsOf(both)).toEqual(['trial-edge', 'everyone-edge', 'premium-edge', 'open']);

    // Tying follows PUT; the subscription page (a prepared statement of its own) agrees.
    await call('PUT', `hosts/groups/${untied.id}`, { name: 'Shared hosts', clientGroups: ['premium'] });
    expect(await hostsOf(nobody)).toEqual(['open']);
    const link = (await call('GET', `clients/${nobody}/subscription`)).body as { url: string };
    const page = await fetch(`${link.url}?format=json`, { headers: { 'x-forwarded-for': '198.51.100.77' } });
    const text = await page.text();
    expect([page.status, text.includes('open.example.net'), text.includes('everyone-edge.example.net')]).toEqual([
      200,
      true,
      false,
    ]);

    // With every host of the interface out of its reach, a client dials the interface itself.
    await call('POST', 'hosts/bulk', { ids: [open.id], action: 'disable' });
    expect(await hostsOf(nobody)).toEqual(['default']);
  });
});
