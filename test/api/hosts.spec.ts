import { randomUUID } from 'node:crypto';
import { dialTargets } from '../../apps/controller/src/interfaces/dial-targets.js';
import type { components } from '#libs/api-client/index.js';
import { answer, fixtures, type HostBody } from '../support/fixtures.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';
import { refusal } from '../support/refusal.js';

let t: TestPanel;
let token: string;
let nodeId: string;
let iface: { id: string; listenPort: number; endpointHost: string };
let otherIface: { id: string };

beforeAll(async () => {
  t = await startTestPanel();
  token = await t.login();
  nodeId = (await createNode({ name: 'hosts-node', address: 'h.example.com' })).id;
  iface = await createInterface({ nodeId, name: 'wg0', listenPort: 51820, subnet: '10.8.0.0/24' });
  otherIface = await createInterface({ nodeId, name: 'wg1', listenPort: 51821, subnet: '10.9.0.0/24' });
});
afterAll(async () => {
  await t?.stop();
});

const api = fixtures(() => ({ t, token }));
const { call, typed, createNode, createInterface, count } = api;
/** POST /api/hosts and PATCH /api/hosts/{id} through the typed client, answered as `{status, body}`. */
const postHost = (body: HostBody) => answer(typed().POST('/api/hosts', { body }));
const patchHost = (id: string, body: components['schemas']['UpdateHostDto']) =>
  answer(typed().PATCH('/api/hosts/{id}', { params: { path: { id } }, body }));
/** The revision of this file's node. */
const revision = () => api.revision(nodeId);

type Case = [string, (interfaceId: string) => unknown, number, string];

