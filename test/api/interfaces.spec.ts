import { randomUUID } from 'node:crypto';
import { validateAmneziaParams } from '../../libs/wireguard/amnezia.js';
import { isWireGuardKey, publicKeyFromPrivate } from '../../libs/wireguard/keys.js';
import { answer, fixtures, freshInterface as fresh, type InterfaceUpdate } from '../support/fixtures.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';
import { refusal } from '../support/refusal.js';

let t: TestPanel;
let token: string;
let localNodeId: string;

beforeAll(async () => {
  t = await startTestPanel();
  token = await t.login();
  localNodeId = (await t.call('GET', 'nodes', { token })).body.find((node: { isLocal: boolean }) => node.isLocal).id;
});
afterAll(async () => {
  await t?.stop();
});

const { call, typed, createNode, createInterface, revision } = fixtures(() => ({ t, token }));

/** PATCH /api/interfaces/{id} through the typed client, answered as `{status, body}`. */
const patchInterface = (id: string, body: InterfaceUpdate) =>
  answer(typed().PATCH('/api/interfaces/{id}', { params: { path: { id } }, body }));

async function rowCounts() {
  const [row] = await t.query<Record<string, string>>(
    `select (select count(*) from interfaces) as interfaces, (select count(*) from hosts) as hosts,
            (select count(*) from accounts) as accounts, (select sum(desired_revision) from nodes) as revisions`,
  );
  return row;
}

/** Attaches `devices` new devices (each of its own client unless `clients` is smaller) with accounts on the interface. */
async function addDevices(
  iface: { id: string; nodeId: string; subnet: string },
  devices: number,
  clients = devices,
): Promise<string[]> {
  const clientIds = Array.from({ length: clients }, () => randomUUID());
  for (const clientId of clientIds) {
    await t.query(
      `insert into clients (id, name, status, sub_id, owner_id, created_at, updated_at)
       values ($1, $2, 'active', $3, (select id from users where role = 'owner' limit 1), now(), now())`,
      [clientId, `client-${clientId.slice(0, 8)}`, randomUUID().replace(/-/g, '')],
    );
    await t.query('insert into client_interfaces (client_id, interface_id) values ($1, $2)', [clientId, iface.id]);
  }
  const base = iface.subnet.split('/')[0].split('.').slice(0, 3).join('.');
  const deviceIds: string[] = [];
  for (let i = 0; i < devices; i++) {
    const deviceId = randomUUID();
    deviceIds.push(deviceId);
    await t.query(`insert into devices (id, client_id, name, created_at) values ($1, $2, $3, now())`, [
      deviceId,
      clientIds[i % clients],
      `dev-${i}`,
    ]);
    const key = Buffer.alloc(32, i + 1).toString('base64');
    await t.query(
      `insert into accounts (id, device_id, interface_id, node_id, ip, private_key, public_key, preshared_key, created_at)
       values ($1, $2, $3, $4, $5, $6, $6, $6, now())`,
      [randomUUID(), deviceId, iface.id, iface.nodeId, `${base}.${i + 2}`, key],
    );
  }
  return deviceIds;
}

