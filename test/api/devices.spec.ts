import { randomUUID } from 'node:crypto';
import { publicKeyFromPrivate } from '../../libs/wireguard/keys.js';
import type { components } from '#libs/api-client/index.js';
import { answer, fixtures } from '../support/fixtures.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';
import { refusal } from '../support/refusal.js';

let t: TestPanel;
let token: string;

beforeAll(async () => {
  t = await startTestPanel();
  token = await t.login();
});
afterAll(async () => {
  await t?.stop();
});

const { call, typed, createInterface, createNode, createClient, revisions, accountsOf, expectRefused } = fixtures(
  () => ({ t, token }),
  { unchanged: snapshot },
);

/** POST /api/clients/{id}/devices through the typed client, answered as `{status, body}`. */
const addDevice = (clientId: string, body: components['schemas']['CreateDeviceDto']) =>
  answer(typed().POST('/api/clients/{id}/devices', { params: { path: { id: clientId } }, body }));

async function snapshot() {
  const [counts] = await t.query(
    `select (select count(*) from clients) as clients, (select count(*) from devices) as devices,
            (select count(*) from accounts) as accounts, (select count(*) from client_interfaces) as links`,
  );
  return {
    counts,
    cursors: await t.query('select id, allocation_cursor from interfaces order by id'),
    accounts: await t.query('select id, public_key, private_key, preshared_key, ip from accounts order by id'),
    revisions: await revisions(),
  };
}

describe('POST /api/clients/{id}/devices', () => {
  test("creates an account on each of the client's interfaces and bumps their nodes", async () => {
    const remote = (await createNode()).id;
    const a = await createInterface();
    const b = await createInterface({ nodeId: remote });
    const client = await createClient({ interfaceIds: [a.id, b.id], deviceLimit: 2 });
    const before = await revisions();
    const added = await addDevice(client.id, { name: '  Tablet ' });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ clientId: client.id, name: 'Tablet', upBytes: 0, downBytes: 0 });
    expect(added.body.accounts.map((account: { interfaceId: string }) => account.interfaceId).sort()).toEqual(
      [a.id, b.id].sort(),
    );
    const stored = (await accountsOf(client.id)).filter((account) => account.device_id === added.body.id);
    expect(stored).toHaveLength(2);
    for (const account of stored) {
      expect(publicKeyFromPrivate(account.private_key)).toBe(account.public_key);
      expect(JSON.stringify(added.body)).not.toContain(account.private_key);
      expect(JSON.stringify(added.body)).not.toContain(account.preshared_key);
    }
    const after = await revisions();
    expect(after[a.nodeId]).toBe(before[a.nodeId] + 1);
    expect(after[remote]).toBe(before[remote] + 1);
    expect(
      (await answer(typed().GET('/api/clients/{id}', { params: { path: { id: client.id } } }))).body.deviceCount,
    ).toBe(2);
  });

  test('at most deviceLimit devices: the next one is a 409 on deviceLimit; 0 means unlimited', async () => {
    const iface = await createInterface();
    const limited = await createClient({ interfaceIds: [iface.id], deviceLimit: 2 });
    expect((await addDevice(limited.id, { name: 'second' })).status).toBe(201);
    const error = await expectRefused('POST', `clients/${limited.id}/devices`, { name: 'third' }, 409, 'deviceLimit');
    expect(error.error).toMatch(/2 of at most 2/);

    const unlimited = await createClient({ interfaceIds: [iface.id], deviceLimit: 0 });
    for (let i = 0; i < 5; i++) expect((await addDevice(unlimited.id, { name: `n${i}` })).status).toBe(201);
    expect(
      (await answer(typed().GET('/api/clients/{id}', { params: { path: { id: unlimited.id } } }))).body.deviceCount,
    ).toBe(6);
  });

  test('the limit holds under 10 concurrent additions: exactly 3 devices, the rest 409 deviceLimit', async () => {
    const iface = await createInterface();
    const client = await createClient({ interfaceIds: [iface.id], deviceLimit: 3 }); // device-1 counts
    const before = await revisions();
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => addDevice(client.id, { name: `parallel-${i}` })),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([201, 201, 409, 409, 409, 409, 409, 409, 409, 409]);
    for (const response of responses.filter((r) => r.status === 409)) {
      expect(response.body).toEqual(refusal('deviceLimit'));
    }
    const [row] = await t.query<{ devices: number; accounts: number }>(
      `select (select count(*) from devices where client_id = $1)::int as devices,
              (select count(*) from accounts a join devices d on d.id = a.device_id where d.client_id = $1)::int as accounts`,
      [client.id],
    );
    expect(row).toEqual({ devices: 3, accounts: 3 });
    expect((await revisions())[iface.nodeId]).toBe(before[iface.nodeId] + 2);
  });

  test('concurrent additions to different clients on one interface get distinct addresses', async () => {
    const iface = await createInterface();
    const clients = await Promise.all(
      Array.from({ length: 4 }, () => createClient({ interfaceIds: [iface.id], deviceLimit: 0 })),
    );
    const responses = await Promise.all(
      clients.flatMap((client) => Array.from({ length: 3 }, (_, i) => addDevice(client.id, { name: `x${i}` }))),
    );
    expect(responses.every((response) => response.status === 201)).toBe(true);
    const ips = await t.query<{ ip: string }>('select ip from accounts where interface_id = $1', [iface.id]);
    expect(ips).toHaveLength(16);
    expect(new Set(ips.map((row) => row.ip)).size).toBe(16);
  });

  test('device names are unique per client regardless of case: 409 on name', async () => {
    const iface = await createInterface();
    const client = await createClient({ interfaceIds: [iface.id], deviceLimit: 0, deviceNames: ['Phone'] });
    await expectRefused('POST', `clients/${client.id}/devices`, { name: 'phone' }, 409, 'name');
    // Another client may use the same name.
    const other = await createClient({ interfaceIds: [iface.id], deviceLimit: 0 });
    expect((await addDevice(other.id, { name: 'phone' })).status).toBe(201);
  });

  test('bad input and unknown clients write nothing', async () => {
    const iface = await createInterface();
    const client = await createClient({ interfaceIds: [iface.id], deviceLimit: 0 });
    await expectRefused('POST', `clients/${client.id}/devices`, { name: '' }, 400, 'name');
    await expectRefused('POST', `clients/${client.id}/devices`, { name: 'x'.repeat(65) }, 400, 'name');
    await expectRefused('POST', `clients/${client.id}/devices`, {}, 400, 'name');
    await expectRefused('POST', `clients/${client.id}/devices`, { name: 'ok', extra: 1 }, 400, 'extra');
    await expectRefused('POST', `clients/${randomUUID()}/devices`, { name: 'ok' }, 404, 'id');
    await expectRefused('POST', `clients/not-an-id/devices`, { name: 'ok' }, 404, 'id');
  });

  test('a full pool: 400 on interfaceIds naming the interface; no device, no account', async () => {
    const roomy = await createInterface();
    const tiny = await createInterface({ subnet: '10.251.0.0/29' }); // 5 usable addresses
    const client = await createClient({
      interfaceIds: [roomy.id, tiny.id],
      deviceLimit: 0,
      deviceNames: ['1', '2', '3', '4', '5'],
    });
    const error = await expectRefused('POST', `clients/${client.id}/devices`, { name: 'sixth' }, 400, 'interfaceIds');
    expect(error.error).toContain(`"${tiny.name}"`);
    expect(error.error).toMatch(/wider subnet/);
  });
});