describe('hosts', () => {
  test('create with defaults and explicit values; every change bumps the node revision once', async () => {
    let rev = await revision();
    const plain = await postHost({ interfaceId: iface.id, name: 'primary', address: 'edge.example.com' });
    expect(plain.status).toBe(201);
    expect(plain.body).toEqual({
      id: expect.any(String),
      interfaceId: iface.id,
      name: 'primary',
      address: 'edge.example.com',
      port: 0,
      effectivePort: 51820,
      priority: 0,
      enabled: true,
      groupId: null,
      tags: [],
      position: expect.any(Number),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(await revision()).toBe(++rev);

    const full = await postHost({
      interfaceId: iface.id,
      name: 'cdn',
      address: '2001:db8::443',
      port: 443,
      priority: 10,
      enabled: false,
    });
    expect(full.body).toMatchObject({ port: 443, effectivePort: 443, priority: 10, enabled: false });
    expect(await revision()).toBe(++rev);

    const patched = await patchHost(full.body.id, {
      enabled: true,
      priority: 20,
      name: 'cdn-2',
      address: 'cdn.example.net',
      port: 0,
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      id: full.body.id,
      enabled: true,
      priority: 20,
      name: 'cdn-2',
      address: 'cdn.example.net',
      port: 0,
      effectivePort: 51820,
    });
    expect(await revision()).toBe(++rev);

    // The same values again change nothing, so nothing is bumped.
    expect((await patchHost(full.body.id, { enabled: true, priority: 20 })).status).toBe(200);
    expect(await revision()).toBe(rev);

    const removed = await answer(typed().DELETE('/api/hosts/{id}', { params: { path: { id: plain.body.id } } }));
    expect(removed.body).toEqual({ id: plain.body.id, deleted: true });
    expect(await revision()).toBe(rev + 1);
    expect((await call('DELETE', `hosts/${plain.body.id}`)).status).toBe(404);
    await answer(typed().DELETE('/api/hosts/{id}', { params: { path: { id: full.body.id } } }));
  });

  test('list: all or one interface, highest priority first, effective ports follow the interface', async () => {
    const made = [];
    for (const [name, priority, port] of [
      ['b', 1, 0],
      ['a', 1, 8443],
      ['top', 5, 0],
    ] as const) {
      made.push((await postHost({ interfaceId: iface.id, name, address: `${name}.example.com`, priority, port })).body);
    }
    const elsewhere = (await postHost({ interfaceId: otherIface.id, name: 'other', address: 'o.example.com' })).body;

    const mine = await answer(typed().GET('/api/hosts', { params: { query: { interfaceId: iface.id } } }));
    expect(mine.status).toBe(200);
    expect(mine.body.map((host: { name: string }) => host.name)).toEqual(['top', 'a', 'b']);
    const all = await answer(typed().GET('/api/hosts'));
    expect(all.body.map((host: { id: string }) => host.id)).toEqual(
      expect.arrayContaining([...made.map((host) => host.id), elsewhere.id]),
    );

    await call('PATCH', `interfaces/${iface.id}`, { listenPort: 51900 });
    const after = (await answer(typed().GET('/api/hosts', { params: { query: { interfaceId: iface.id } } }))).body;
    expect(after.map((host: { effectivePort: number }) => host.effectivePort)).toEqual([51900, 8443, 51900]);

    // What the clients module renders profiles for.
    const current = (await call('GET', `interfaces/${iface.id}`)).body;
    expect(dialTargets(current, after).map((target) => target.endpoint)).toEqual([
      'top.example.com:51900',
      'a.example.com:8443',
      'b.example.com:51900',
    ]);
    for (const host of [...made, elsewhere])
      await answer(typed().DELETE('/api/hosts/{id}', { params: { path: { id: host.id } } }));
    expect(
      dialTargets(
        current,
        (await answer(typed().GET('/api/hosts', { params: { query: { interfaceId: iface.id } } }))).body,
      ),
    ).toEqual([
      { hostId: null, hostName: 'default', address: 'vpn.example.com', port: 51900, endpoint: 'vpn.example.com:51900' },
    ]);
  });

  test('names are unique per interface regardless of case; another interface may reuse them', async () => {
    const first = await postHost({ interfaceId: iface.id, name: 'Edge', address: 'e.example.com' });
    expect(first.status).toBe(201);
    const before = await count('hosts');
    const rev = await revision();
    const dup = await call('POST', 'hosts', { interfaceId: iface.id, name: 'edge', address: 'f.example.com' });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual(refusal('name', 'a host named "edge" already exists on this interface'));
    expect(await count('hosts')).toBe(before);
    expect(await revision()).toBe(rev);
    expect((await postHost({ interfaceId: otherIface.id, name: 'edge', address: 'f.example.com' })).status).toBe(201);

    const second = await postHost({ interfaceId: iface.id, name: 'second', address: 's.example.com' });
    expect((await call('PATCH', `hosts/${second.body.id}`, { name: 'EDGE' })).status).toBe(409);
    // Changing only the case of its own name is fine.
    expect((await patchHost(first.body.id, { name: 'EDGE' })).body.name).toBe('EDGE');
  });

  describe('bad input: 4xx with {error, field}, no row, no revision bump', () => {
    const ok = (interfaceId: string) => ({ interfaceId, name: 'fine', address: 'fine.example.com' });
    const cases: Case[] = [
      ['unknown interface', (i) => ({ ...ok(i), interfaceId: randomUUID() }), 404, 'interfaceId'],
      ['malformed interface id', (i) => ({ ...ok(i), interfaceId: 'wg0' }), 404, 'interfaceId'],
      ['interface id of the wrong type', (i) => ({ ...ok(i), interfaceId: 5 }), 400, 'interfaceId'],
      ['interface missing', () => ({ name: 'fine', address: 'fine.example.com' }), 400, 'interfaceId'],
      ['name empty', (i) => ({ ...ok(i), name: '' }), 400, 'name'],
      ['name too long', (i) => ({ ...ok(i), name: 'x'.repeat(65) }), 400, 'name'],
      ['address missing', (i) => ({ ...ok(i), address: undefined }), 400, 'address'],
      ['address invalid', (i) => ({ ...ok(i), address: 'bad_host.example.com' }), 400, 'address'],
      ['address with scheme', (i) => ({ ...ok(i), address: 'https://x.example.com' }), 400, 'address'],
      ['address a broken IPv4', (i) => ({ ...ok(i), address: '256.1.1.1' }), 400, 'address'],
      ['port negative', (i) => ({ ...ok(i), port: -1 }), 400, 'port'],
      ['port too large', (i) => ({ ...ok(i), port: 65536 }), 400, 'port'],
      ['port as a string', (i) => ({ ...ok(i), port: '443' }), 400, 'port'],
      ['priority fractional', (i) => ({ ...ok(i), priority: 1.5 }), 400, 'priority'],
      ['priority out of range', (i) => ({ ...ok(i), priority: 10_000_001 }), 400, 'priority'],
      ['enabled not a boolean', (i) => ({ ...ok(i), enabled: 1 }), 400, 'enabled'],
      ['unknown field', (i) => ({ ...ok(i), weight: 3 }), 400, 'weight'],
    ];

    test.each(cases)('%s', async (...[, body, status, field]: Case) => {
      const before = await count('hosts');
      const rev = await revision();
      const response = await call('POST', 'hosts', body(iface.id));
      expect({ status: response.status, body: response.body }).toEqual({
        status,
        body: refusal(field),
      });
      expect(await count('hosts')).toBe(before);
      expect(await revision()).toBe(rev);
    });

    test('refused changes leave the host as it was', async () => {
      const host = (await postHost({ interfaceId: iface.id, name: 'steady', address: 'steady.example.com' })).body;
      const rev = await revision();
      const cases: [unknown, number, string][] = [
        [{ interfaceId: otherIface.id }, 400, 'interfaceId'],
        [{ port: 70000 }, 400, 'port'],
        [{ address: '' }, 400, 'address'],
        [{ name: null }, 400, 'name'],
        [{ enabled: null }, 400, 'enabled'],
      ];
      for (const [body, status, field] of cases) {
        const response = await call('PATCH', `hosts/${host.id}`, body);
        expect({ body, status: response.status, field: response.body.field }).toEqual({ body, status, field });
      }
      const listed = (
        await answer(typed().GET('/api/hosts', { params: { query: { interfaceId: iface.id } } }))
      ).body.find((entry: { id: string }) => entry.id === host.id);
      expect(listed).toEqual(host);
      expect(await revision()).toBe(rev);
    });

    test('unknown ids and filters are 404s naming their field', async () => {
      for (const id of [randomUUID(), 'nope']) {
        expect((await call('PATCH', `hosts/${id}`, { enabled: false })).body).toEqual(refusal('id', 'host not found'));
        expect((await call('DELETE', `hosts/${id}`)).body).toEqual(refusal('id', 'host not found'));
        expect((await call('GET', `hosts?interfaceId=${id}`)).body).toEqual(
          refusal('interfaceId', 'interface not found'),
        );
      }
      expect((await call('GET', 'hosts?nodeId=x')).body.field).toBe('nodeId');
    });
  });

  test('deleting the interface (forced or not) takes its hosts with it', async () => {
    const scratch = (
      await call('POST', 'interfaces', {
        nodeId,
        name: 'wg9',
        listenPort: 51829,
        subnet: '10.99.0.0/24',
        endpointHost: 'vpn.example.com',
      })
    ).body;
    await postHost({ interfaceId: scratch.id, name: 'h', address: 'h.example.com' });
    expect((await call('DELETE', `interfaces/${scratch.id}`)).status).toBe(200);
    expect(await t.query('select id from hosts where interface_id = $1', [scratch.id])).toHaveLength(0);
  });
});