describe('creating interfaces', () => {
  test('standard mode with defaults: local node, generated keys, public resolvers for DNS, counts', async () => {
    const before = await revision(localNodeId);
    const created = await call('POST', 'interfaces', {
      name: 'wg-main',
      listenPort: 51820,
      subnet: '10.8.0.0/24',
      endpointHost: 'vpn.example.com',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      nodeId: localNodeId,
      name: 'wg-main',
      protocol: 'wireguard',
      mode: 'standard',
      listenPort: 51820,
      subnet: '10.8.0.0/24',
      gateway: '10.8.0.1',
      endpointHost: 'vpn.example.com',
      mtu: 1420,
      // Not the gateway: nothing answers DNS there (test/e2e/profiles-dns.spec.ts resolves through these).
      dns: ['1.1.1.1', '1.0.0.1'],
      natInterface: null,
      enabled: true,
      awg: null,
      capacity: 253,
      allocated: 0,
      clients: 0,
      devices: 0,
      online: 0,
      usedBytes: 0,
      running: false,
    });
    expect(created.body.privateKey).toBeUndefined();
    expect(isWireGuardKey(created.body.publicKey)).toBe(true);
    expect(await revision(localNodeId)).toBe(before + 1);

    const [stored] = await t.query<{ private_key: string; public_key: string }>(
      'select private_key, public_key from interfaces where id = $1',
      [created.body.id],
    );
    expect(isWireGuardKey(stored.private_key)).toBe(true);
    expect(publicKeyFromPrivate(stored.private_key)).toBe(created.body.publicKey);

    // The private key appears in no response of any kind.
    const patched = await patchInterface(created.body.id, { mtu: 1380 });
    expect(patched.status).toBe(200);
    const responses = [
      created,
      patched,
      await call('GET', 'interfaces'),
      await call('GET', `interfaces/${created.body.id}`),
      await call('GET', `interfaces?nodeId=${localNodeId}`),
    ];
    for (const response of responses) {
      expect(response.status).toBe(200 + (response === created ? 1 : 0));
      const text = JSON.stringify(response.body);
      expect(text).not.toContain(stored.private_key);
      expect(text).not.toMatch(/privateKey|private_key/);
    }
  });

  test('every field given explicitly', async () => {
    const nodeId = (await createNode()).id;
    const created = await call('POST', 'interfaces', {
      nodeId,
      name: 'Tun_9-x',
      mode: 'standard',
      listenPort: 443,
      subnet: '172.16.0.0/12',
      endpointHost: '2001:db8::10',
      mtu: 9000,
      dns: ['1.1.1.1', '2606:4700:4700::1111'],
      natInterface: 'eth0.100',
      enabled: false,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      nodeId,
      name: 'Tun_9-x',
      listenPort: 443,
      subnet: '172.16.0.0/12',
      gateway: '172.16.0.1',
      endpointHost: '2001:db8::10',
      mtu: 9000,
      dns: ['1.1.1.1', '2606:4700:4700::1111'],
      natInterface: 'eth0.100',
      enabled: false,
      capacity: 2 ** 20 - 3,
    });
  });

  test('amnezia mode generates parameters within bounds', async () => {
    for (let i = 0; i < 5; i++) {
      const created = await createInterface({ mode: 'amnezia' });
      expect(created.mode).toBe('amnezia');
      const awg = created.awg!;
      expect(validateAmneziaParams(awg)).toBeNull();
      expect(Object.keys(awg).sort()).toEqual(['h1', 'h2', 'h3', 'h4', 'jc', 'jmax', 'jmin', 's1', 's2']);
      expect(awg.jc).toBeGreaterThanOrEqual(3);
      expect(awg.jc).toBeLessThanOrEqual(6);
      expect(awg.jmax).toBeGreaterThanOrEqual(awg.jmin + 50);
      expect(awg.s2 - awg.s1).not.toBe(56);
    }
  });

  test('amnezia mode takes a full override of its parameters', async () => {
    const awg = {
      jc: 3,
      jmin: 40,
      jmax: 90,
      s1: 15,
      s2: 150,
      h1: 100_000,
      h2: 1_000_000,
      h3: 10_000_000,
      h4: 100_000_000,
    };
    const created = await createInterface({ mode: 'amnezia', awg });
    expect(created.awg).toEqual(awg);
  });

  test('protocol: wireguard is accepted on create and change, so the writable fields of a GET body can be sent back', async () => {
    const nodeId = (await createNode()).id;
    const created = await answer(typed().POST('/api/interfaces', { body: fresh({ nodeId, protocol: 'wireguard' }) }));
    expect(created.status).toBe(201);
    expect(created.body.protocol).toBe('wireguard');
    const read = (await call('GET', `interfaces/${created.body.id}`)).body;
    const { protocol, mode, name, listenPort, subnet, endpointHost, mtu, dns, natInterface, enabled } = read;
    const writable = {
      nodeId,
      protocol,
      mode,
      name,
      listenPort,
      subnet,
      endpointHost,
      mtu,
      dns,
      natInterface,
      enabled,
    };
    const rev = await revision(nodeId);
    expect(await patchInterface(created.body.id, writable)).toMatchObject({ status: 200, body: writable });
    expect(await revision(nodeId)).toBe(rev);
    // The same fields create a twin elsewhere: on another node nothing clashes.
    const twin = await call('POST', 'interfaces', { ...writable, nodeId: (await createNode()).id });
    expect(twin.status).toBe(201);
  });

  test('a name that is a prototype key in JavaScript is a name like any other', async () => {
    const nodeId = (await createNode()).id;
    for (const name of ['__proto__', 'constructor', 'toString']) {
      const created = await createInterface({ nodeId, name });
      expect(created.name).toBe(name);
      expect((await call('GET', `interfaces/${created.id}`)).body.name).toBe(name);
    }
  });

  test('the same name, port and subnet on another node are fine', async () => {
    const a = (await createNode()).id;
    const b = (await createNode()).id;
    const body = { name: 'wg0', listenPort: 51820, subnet: '10.9.0.0/24', endpointHost: 'vpn.example.com' };
    expect((await call('POST', 'interfaces', { ...body, nodeId: a })).status).toBe(201);
    expect((await call('POST', 'interfaces', { ...body, nodeId: b })).status).toBe(201);
  });

  test('adjacent subnets on one node do not overlap', async () => {
    const nodeId = (await createNode()).id;
    expect((await call('POST', 'interfaces', { ...fresh(), nodeId, subnet: '10.50.0.0/25' })).status).toBe(201);
    expect((await call('POST', 'interfaces', { ...fresh(), nodeId, subnet: '10.50.0.128/25' })).status).toBe(201);
    expect((await call('POST', 'interfaces', { ...fresh(), nodeId, subnet: '10.50.1.0/30' })).status).toBe(201);
  });
});