describe('DELETE /api/devices/{id}', () => {
  test('removes the device and its accounts, bumps the nodes; its address is not handed out again at once', async () => {
    const iface = await createInterface();
    const client = await createClient({ interfaceIds: [iface.id], deviceLimit: 0, deviceNames: ['keep', 'drop'] });
    const drop = client.devices.find((device) => device.name === 'drop')!;
    const freed = drop.accounts[0].ip;
    const before = await revisions();
    const deleted = await answer(typed().DELETE('/api/devices/{id}', { params: { path: { id: drop.id } } }));
    expect(deleted).toMatchObject({ status: 200, body: { id: drop.id, deleted: true } });
    expect(await t.query('select 1 from accounts where device_id = $1', [drop.id])).toHaveLength(0);
    expect((await revisions())[iface.nodeId]).toBe(before[iface.nodeId] + 1);

    const next = await addDevice(client.id, { name: 'drop' });
    expect(next.status).toBe(201);
    expect(next.body.accounts[0].ip).not.toBe(freed);

    expect((await call('DELETE', `devices/${drop.id}`)).status).toBe(404);
    expect((await call('DELETE', `devices/${randomUUID()}`)).body).toEqual(refusal('id', 'device not found'));
    expect((await call('DELETE', 'devices/nope')).status).toBe(404);
  });
});

describe('POST /api/clients/{id}/rotate-keys', () => {
  test('new key pairs and preshared keys for every account, same addresses, one bump per node', async () => {
    const remote = (await createNode()).id;
    const a = await createInterface();
    const b = await createInterface({ nodeId: remote });
    const client = await createClient({ interfaceIds: [a.id, b.id], deviceLimit: 2, deviceNames: ['one', 'two'] });
    const old = await accountsOf(client.id);
    const before = await revisions();
    const rotated = await answer(
      typed().POST('/api/clients/{id}/rotate-keys', { params: { path: { id: client.id } } }),
    );
    expect(rotated.status).toBe(200);
    const fresh = await accountsOf(client.id);
    expect(fresh).toHaveLength(4);
    for (const account of fresh) {
      const previous = old.find((row) => row.id === account.id)!;
      expect(account.ip).toBe(previous.ip);
      expect(account.public_key).not.toBe(previous.public_key);
      expect(account.private_key).not.toBe(previous.private_key);
      expect(account.preshared_key).not.toBe(previous.preshared_key);
      expect(publicKeyFromPrivate(account.private_key)).toBe(account.public_key);
      expect(JSON.stringify(rotated.body)).not.toContain(account.private_key);
      expect(JSON.stringify(rotated.body)).not.toContain(account.preshared_key);
    }
    const shown = rotated.body.devices.flatMap((device: { accounts: { publicKey: string }[] }) =>
      device.accounts.map((account) => account.publicKey),
    );
    expect(shown.sort()).toEqual(fresh.map((account) => account.public_key).sort());
    const after = await revisions();
    expect(after[a.nodeId]).toBe(before[a.nodeId] + 1);
    expect(after[remote]).toBe(before[remote] + 1);
  });

  test('an unknown client is 404 and nothing changes', async () => {
    await expectRefused('POST', `clients/${randomUUID()}/rotate-keys`, undefined, 404, 'id');
  });
});
