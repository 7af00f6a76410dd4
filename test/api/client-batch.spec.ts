import { fixtures } from '../support/fixtures.js';
import { refusal } from '../support/refusal.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';

let t: TestPanel;
let token: string;

beforeAll(async () => {
  t = await startTestPanel();
  token = await t.login();
});
afterAll(async () => {
  await t?.stop();
});

const { call, createInterface, createNode, createClient, revisions, expectRefused, count } = fixtures(
  () => ({ t, token }),
  { unchanged: snapshot },
);

/** Everything a refused batch must leave untouched. */
async function snapshot() {
  const [counts] = await t.query(
    `select (select count(*) from clients) as clients, (select count(*) from devices) as devices,
            (select count(*) from accounts) as accounts, (select count(*) from client_interfaces) as links`,
  );
  const cursors = await t.query('select id, allocation_cursor from interfaces order by id');
  return { counts, cursors, revisions: await revisions() };
}

describe('POST /api/clients/batch', () => {
  test('creates numbered clients with their devices and accounts, one revision per node for the whole batch', async () => {
    const remote = await createNode();
    const a = await createInterface({ subnet: '10.60.0.0/20' });
    const b = await createInterface({ nodeId: remote.id, subnet: '10.61.0.0/20' });
    const before = await revisions();
    const expiresAt = new Date(Date.now() + 30 * 86_400_000).toISOString();
    const answer = await call('POST', 'clients/batch', {
      namePrefix: 'shop-',
      count: 1200,
      start: 7,
      digits: 4,
      groups: ['shop'],
      note: 'batch',
      quotaBytes: 1_000_000,
      expiresAt,
      deviceLimit: 3,
      devicesEach: 2,
      interfaceIds: [a.id, b.id],
    });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({
      created: 1200,
      devices: 2400,
      accounts: 4800,
      first: 'shop-0007',
      last: 'shop-1206',
    });
    expect(answer.body.ids).toHaveLength(1200);

    const after = await revisions();
    expect(after[a.nodeId]).toBe(before[a.nodeId] + 1);
    expect(after[remote.id]).toBe(before[remote.id] + 1);

    const [stored] = await t.query<Record<string, string>>(
      `select count(*) as clients, count(distinct sub_id) as sub_ids, min(name) as first, max(name) as last,
              bool_and(groups = '{shop}' and note = 'batch' and quota_bytes = 1000000 and device_limit = 3
                       and status = 'active' and device_count = 2 and cardinality(interface_ids) = 2) as same
         from clients where name like 'shop-%'`,
    );
    expect(stored).toMatchObject({
      clients: '1200',
      sub_ids: '1200',
      first: 'shop-0007',
      last: 'shop-1206',
      same: true,
    });
    const [accounts] = await t.query<Record<string, string>>(
      `select count(*) as accounts, count(distinct (a.interface_id, a.ip)) as addresses, count(distinct a.public_key) as keys
         from accounts a join devices d on d.id = a.device_id join clients c on c.id = d.client_id where c.name like 'shop-%'`,
    );
    expect(accounts).toEqual({ accounts: '4800', addresses: '4800', keys: '4800' });

    // The first client reads back as POST /api/clients would have made it, its devices in order.
    const first = await call('GET', `clients/${answer.body.ids[0]}`);
    expect(first.body).toMatchObject({ name: 'shop-0007', groups: ['shop'], deviceCount: 2 });
    expect(first.body.devices.map((device: { name: string }) => device.name)).toEqual(['device-1', 'device-2']);
    expect(Date.parse(first.body.expiresAt)).toBe(Date.parse(expiresAt));
    // Newest first lists the batch from its last number down.
    const newest = await call('GET', 'clients?perPage=2&search=shop-');
    expect(newest.body.items.map((item: { name: string }) => item.name)).toEqual(['shop-1206', 'shop-1205']);
  });

  test('a name that exists is refused, naming the first colliding name, before anything is written', async () => {
    const iface = await createInterface();
    await createClient({ name: 'Desk-5', interfaceIds: [iface.id] });
    await createClient({ name: 'desk-3', interfaceIds: [iface.id] });
    const refused = await expectRefused(
      'POST',
      'clients/batch',
      { namePrefix: 'desk-', count: 10, interfaceIds: [iface.id] },
      409,
      'namePrefix',
    );
    expect(refused.error).toContain('"desk-3"');
  });

  test('a pool too small for the batch is refused whole', async () => {
    const iface = await createInterface({ subnet: '10.62.0.0/28' });
    await expectRefused(
      'POST',
      'clients/batch',
      { namePrefix: 'tiny-', count: 14, interfaceIds: [iface.id] },
      400,
      'interfaceIds',
      /no free address left for 14 more devices/,
    );
  });

  test('bad descriptions are refused naming the field', async () => {
    const iface = await createInterface();
    const ok = { namePrefix: 'x-', count: 2, interfaceIds: [iface.id] };
    await expectRefused('POST', 'clients/batch', { ...ok, count: 10_001 }, 400, 'count');
    await expectRefused('POST', 'clients/batch', { ...ok, count: 0 }, 400, 'count');
    await expectRefused('POST', 'clients/batch', { ...ok, namePrefix: '' }, 400, 'namePrefix');
    await expectRefused('POST', 'clients/batch', { ...ok, namePrefix: ' x' }, 400, 'namePrefix');
    await expectRefused(
      'POST',
      'clients/batch',
      { ...ok, namePrefix: 'x'.repeat(101) },
      400,
      'namePrefix',
      /at most 100 characters/,
    );
    await expectRefused('POST', 'clients/batch', { ...ok, devicesEach: 3, deviceLimit: 2 }, 400, 'devicesEach');
    await expectRefused('POST', 'clients/batch', { ...ok, expiresAt: '2001-01-01T00:00:00Z' }, 400, 'expiresAt');
    await expectRefused('POST', 'clients/batch', { ...ok, interfaceIds: [] }, 400, 'interfaceIds');
    await expectRefused('POST', 'clients/batch', { ...ok, telegramId: 5 }, 400, 'telegramId');
    await expectRefused(
      'POST',
      'clients/batch',
      { ...ok, interfaceIds: ['00000000-0000-4000-8000-000000000000'] },
      404,
      'interfaceIds',
    );
    expect(refusal('count')).toBeDefined();
    expect(await count('clients')).toBeGreaterThanOrEqual(0);
  });

  test("a batch in a defined group takes the group's defaults where the description is silent, like one client", async () => {
    const iface = await createInterface({ subnet: '10.66.0.0/24' });
    const group = `grp-${Date.now()}`;
    const saved = await call('POST', 'groups', {
      name: group,
      quotaBytes: 5_000,
      expiryDays: 7,
      deviceLimit: 2,
      interfaceIds: [iface.id],
      rateBitsPerSec: 1_000_000,
    });
    expect(saved.status).toBe(200);
    const before = Date.now();
    const answer = await call('POST', 'clients/batch', {
      namePrefix: 'grouped-',
      count: 3,
      groups: [group],
      quotaBytes: 9,
    });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ created: 3, accounts: 3 });
    const rows = await t.query<Record<string, unknown>>(
      `select quota_bytes::int as quota, device_limit as "deviceLimit", rate_bits_per_sec::int as rate,
              interface_ids as "interfaceIds", expires_at as "expiresAt"
         from clients where name like 'grouped-%'`,
    );
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      expect(row).toMatchObject({ quota: 9, deviceLimit: 2, rate: 1_000_000, interfaceIds: [iface.id] });
      expect(Math.abs((row.expiresAt as Date).getTime() - (before + 7 * 86_400_000))).toBeLessThan(60_000);
    }
    // Neither the description nor a group names an interface: refused.
    const none = await call('POST', 'clients/batch', { namePrefix: 'nowhere-', count: 2 });
    expect([none.status, none.body.field]).toEqual([400, 'interfaceIds']);
  });

  test('a viewer may not create a batch', async () => {
    const iface = await createInterface();
    const viewer = await fixtures(() => ({ t, token })).createUser('viewer');
    const refused = await t.call('POST', 'clients/batch', {
      token: viewer.token,
      body: { namePrefix: 'v-', count: 1, interfaceIds: [iface.id] },
    });
    expect(refused.status).toBe(403);
  });
});