describe('bad input: 4xx with {error, field}, no row written, no revision bump', () => {
  let nodeId: string;
  beforeAll(async () => {
    nodeId = (await createNode()).id;
    const existing = await call('POST', 'interfaces', {
      nodeId,
      name: 'taken',
      listenPort: 51000,
      subnet: '10.60.0.0/16',
      endpointHost: 'a.example.com',
    });
    expect(existing.status).toBe(201);
  });

  const ok = () => ({ name: 'fresh0', listenPort: 51001, subnet: '10.61.0.0/24', endpointHost: 'vpn.example.com' });
  const awg = {
    jc: 4,
    jmin: 40,
    jmax: 90,
    s1: 20,
    s2: 30,
    h1: 100_000,
    h2: 1_000_000,
    h3: 10_000_000,
    h4: 100_000_000,
  };

  type Case = [string, (nodeId: string) => unknown, number, string, RegExp?];
  const cases: Case[] = [
    [
      'overlapping subnet (inside)',
      (n) => ({ ...ok(), nodeId: n, subnet: '10.60.5.0/24' }),
      409,
      'subnet',
      /overlaps 10\.60\.0\.0\/16 of interface "taken"/,
    ],
    ['overlapping subnet (around)', (n) => ({ ...ok(), nodeId: n, subnet: '10.0.0.0/10' }), 409, 'subnet', /"taken"/],
    ['duplicate name on the node', (n) => ({ ...ok(), nodeId: n, name: 'taken' }), 409, 'name', /taken/],
    [
      'duplicate port on the node',
      (n) => ({ ...ok(), nodeId: n, listenPort: 51000 }),
      409,
      'listenPort',
      /51000.*"taken"/,
    ],
    ['host bits set', (n) => ({ ...ok(), nodeId: n, subnet: '10.61.0.1/24' }), 400, 'subnet', /host bits/],
    ['prefix too short (/9)', (n) => ({ ...ok(), nodeId: n, subnet: '10.0.0.0/9' }), 400, 'subnet', /\/10 and \/30/],
    ['prefix too long (/31)', (n) => ({ ...ok(), nodeId: n, subnet: '10.61.0.0/31' }), 400, 'subnet', /\/10 and \/30/],
    ['subnet not a CIDR', (n) => ({ ...ok(), nodeId: n, subnet: '10.61.0.0' }), 400, 'subnet'],
    ['subnet of garbage', (n) => ({ ...ok(), nodeId: n, subnet: 'ten/24' }), 400, 'subnet'],
    ['subnet wrong type', (n) => ({ ...ok(), nodeId: n, subnet: 24 }), 400, 'subnet'],
    ['subnet missing', (n) => ({ ...ok(), nodeId: n, subnet: undefined }), 400, 'subnet'],
    ['unknown node id', () => ({ ...ok(), nodeId: randomUUID() }), 404, 'nodeId'],
    ['malformed node id', () => ({ ...ok(), nodeId: 'node-1' }), 404, 'nodeId'],
    ['node id of the wrong type', () => ({ ...ok(), nodeId: 7 }), 400, 'nodeId'],
    ['node id null', () => ({ ...ok(), nodeId: null }), 400, 'nodeId'],
    ['mtu below 576', (n) => ({ ...ok(), nodeId: n, mtu: 575 }), 400, 'mtu'],
    ['mtu above 9000', (n) => ({ ...ok(), nodeId: n, mtu: 9001 }), 400, 'mtu'],
    ['mtu as a string', (n) => ({ ...ok(), nodeId: n, mtu: '1420' }), 400, 'mtu', /whole number/],
    ['mtu fractional', (n) => ({ ...ok(), nodeId: n, mtu: 1420.5 }), 400, 'mtu'],
    ['listen port 0', (n) => ({ ...ok(), nodeId: n, listenPort: 0 }), 400, 'listenPort'],
    ['listen port 65536', (n) => ({ ...ok(), nodeId: n, listenPort: 65536 }), 400, 'listenPort'],
    ['listen port missing', (n) => ({ ...ok(), nodeId: n, listenPort: undefined }), 400, 'listenPort'],
    ['name empty', (n) => ({ ...ok(), nodeId: n, name: '' }), 400, 'name'],
    ['name 16 characters', (n) => ({ ...ok(), nodeId: n, name: 'a'.repeat(16) }), 400, 'name'],
    ['name with a dot', (n) => ({ ...ok(), nodeId: n, name: 'wg.0' }), 400, 'name'],
    ['name with a space', (n) => ({ ...ok(), nodeId: n, name: 'wg 0' }), 400, 'name'],
    ['name with a slash', (n) => ({ ...ok(), nodeId: n, name: 'wg/0' }), 400, 'name'],
    ['name of the wrong type', (n) => ({ ...ok(), nodeId: n, name: ['wg0'] }), 400, 'name', /must be text/],
    [
      'name with a leading "-" (an option to every tool)',
      (n) => ({ ...ok(), nodeId: n, name: '-f' }),
      400,
      'name',
      /not starting with "-"/,
    ],
    ['name "all" (a wg show keyword)', (n) => ({ ...ok(), nodeId: n, name: 'all' }), 400, 'name', /"all"/],
    ['name "interfaces" (a wg show keyword)', (n) => ({ ...ok(), nodeId: n, name: 'interfaces' }), 400, 'name'],
    ['name ".."', (n) => ({ ...ok(), nodeId: n, name: '..' }), 400, 'name'],
    ['name with a colon (an alias)', (n) => ({ ...ok(), nodeId: n, name: 'wg0:1' }), 400, 'name'],
    ['name with a newline', (n) => ({ ...ok(), nodeId: n, name: 'wg0\n' }), 400, 'name'],
    [
      'protocol other than wireguard',
      (n) => ({ ...ok(), nodeId: n, protocol: 'openvpn' }),
      400,
      'protocol',
      /wireguard/,
    ],
    ['protocol of the wrong type', (n) => ({ ...ok(), nodeId: n, protocol: 1 }), 400, 'protocol'],
    ['protocol null', (n) => ({ ...ok(), nodeId: n, protocol: null }), 400, 'protocol'],
    ['mode unknown', (n) => ({ ...ok(), nodeId: n, mode: 'openvpn' }), 400, 'mode'],
    ['endpointHost missing', (n) => ({ ...ok(), nodeId: n, endpointHost: undefined }), 400, 'endpointHost'],
    [
      'endpointHost with a port',
      (n) => ({ ...ok(), nodeId: n, endpointHost: 'vpn.example.com:51820' }),
      400,
      'endpointHost',
    ],
    [
      'endpointHost a URL',
      (n) => ({ ...ok(), nodeId: n, endpointHost: 'https://vpn.example.com' }),
      400,
      'endpointHost',
    ],
    ['endpointHost a bad IPv4', (n) => ({ ...ok(), nodeId: n, endpointHost: '203.0.113.300' }), 400, 'endpointHost'],
    ['dns not an array', (n) => ({ ...ok(), nodeId: n, dns: '1.1.1.1' }), 400, 'dns'],
    ['dns with a hostname', (n) => ({ ...ok(), nodeId: n, dns: ['1.1.1.1', 'dns.google'] }), 400, 'dns'],
    ['dns with a number', (n) => ({ ...ok(), nodeId: n, dns: [8888] }), 400, 'dns'],
    ['natInterface invalid', (n) => ({ ...ok(), nodeId: n, natInterface: 'eth0; rm -rf /' }), 400, 'natInterface'],
    ['natInterface with a leading "-"', (n) => ({ ...ok(), nodeId: n, natInterface: '-eth0' }), 400, 'natInterface'],
    ['natInterface "."', (n) => ({ ...ok(), nodeId: n, natInterface: '.' }), 400, 'natInterface'],
    ['natInterface ".."', (n) => ({ ...ok(), nodeId: n, natInterface: '..' }), 400, 'natInterface'],
    ['natInterface with a quote', (n) => ({ ...ok(), nodeId: n, natInterface: 'eth0"' }), 400, 'natInterface'],
    ['natInterface 16 characters', (n) => ({ ...ok(), nodeId: n, natInterface: 'e'.repeat(16) }), 400, 'natInterface'],
    ['enabled not a boolean', (n) => ({ ...ok(), nodeId: n, enabled: 'yes' }), 400, 'enabled'],
    ['unknown field', (n) => ({ ...ok(), nodeId: n, colour: 'blue' }), 400, 'colour', /not a field this request takes/],
    [
      'privateKey given',
      (n) => ({ ...ok(), nodeId: n, privateKey: 'x' }),
      400,
      'privateKey',
      /not a field this request takes/,
    ],
    ['awg in standard mode', (n) => ({ ...ok(), nodeId: n, awg }), 400, 'awg'],
    [
      'awg jmax too close to jmin',
      (n) => ({ ...ok(), nodeId: n, mode: 'amnezia', awg: { ...awg, jmax: 89 } }),
      400,
      'awg.jmax',
    ],
    ['awg s2 = s1 + 56', (n) => ({ ...ok(), nodeId: n, mode: 'amnezia', awg: { ...awg, s2: 76 } }), 400, 'awg.s2'],
    ['awg h1 out of range', (n) => ({ ...ok(), nodeId: n, mode: 'amnezia', awg: { ...awg, h1: 1 } }), 400, 'awg.h1'],
    [
      'awg missing a field',
      (n) => ({ ...ok(), nodeId: n, mode: 'amnezia', awg: { ...awg, h4: undefined } }),
      400,
      'awg.h4',
    ],
    ['awg unknown field', (n) => ({ ...ok(), nodeId: n, mode: 'amnezia', awg: { ...awg, h5: 1 } }), 400, 'awg.h5'],
    [
      'awg field as a string',
      (n) => ({ ...ok(), nodeId: n, mode: 'amnezia', awg: { ...awg, jc: '4' } }),
      400,
      'awg.jc',
    ],
    ['awg not an object', (n) => ({ ...ok(), nodeId: n, mode: 'amnezia', awg: [1, 2] }), 400, 'awg'],
    ['a JSON array body', (n) => [{ ...ok(), nodeId: n }], 400, ''],
  ];

  // A rest parameter: Jest reads a declared parameter beyond a row's length as a `done` callback.
  test.each(cases)('%s', async (...[, body, status, field, message]: Case) => {
    const before = await rowCounts();
    const response = await call('POST', 'interfaces', body(nodeId));
    expect({ status: response.status, body: response.body }).toEqual({ status, body: refusal(field) });
    if (message) expect(response.body.error).toMatch(message);
    expect(await rowCounts()).toEqual(before);
  });
});

describe('races', () => {
  test('10 parallel creations with the same port and overlapping subnets: exactly one wins', async () => {
    const nodeId = (await createNode()).id;
    const before = await revision(nodeId);
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        call('POST', 'interfaces', {
          nodeId,
          name: `race${i}`,
          listenPort: 52000,
          subnet: `10.70.${i}.0/${i === 0 ? 16 : 24}`,
          endpointHost: 'vpn.example.com',
        }),
      ),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
    for (const response of responses.filter((r) => r.status === 409)) {
      expect(['listenPort', 'subnet']).toContain(response.body.field);
    }
    const rows = await t.query('select id from interfaces where node_id = $1', [nodeId]);
    expect(rows).toHaveLength(1);
    expect(await revision(nodeId)).toBe(before + 1);
  });

  test('10 parallel creations with nested subnets only: exactly one wins, the rest name the subnet', async () => {
    const nodeId = (await createNode()).id;
    // 10.71.0.0/16 .. /25 all contain 10.71.0.0, so every pair overlaps.
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        call('POST', 'interfaces', {
          nodeId,
          name: `ov${i}`,
          listenPort: 53000 + i,
          subnet: `10.71.0.0/${16 + i}`,
          endpointHost: 'vpn.example.com',
        }),
      ),
    );
    expect(responses.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
    for (const response of responses.filter((r) => r.status === 409)) {
      expect(response.body.field).toBe('subnet');
      expect(response.body.error).toMatch(/overlaps 10\.71\.0\.0\/\d+ of interface "ov\d"/);
    }
    expect(await t.query('select id from interfaces where node_id = $1', [nodeId])).toHaveLength(1);
  });

  test('10 parallel creations with the same name: exactly one wins', async () => {
    const nodeId = (await createNode()).id;
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        call('POST', 'interfaces', {
          nodeId,
          name: 'same',
          listenPort: 54000 + i,
          subnet: `10.72.${i}.0/24`,
          endpointHost: 'vpn.example.com',
        }),
      ),
    );
    expect(responses.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
    expect(responses.filter((r) => r.status === 409).every((r) => r.body.field === 'name')).toBe(true);
  });
});

describe('changing interfaces', () => {
  test('allowed fields change and bump the revision once; a no-op change does not', async () => {
    const nodeId = (await createNode()).id;
    const created = await createInterface({ nodeId });
    let rev = await revision(nodeId);
    const changes = {
      name: 'renamed',
      listenPort: 60001,
      endpointHost: '198.51.100.4',
      mtu: 1280,
      dns: ['9.9.9.9'],
      natInterface: 'ens3',
      enabled: false,
    };
    const patched = await patchInterface(created.id, changes);
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject(changes);
    expect(patched.body.publicKey).toBe(created.publicKey);
    expect(await revision(nodeId)).toBe(++rev);

    expect((await patchInterface(created.id, changes)).status).toBe(200);
    expect((await patchInterface(created.id, {})).status).toBe(200);
    expect(await revision(nodeId)).toBe(rev);

    const cleared = await patchInterface(created.id, { natInterface: null });
    expect(cleared.body.natInterface).toBeNull();
    expect(await revision(nodeId)).toBe(rev + 1);
  });

  test('the subnet changes while no address is allocated; DNS set to the gateway follows it', async () => {
    const nodeId = (await createNode()).id;
    const created = await createInterface({ nodeId, subnet: '10.80.0.0/24', dns: ['10.80.0.1'] });
    const moved = await patchInterface(created.id, { subnet: '10.81.0.0/23' });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({
      subnet: '10.81.0.0/23',
      gateway: '10.81.0.1',
      dns: ['10.81.0.1'],
      capacity: 509,
    });

    const custom = await createInterface({ nodeId, subnet: '10.82.0.0/24', dns: ['1.1.1.1'] });
    expect((await patchInterface(custom.id, { subnet: '10.83.0.0/24' })).body.dns).toEqual(['1.1.1.1']);
  });

  test('the subnet is fixed once addresses are allocated', async () => {
    const nodeId = (await createNode()).id;
    const created = await createInterface({ nodeId, subnet: '10.84.0.0/24' });
    await addDevices({ id: created.id, nodeId, subnet: created.subnet }, 2);
    const rev = await revision(nodeId);
    const refused = await call('PATCH', `interfaces/${created.id}`, { subnet: '10.85.0.0/24', mtu: 1300 });
    expect(refused.status).toBe(409);
    expect(refused.body.field).toBe('subnet');
    expect(refused.body.error).toMatch(/2 addresses are allocated/);
    expect((await call('GET', `interfaces/${created.id}`)).body).toMatchObject({ subnet: '10.84.0.0/24', mtu: 1420 });
    expect(await revision(nodeId)).toBe(rev);
    // Naming the same subnet again is not a change.
    expect((await call('PATCH', `interfaces/${created.id}`, { subnet: '10.84.0.0/24', mtu: 1300 })).status).toBe(200);
  });

  test('refused changes: mode, node, awg on standard, clashes, bad values; nothing changes', async () => {
    const nodeId = (await createNode()).id;
    const other = (await createNode()).id;
    const neighbour = await createInterface({ nodeId, name: 'neighbour', listenPort: 61000, subnet: '10.90.0.0/24' });
    const target = await createInterface({ nodeId, name: 'target', listenPort: 61001, subnet: '10.91.0.0/24' });
    expect(neighbour.nodeId).toBe(nodeId);
    const cases: [unknown, number, string][] = [
      [{ mode: 'amnezia' }, 400, 'mode'],
      [{ nodeId: other }, 400, 'nodeId'],
      [
        {
          awg: {
            jc: 4,
            jmin: 40,
            jmax: 90,
            s1: 20,
            s2: 30,
            h1: 100_000,
            h2: 1_000_000,
            h3: 10_000_000,
            h4: 100_000_000,
          },
        },
        400,
        'awg',
      ],
      [{ name: 'neighbour' }, 409, 'name'],
      [{ listenPort: 61000 }, 409, 'listenPort'],
      [{ subnet: '10.90.0.128/25' }, 409, 'subnet'],
      [{ subnet: '10.91.0.1/24' }, 400, 'subnet'],
      [{ mtu: null }, 400, 'mtu'],
      [{ enabled: null }, 400, 'enabled'],
      [{ mtu: 10000 }, 400, 'mtu'],
      [{ protocol: 'openvpn' }, 400, 'protocol'],
      [{ publicKey: target.publicKey }, 400, 'publicKey'],
      [{ name: 'ok', listenPort: 'x' }, 400, 'listenPort'],
    ];
    const before = await call('GET', `interfaces/${target.id}`);
    const rev = await revision(nodeId);
    for (const [body, status, field] of cases) {
      const response = await call('PATCH', `interfaces/${target.id}`, body);
      expect({ body, status: response.status, field: response.body.field }).toEqual({ body, status, field });
    }
    expect((await call('GET', `interfaces/${target.id}`)).body).toEqual(before.body);
    expect(await revision(nodeId)).toBe(rev);
    // Naming the current mode and node is fine.
    expect((await call('PATCH', `interfaces/${target.id}`, { mode: 'standard', nodeId })).status).toBe(200);
  });

  test('amnezia parameters can be replaced (and are validated)', async () => {
    const created = await createInterface({ mode: 'amnezia' });
    const awg = {
      jc: 6,
      jmin: 89,
      jmax: 250,
      s1: 150,
      s2: 15,
      h1: 500_000,
      h2: 5_000_000,
      h3: 50_000_000,
      h4: 500_000_000,
    };
    const patched = await patchInterface(created.id, { awg });
    expect(patched.status).toBe(200);
    expect(patched.body.awg).toEqual(awg);
    const [{ desired_revision: rev }] = await t.query<{ desired_revision: string }>(
      'select desired_revision from nodes where id = $1',
      [created.nodeId],
    );
    // The same parameters again (in another key order) are no change.
    const reordered = Object.fromEntries(Object.entries(awg).reverse());
    expect((await call('PATCH', `interfaces/${created.id}`, { awg: reordered })).status).toBe(200);
    expect(await revision(created.nodeId)).toBe(Number(rev));
    const refused = await call('PATCH', `interfaces/${created.id}`, { awg: { ...awg, jc: 7 } });
    expect(refused.body).toEqual(refusal('awg.jc', expect.stringMatching(/awg\.jc/)));
    expect((await call('PATCH', `interfaces/${created.id}`, { mode: 'standard' })).body.field).toBe('mode');
  });
});

describe('counts and deletion', () => {
  test('list and GET carry capacity, allocated, clients, devices, online, usedBytes and running', async () => {
    const nodeId = (await createNode()).id;
    const busy = await createInterface({ nodeId, subnet: '10.95.0.0/28' });
    const quiet = await createInterface({ nodeId, subnet: '10.96.0.0/30' });
    const deviceIds = await addDevices({ id: busy.id, nodeId, subnet: busy.subnet }, 5, 2);
    // Counters as agents report them: two devices shook hands a minute ago, one an hour ago.
    const traffic = [
      [deviceIds[0], 1000, 2000, '1 minute'],
      [deviceIds[1], 30, 70, '1 minute'],
      [deviceIds[2], 5, 0, '1 hour'],
    ] as const;
    for (const [deviceId, up, down, ago] of traffic) {
      await t.query(
        `update accounts set up_bytes = $2, down_bytes = $3, last_handshake = now() - $4::interval where device_id = $1`,
        [deviceId, up, down, ago],
      );
    }
    const counts = { capacity: 13, allocated: 5, clients: 2, devices: 5, online: 2, usedBytes: 3105, running: false };

    const list = await answer(typed().GET('/api/interfaces', { params: { query: { nodeId } } }));
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(2);
    const byId = new Map(list.body.map((entry: { id: string }) => [entry.id, entry]));
    expect(byId.get(busy.id)).toMatchObject(counts);
    expect(byId.get(quiet.id)).toMatchObject({
      capacity: 1,
      allocated: 0,
      clients: 0,
      devices: 0,
      online: 0,
      usedBytes: 0,
      running: false,
    });
    expect((await call('GET', `interfaces/${busy.id}`)).body).toMatchObject(counts);

    // running: the node's agent is connected (seen within 30 s) and its last apply has the interface up.
    const setAgent = (connected: boolean, seenAgo: string, up: string[]) =>
      t.query(
        `insert into node_agents (node_id, credential_hash, connected, last_seen_at, last_apply) values ($1, $2, $3, now() - $4::interval, $5)
           on conflict (node_id) do update set credential_hash = $2, connected = $3, last_seen_at = now() - $4::interval, last_apply = $5`,
        [
          nodeId,
          'a'.repeat(64),
          connected,
          seenAgo,
          {
            revision: 1,
            ok: true,
            durationMs: 1,
            interfaces: up.map((name) => ({ name, state: 'up', driver: 'wireguard-go', peers: 0 })),
          },
        ],
      );
    const running = async () => {
      const entries = (await call('GET', `interfaces?nodeId=${nodeId}`)).body as { id: string; running: boolean }[];
      return Object.fromEntries(entries.map((entry) => [entry.id === busy.id ? 'busy' : 'quiet', entry.running]));
    };
    await setAgent(true, '1 second', [busy.name]);
    expect(await running()).toEqual({ busy: true, quiet: false });
    expect((await call('GET', `interfaces/${busy.id}`)).body.running).toBe(true);
    await setAgent(true, '1 minute', [busy.name]);
    expect(await running()).toEqual({ busy: false, quiet: false });
    await setAgent(false, '1 second', [busy.name, quiet.name]);
    expect(await running()).toEqual({ busy: false, quiet: false });
    await setAgent(true, '1 second', [busy.name, quiet.name]);
    expect(await running()).toEqual({ busy: true, quiet: true });
    // Renamed and not applied yet: not known to run under the new name.
    expect((await patchInterface(quiet.id, { name: 'renamed-q' })).status).toBe(200);
    expect(await running()).toEqual({ busy: true, quiet: false });

    const all = await call('GET', 'interfaces');
    expect(all.body.length).toBeGreaterThan(2);
    expect(all.body.find((entry: { id: string }) => entry.id === busy.id)).toMatchObject({ allocated: 5 });
  });

  test('list filter: an unknown node is a 404 naming nodeId; unknown query fields are refused', async () => {
    expect((await call('GET', `interfaces?nodeId=${randomUUID()}`)).body).toEqual(refusal('nodeId', 'node not found'));
    expect((await call('GET', 'interfaces?nodeId=bad')).status).toBe(404);
    expect((await call('GET', 'interfaces?page=2')).body.field).toBe('page');
  });

  test('DELETE refuses while devices use the interface, saying how many; ?force=true deletes', async () => {
    const nodeId = (await createNode()).id;
    const iface = await createInterface({ nodeId });
    const deviceIds = await addDevices({ id: iface.id, nodeId, subnet: iface.subnet }, 3, 2);
    const host = await call('POST', 'hosts', { interfaceId: iface.id, name: 'alt', address: 'alt.example.com' });
    expect(host.status).toBe(201);
    const rev = await revision(nodeId);
    const before = await rowCounts();

    const refused = await call('DELETE', `interfaces/${iface.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      error: '3 devices still use this interface; delete them or pass ?force=true',
      field: '',
    });
    const explicitNo = await call('DELETE', `interfaces/${iface.id}?force=false`);
    expect(explicitNo.status).toBe(409);
    for (const bad of ['yes', '1', 'TRUE', '']) {
      const response = await call('DELETE', `interfaces/${iface.id}?force=${bad}`);
      expect({ bad, status: response.status, field: response.body.field }).toEqual({
        bad,
        status: 400,
        field: 'force',
      });
    }
    expect(await rowCounts()).toEqual(before);
    expect(await revision(nodeId)).toBe(rev);

    const forced = await call('DELETE', `interfaces/${iface.id}?force=true`);
    expect(forced.status).toBe(200);
    expect(forced.body).toEqual({ id: iface.id, deleted: true, accountsRemoved: 3 });
    expect(await revision(nodeId)).toBe(rev + 1);
    expect(await t.query('select id from accounts where interface_id = $1', [iface.id])).toHaveLength(0);
    expect(await t.query('select id from hosts where interface_id = $1', [iface.id])).toHaveLength(0);
    expect(await t.query('select client_id from client_interfaces where interface_id = $1', [iface.id])).toHaveLength(
      0,
    );
    // The devices belong to their clients and stay; only their peers on this interface went.
    expect(await t.query('select id from devices where id = any($1::uuid[])', [deviceIds])).toHaveLength(3);
    expect((await call('GET', `interfaces/${iface.id}`)).status).toBe(404);
  });

  test('one device is counted in the singular', async () => {
    const iface = await createInterface();
    await addDevices({ id: iface.id, nodeId: iface.nodeId, subnet: iface.subnet }, 1);
    expect((await call('DELETE', `interfaces/${iface.id}`)).body.error).toBe(
      '1 device still uses this interface; delete them or pass ?force=true',
    );
  });

  test('DELETE without devices needs no force and bumps the revision once', async () => {
    const nodeId = (await createNode()).id;
    const iface = await createInterface({ nodeId });
    const rev = await revision(nodeId);
    expect((await call('DELETE', `interfaces/${iface.id}`)).body).toEqual({
      id: iface.id,
      deleted: true,
      accountsRemoved: 0,
    });
    expect(await revision(nodeId)).toBe(rev + 1);
  });

  test('unknown ids are 404 naming id', async () => {
    for (const id of [randomUUID(), 'not-a-uuid']) {
      for (const [method, body] of [
        ['GET', undefined],
        ['PATCH', { mtu: 1400 }],
        ['DELETE', undefined],
      ] as const) {
        const response = await call(method, `interfaces/${id}`, body);
        expect({ method, status: response.status, body: response.body }).toEqual({
          method,
          status: 404,
          body: refusal('id', 'interface not found'),
        });
      }
    }
  });
});
