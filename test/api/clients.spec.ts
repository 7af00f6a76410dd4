import { randomUUID } from 'node:crypto';
import { publicKeyFromPrivate } from '../../libs/wireguard/keys.js';
import type { components } from '#libs/api-client/index.js';
import { answer, fixtures } from '../support/fixtures.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';
import { refusal } from '../support/refusal.js';
import { ClientTotals } from '../../apps/controller/src/clients/client-totals.js';
import { InventoryRepository } from '../../apps/controller/src/overview/inventory.repository.js';

let t: TestPanel;
let token: string;
let localNode: string;

beforeAll(async () => {
  t = await startTestPanel();
  token = await t.login();
  [{ id: localNode }] = await t.query<{ id: string }>('select id from nodes where is_local');
});
afterAll(async () => {
  await t?.stop();
});

const { call, typed, createInterface, createNode, createClient, revisions, expectRefused } = fixtures(
  () => ({ t, token }),
  { unchanged: snapshot },
);

/** PATCH /api/clients/{id} through the typed client, answered as `{status, body}`. */
const patchClient = (id: string, body: components['schemas']['UpdateClientDto']) =>
  answer(typed().PATCH('/api/clients/{id}', { params: { path: { id } }, body }));

interface Iface {
  id: string;
  name: string;
  nodeId: string;
  publicKey: string;
  subnet: string;
}

/** Everything a refused request must leave untouched. */
async function snapshot() {
  const [counts] = await t.query(
    `select (select count(*) from clients) as clients, (select count(*) from devices) as devices,
            (select count(*) from accounts) as accounts, (select count(*) from client_interfaces) as links`,
  );
  const cursors = await t.query('select id, allocation_cursor from interfaces order by id');
  const clients = await t.query('select * from clients order by id');
  return { counts, cursors, clients, revisions: await revisions() };
}

describe('POST /api/clients', () => {
  test('creates the client, its first device and one account per interface, and bumps each node once', async () => {
    const remoteNode = (await createNode()).id;
    const a = await createInterface();
    const b = await createInterface({ nodeId: remoteNode });
    const before = await revisions();
    const created = await createClient({
      name: '  alice  ',
      note: 'family plan',
      groups: ['family', 'eu'],
      quotaBytes: 10_000_000,
      deviceLimit: 3,
      interfaceIds: [a.id, b.id],
      deviceNames: ['phone', 'laptop'],
      resetCycle: 'monthly',
      rateBitsPerSec: 50_000_000,
    });
    expect(created).toMatchObject({
      name: 'alice',
      note: 'family plan',
      groups: ['family', 'eu'],
      group: 'family',
      telegramId: null,
      quotaBytes: 10_000_000,
      usedBytes: 0,
      remainingBytes: 10_000_000,
      expiresAt: null,
      deviceLimit: 3,
      deviceCount: 2,
      rateBitsPerSec: 50_000_000,
      resetCycle: 'monthly',
      lastResetAt: null,
      startOnFirstUse: false,
      status: 'active',
    });
    expect(created.subId).toMatch(/^[0-9A-Za-z]{16}$/);
    expect([...created.interfaceIds].sort()).toEqual([a.id, b.id].sort());
    expect(created.devices.map((device: { name: string }) => device.name)).toEqual(['phone', 'laptop']);

    const accounts = await t.query<Record<string, string>>(
      `select a.* from accounts a join devices d on d.id = a.device_id where d.client_id = $1`,
      [created.id],
    );
    expect(accounts).toHaveLength(4);
    for (const account of accounts) {
      expect(publicKeyFromPrivate(account.private_key)).toBe(account.public_key);
      expect(account.preshared_key).toMatch(/^[A-Za-z0-9+/]{43}=$/);
      expect(account.node_id).toBe(account.interface_id === a.id ? a.nodeId : remoteNode);
    }
    expect(new Set(accounts.map((account) => account.public_key)).size).toBe(4);
    expect(new Set(accounts.map((account) => account.preshared_key)).size).toBe(4);
    const ipsOnA = accounts
      .filter((account) => account.interface_id === a.id)
      .map((account) => account.ip)
      .sort();
    expect(ipsOnA).toEqual([`10.${a.subnet.split('.')[1]}.0.2`, `10.${a.subnet.split('.')[1]}.0.3`]);
    const [cursor] = await t.query<{ allocation_cursor: string }>(
      'select allocation_cursor from interfaces where id = $1',
      [a.id],
    );
    expect(Number(cursor.allocation_cursor)).toBeGreaterThan(0);

    // Secrets appear nowhere in the API's JSON.
    const json = JSON.stringify([
      created,
      (await call('GET', `clients/${created.id}`)).body,
      (await call('GET', 'clients')).body,
    ]);
    for (const account of accounts) {
      expect(json).not.toContain(account.private_key);
      expect(json).not.toContain(account.preshared_key);
    }
    expect(json).not.toMatch(/privateKey|presharedKey/);

    const after = await revisions();
    expect(after[a.nodeId]).toBe(before[a.nodeId] + 1);
    expect(after[remoteNode]).toBe(before[remoteNode] + 1);
  });

  test('defaults: one device named device-1, device limit 1, no quota, never expires, active', async () => {
    const iface = await createInterface();
    const created = await createClient({ name: 'bob', interfaceIds: [iface.id] });
    expect(created).toMatchObject({
      deviceLimit: 1,
      deviceCount: 1,
      quotaBytes: 0,
      remainingBytes: null,
      status: 'active',
      groups: [],
      group: null,
      note: '',
    });
    expect(created.devices).toHaveLength(1);
    expect(created.devices[0].name).toBe('device-1');
    expect(created.devices[0].accounts).toHaveLength(1);
    expect(created.devices[0].accounts[0]).toMatchObject({
      interfaceId: iface.id,
      nodeId: localNode,
      ip: expect.stringMatching(/^10\./),
    });
  });

  test("the contract's fields alone (no name): created, named after the Telegram id, or client- and a short random suffix", async () => {
    const iface = await createInterface();
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const contractOnly = {
      telegramId: 987654321012,
      quotaBytes: 5_000_000,
      expiresAt,
      deviceLimit: 2,
      interfaceIds: [iface.id],
    };
    const withTelegram = await answer(typed().POST('/api/clients', { body: contractOnly }));
    expect(withTelegram.status).toBe(201);
    expect(withTelegram.body).toMatchObject({
      name: 'tg-987654321012',
      telegramId: 987654321012,
      quotaBytes: 5_000_000,
      deviceLimit: 2,
      interfaceIds: [iface.id],
      status: 'active',
    });
    expect(Date.parse(withTelegram.body.expiresAt!)).toBe(Date.parse(expiresAt));

    const { telegramId: _none, ...withoutTelegram } = contractOnly;
    const names = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const created = await answer(typed().POST('/api/clients', { body: withoutTelegram }));
      expect(created.status).toBe(201);
      expect(created.body.name).toMatch(/^client-[a-z2-9]{6}$/);
      names.add(created.body.name);
    }
    expect(names.size).toBe(3);
    // A name given wins, as before.
    expect((await createClient({ name: 'named', telegramId: 5, interfaceIds: [iface.id] })).name).toBe('named');
  });

  test('enabled:false creates a disabled client; an expiry in the future is kept', async () => {
    const iface = await createInterface();
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const created = await createClient({ name: 'carol', interfaceIds: [iface.id], enabled: false, expiresAt });
    expect(created.status).toBe('disabled');
    expect(created.expiresAt).toBe(expiresAt);
  });

  test('start on first use stores its duration and no expiry', async () => {
    const iface = await createInterface();
    const created = await createClient({
      name: 'dave',
      interfaceIds: [iface.id],
      startOnFirstUse: true,
      durationDays: 30,
      durationHours: 12,
    });
    expect(created).toMatchObject({
      startOnFirstUse: true,
      durationSeconds: 30 * 86_400 + 12 * 3_600,
      activatedAt: null,
      expiresAt: null,
      status: 'active',
    });
  });

  test('deviceLimit 0 is unlimited and allows many first devices', async () => {
    const iface = await createInterface();
    const names = Array.from({ length: 12 }, (_, i) => `dev-${i}`);
    const created = await createClient({ name: 'erin', interfaceIds: [iface.id], deviceLimit: 0, deviceNames: names });
    expect(created.deviceCount).toBe(12);
    expect(new Set(created.devices.map((device: { accounts: { ip: string }[] }) => device.accounts[0].ip)).size).toBe(
      12,
    );
  });

  describe('refuses bad input with {error, field} and writes nothing', () => {
    let iface: Iface;
    beforeAll(async () => {
      iface = await createInterface();
    });
    const valid = () => ({ name: 'refused', interfaceIds: [iface.id] });

    test('unknown interface ids: 404 on interfaceIds, even next to a known one', async () => {
      await expectRefused(
        'POST',
        'clients',
        { ...valid(), interfaceIds: [randomUUID()] },
        404,
        'interfaceIds',
        /interface .* not found/,
      );
      await expectRefused(
        'POST',
        'clients',
        { ...valid(), interfaceIds: [iface.id, randomUUID()] },
        404,
        'interfaceIds',
      );
    });

    test.each<[string, Record<string, unknown>, string]>([
      ['a malformed interface id', { interfaceIds: ['not-a-uuid'] }, 'interfaceIds'],
      ['no interface', { interfaceIds: [] }, 'interfaceIds'],
      ['interfaceIds missing', { interfaceIds: undefined }, 'interfaceIds'],
      ['a repeated interface', { interfaceIds: 'twice' }, 'interfaceIds'],
      ['an expiry in the past', { expiresAt: '2020-01-01T00:00:00Z' }, 'expiresAt'],
      ['an expiry without a time zone', { expiresAt: '2030-01-01T00:00:00' }, 'expiresAt'],
      ['an expiry that is no date', { expiresAt: 'tomorrow' }, 'expiresAt'],
      ['an expiry its zone carries into year 10000', { expiresAt: '9999-12-31T23:59:59-23:59' }, 'expiresAt'],
      ['a negative quota', { quotaBytes: -1 }, 'quotaBytes'],
      ['a fractional quota', { quotaBytes: 1.5 }, 'quotaBytes'],
      ['a quota as a string', { quotaBytes: '100' }, 'quotaBytes'],
      ['a quota of null', { quotaBytes: null }, 'quotaBytes'],
      ['a device limit above 50', { deviceLimit: 51 }, 'deviceLimit'],
      ['a negative device limit', { deviceLimit: -1 }, 'deviceLimit'],
      ['duplicate device names (case ignored)', { deviceLimit: 3, deviceNames: ['Phone', 'phone'] }, 'deviceNames'],
      ['more device names than the limit', { deviceLimit: 2, deviceNames: ['a', 'b', 'c'] }, 'deviceNames'],
      ['an empty device name', { deviceNames: [' '] }, 'deviceNames'],
      ['a device name that is no string', { deviceNames: [1] }, 'deviceNames'],
      ['a device name that is an object', { deviceNames: [{}] }, 'deviceNames'],
      ['a device name of 65 characters', { deviceNames: ['x'.repeat(65)] }, 'deviceNames'],
      ['a name of null', { name: null }, 'name'],
      ['a blank name', { name: '   ' }, 'name'],
      ['a name of 129 characters', { name: 'n'.repeat(129) }, 'name'],
      ['a note of 513 characters', { note: 'n'.repeat(513) }, 'note'],
      ['21 groups', { groups: Array.from({ length: 21 }, (_, i) => `g${i}`) }, 'groups'],
      ['a group of 65 characters', { groups: ['g'.repeat(65)] }, 'groups'],
      ['a telegram id of 0', { telegramId: 0 }, 'telegramId'],
      ['a telegram id past 2^53 - 1', { telegramId: 9007199254740992 }, 'telegramId'],
      ['a fractional telegram id', { telegramId: 12.5 }, 'telegramId'],
      ['an unknown reset cycle', { resetCycle: 'yearly' }, 'resetCycle'],
      ['a negative rate', { rateBitsPerSec: -5 }, 'rateBitsPerSec'],
      ['start on first use without a duration', { startOnFirstUse: true }, 'durationDays'],
      ['a duration without start on first use', { durationDays: 3 }, 'durationDays'],
      [
        'start on first use with an expiry',
        { startOnFirstUse: true, durationDays: 1, expiresAt: '2099-01-01T00:00:00Z' },
        'expiresAt',
      ],
      ['an unknown field', { colour: 'blue' }, 'colour'],
    ])('%s', async (_, overrides, field) => {
      const body: Record<string, unknown> = { ...valid(), ...overrides };
      if (overrides.interfaceIds === 'twice') body.interfaceIds = [iface.id, iface.id];
      for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key];
      await expectRefused('POST', 'clients', body, 400, field);
    });

    test('a full address pool: 400 naming the interface, suggesting a wider subnet, and nothing allocated elsewhere', async () => {
      const tiny = await createInterface({ subnet: '10.250.0.0/30' }); // room for exactly one device
      await createClient({ name: 'fills-tiny', interfaceIds: [tiny.id] });
      const error = await expectRefused(
        'POST',
        'clients',
        { name: 'no-room', interfaceIds: [iface.id, tiny.id] },
        400,
        'interfaceIds',
      );
      expect(error.error).toContain(`"${tiny.name}"`);
      expect(error.error).toMatch(/wider subnet/);
      await expectRefused(
        'POST',
        'clients',
        { name: 'no-room', deviceLimit: 2, deviceNames: ['a', 'b'], interfaceIds: [tiny.id] },
        400,
        'interfaceIds',
      );
    });
  });
});

describe('telegramId', () => {
  test.each([9007199254740991, 5000000000])('%d round-trips exactly and is found by ?search=', async (telegramId) => {
    const iface = await createInterface();
    const created = await createClient({ name: `tg-${telegramId}`, interfaceIds: [iface.id], telegramId });
    expect(created.telegramId).toBe(telegramId);
    const [stored] = await t.query<{ telegram_id: string }>('select telegram_id::text from clients where id = $1', [
      created.id,
    ]);
    expect(stored.telegram_id).toBe(String(telegramId));
    expect((await call('GET', `clients/${created.id}`)).body.telegramId).toBe(telegramId);
    const found = await call('GET', `clients?search=${telegramId}`);
    expect(found.body.items.map((item: { id: string }) => item.id)).toContain(created.id);
    expect(found.body.items.find((item: { id: string }) => item.id === created.id).telegramId).toBe(telegramId);
  });

  test('digits match the id exactly, not as a prefix; PATCH null clears it', async () => {
    const iface = await createInterface();
    const created = await createClient({ name: 'tg-exact', interfaceIds: [iface.id], telegramId: 123456789012 });
    const prefix = await call('GET', 'clients?search=123456');
    expect(prefix.body.items.map((item: { id: string }) => item.id)).not.toContain(created.id);
    const cleared = await call('PATCH', `clients/${created.id}`, { telegramId: null });
    expect(cleared.body.telegramId).toBeNull();
  });
});

describe('GET /api/clients', () => {
  const ids: Record<string, string> = {};
  let listIface: Iface;
  let other: Iface;

  beforeAll(async () => {
    listIface = await createInterface();
    other = await createInterface();
    const make = async (name: string, body: Record<string, unknown> = {}) => {
      ids[name] = (await createClient({ name, interfaceIds: [listIface.id], ...body })).id;
    };
    await make('zeta Corp', { note: 'VIP customer', groups: ['vip', 'eu'], quotaBytes: 1000 });
    await make('alpha', {
      note: 'pays 50% upfront',
      groups: ['eu'],
      expiresAt: '2099-06-01T00:00:00Z',
      quotaBytes: 5000,
    });
    await make('beta_user', { note: '', groups: ['us'], expiresAt: '2098-01-01T00:00:00Z' });
    await make('gamma', { note: 'zeta referral', interfaceIds: [listIface.id, other.id], enabled: false });
    await t.query(`update clients set used_bytes = 900 where id = $1`, [ids['zeta Corp']]);
    await t.query(`update clients set used_bytes = 100 where id = $1`, [ids.alpha]);
    await t.query(`update clients set used_bytes = 5000 where id = $1`, [ids.gamma]);
  });

  const list = async (query: string) => {
    const response = await call('GET', `clients?interfaceId=${listIface.id}&${query}`);
    expect(response.status).toBe(200);
    return response.body;
  };
  const names = (page: { items: { name: string }[] }) => page.items.map((item) => item.name);

  test('returns {items, total, page, perPage}; newest first by default; 25 per page by default', async () => {
    const page = await list('');
    expect(page).toMatchObject({ total: 4, page: 1, perPage: 25 });
    expect(names(page)).toEqual(['gamma', 'beta_user', 'alpha', 'zeta Corp']);
    const all = await call('GET', 'clients');
    expect(all.body.perPage).toBe(25);
    expect(all.body.items.length).toBeLessThanOrEqual(25);
  });

  test('pages do not overlap and a page past the end is empty', async () => {
    const first = await list('perPage=3&page=1');
    const second = await list('perPage=3&page=2');
    expect(first).toMatchObject({ total: 4, page: 1, perPage: 3 });
    expect(names(first)).toEqual(['gamma', 'beta_user', 'alpha']);
    expect(names(second)).toEqual(['zeta Corp']);
    const beyond = await list('perPage=3&page=9');
    expect(beyond).toEqual({ items: [], total: 4, page: 9, perPage: 3 });
  });

  test('sorts: oldest, name, traffic, remaining, expiry (ties broken by id, unlimited and never last)', async () => {
    expect(names(await list('sort=oldest'))).toEqual(['zeta Corp', 'alpha', 'beta_user', 'gamma']);
    expect(names(await list('sort=newest'))).toEqual(['gamma', 'beta_user', 'alpha', 'zeta Corp']);
    expect(names(await list('sort=name'))).toEqual(['alpha', 'beta_user', 'gamma', 'zeta Corp']);
    expect(names(await list('sort=traffic'))).toEqual(['gamma', 'zeta Corp', 'alpha', 'beta_user']);
    const byId = (a: string, b: string) => (ids[a] < ids[b] ? [a, b] : [b, a]);
    expect(names(await list('sort=remaining'))).toEqual(['zeta Corp', 'alpha', ...byId('beta_user', 'gamma')]);
    expect(names(await list('sort=expiry'))).toEqual(['beta_user', 'alpha', ...byId('zeta Corp', 'gamma')]);
  });

  test('search: case-insensitive substring of name or note; % and _ mean themselves', async () => {
    expect(names(await list('search=ZETA')).sort()).toEqual(['gamma', 'zeta Corp']);
    expect(names(await list('search=vip'))).toEqual(['zeta Corp']);
    expect(names(await list('search=50%25'))).toEqual(['alpha']);
    expect(names(await list('search=5%25'))).toEqual([]);
    expect(names(await list('search=a_u'))).toEqual(['beta_user']);
    expect(names(await list('search=a_'))).toEqual(['beta_user']);
    expect(names(await list('search=nobody-has-this'))).toEqual([]);
  });

  test('filters by status, group and interface', async () => {
    expect(names(await list('status=disabled'))).toEqual(['gamma']);
    expect(names(await list('status=active')).sort()).toEqual(['alpha', 'beta_user', 'zeta Corp']);
    // A status alone is totalled from the inventory counters, any other filter by counting rows.
    expect((await list('status=active')).total).toBe(3);
    expect((await list('status=expired')).total).toBe(0);
    expect((await list('status=active&group=eu')).total).toBe(2);
    expect(names(await list('group=eu')).sort()).toEqual(['alpha', 'zeta Corp']);
    expect(names(await list('group=vip&status=active'))).toEqual(['zeta Corp']);
    const onOther = await call('GET', `clients?interfaceId=${other.id}`);
    expect(names(onOther.body)).toEqual(['gamma']);
  });

  test("a group's and an interface's total are kept counts: exact through creation, edits, links and deletes", async () => {
    const group = `kept-${randomUUID().slice(0, 8)}`;
    const iface = await createInterface();
    const totals = async () => ({
      group: (await call('GET', `clients?group=${group}`)).body.total,
      iface: (await call('GET', `clients?interfaceId=${iface.id.toUpperCase()}`)).body.total,
    });
    // What counting the rows gives, to hold the kept counts against.
    const counted = async () => {
      const [row] = await t.query<{ group: number; iface: number }>(
        `select (select count(*)::int from clients where groups @> array[$1]) as group,
                (select count(*)::int from client_interfaces where interface_id = $2) as iface`,
        [group, iface.id],
      );
      return row;
    };
    const a = (await createClient({ interfaceIds: [iface.id], groups: [group, 'x'] })).id;
    const b = (await createClient({ interfaceIds: [iface.id, listIface.id], groups: [group] })).id;
    const c = (await createClient({ interfaceIds: [listIface.id] })).id;
    expect(await totals()).toEqual({ group: 2, iface: 2 });
    await patchClient(c, { groups: ['y', group], interfaceIds: [iface.id] });
    expect(await totals()).toEqual({ group: 3, iface: 3 });
    await patchClient(a, { groups: ['x'] });
    await patchClient(c, { groups: [group, 'y'] });
    expect(await totals()).toEqual({ group: 2, iface: 3 });
    await answer(typed().DELETE('/api/clients/{id}', { params: { path: { id: b } } }));
    expect(await totals()).toEqual({ group: 1, iface: 2 });
    // Writes the panel's code does not make are counted too (the database keeps the counts).
    await t.query(`update clients set groups = array[$1, 'z'] where id = $2`, [group, a]);
    await t.query(`delete from client_interfaces where client_id = $1 and interface_id = $2`, [c, iface.id]);
    t.panel.app.get(ClientTotals).changed();
    expect(await totals()).toEqual({ group: 2, iface: 1 });
    expect(await counted()).toEqual({ group: 2, iface: 1 });
    // The fold moves the deltas into the counts without changing them; a group of no one is 0.
    await t.panel.app.get(InventoryRepository).fold();
    expect(await totals()).toEqual({ group: 2, iface: 1 });
    expect((await call('GET', `clients?group=${group}-nobody`)).body).toMatchObject({ items: [], total: 0 });
  });

  test("a group's pages are the same rows in the same order whether it is rare or common", async () => {
    const group = `paged-${randomUUID().slice(0, 8)}`;
    const made: string[] = [];
    for (let i = 0; i < 6; i++)
      made.push((await createClient({ name: `paged ${i}`, interfaceIds: [listIface.id], groups: [group] })).id);
    const newestFirst = [...made].reverse();
    // perPage 200 makes any group rare (read from the GIN index), perPage 1 a group of 6 common
    // next to the other clients here (walked along the order's index): both give the same rows.
    const all = await call('GET', `clients?group=${group}&perPage=200`);
    expect(all.body.items.map((item: { id: string }) => item.id)).toEqual(newestFirst);
    expect(all.body.total).toBe(6);
    const walked: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await call('GET', `clients?group=${group}&perPage=1${cursor ? `&cursor=${cursor}` : ''}`);
      walked.push(...page.body.items.map((item: { id: string }) => item.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(walked).toEqual(newestFirst);
    const third = await call('GET', `clients?group=${group}&perPage=2&page=2&sort=oldest`);
    expect(third.body.items.map((item: { id: string }) => item.id)).toEqual(made.slice(2, 4));
  });

  test('items carry the client view, with device count and interface ids', async () => {
    const page = await list('search=gamma');
    expect(page.items[0]).toMatchObject({
      name: 'gamma',
      status: 'disabled',
      deviceCount: 1,
      usedBytes: 5000,
      group: null,
      remainingBytes: null,
    });
    expect([...page.items[0].interfaceIds].sort()).toEqual([listIface.id, other.id].sort());
    expect(page.items[0].devices).toBeUndefined();
  });

  test.each<[string, string]>([
    ['perPage=0', 'perPage'],
    ['perPage=201', 'perPage'],
    ['perPage=abc', 'perPage'],
    ['perPage=2.5', 'perPage'],
    ['page=0', 'page'],
    ['page=-1', 'page'],
    ['page=x', 'page'],
    ['status=gone', 'status'],
    ['sort=random', 'sort'],
    ['interfaceId=nope', 'interfaceId'],
    ['unknown=1', 'unknown'],
  ])('out of range or unknown: ?%s is a 400 naming %s', async (query, field) => {
    const response = await call('GET', `clients?${query}`);
    expect(response.status).toBe(400);
    expect(response.body).toEqual(refusal(field));
  });

  test('perPage 200 is the largest page', async () => {
    const response = await call('GET', 'clients?perPage=200');
    expect(response.status).toBe(200);
    expect(response.body.perPage).toBe(200);
  });
});

describe('GET/PATCH/DELETE /api/clients/{id}', () => {
  test('unknown or malformed ids are 404', async () => {
    for (const id of [randomUUID(), 'nope']) {
      for (const method of ['GET', 'PATCH', 'DELETE']) {
        const response = await call(method, `clients/${id}`, method === 'PATCH' ? { name: 'x' } : undefined);
        expect({ method, status: response.status, field: response.body.field }).toEqual({
          method,
          status: 404,
          field: 'id',
        });
      }
    }
  });

  test('quotes, question marks, backslashes and array syntax survive the raw SQL and search finds them', async () => {
    const iface = await createInterface();
    const name = `O'Brien? 100% \\ {x}`;
    const groups = ['with, "quotes" {braces}', 'back\\slash', "it's"];
    const created = await createClient({
      name,
      note: 'a?b',
      groups,
      interfaceIds: [iface.id],
      deviceNames: [`Bob's "phone"`],
    });
    expect(created).toMatchObject({ name, note: 'a?b', groups, group: groups[0] });
    expect(created.devices[0].name).toBe(`Bob's "phone"`);
    for (const search of [`o'brien?`, '100%', '\\ {', 'a?b']) {
      const found = await call('GET', `clients?search=${encodeURIComponent(search)}`);
      expect({ search, names: found.body.items.map((item: { name: string }) => item.name) }).toEqual({
        search,
        names: [name],
      });
    }
    const byGroup = await call('GET', `clients?group=${encodeURIComponent(groups[0])}`);
    expect(byGroup.body.items.map((item: { id: string }) => item.id)).toEqual([created.id]);
  });

  test('PATCH changes plain fields without touching any node', async () => {
    const iface = await createInterface();
    const client = await createClient({ name: 'patchy', interfaceIds: [iface.id], telegramId: 42 });
    const before = await revisions();
    const patched = await patchClient(client.id, {
      name: ' renamed ',
      note: 'new note',
      groups: ['a'],
      resetCycle: 'weekly',
      deviceLimit: 5,
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      name: 'renamed',
      note: 'new note',
      groups: ['a'],
      group: 'a',
      resetCycle: 'weekly',
      deviceLimit: 5,
      telegramId: 42,
      status: 'active',
    });
    expect(new Date(patched.body.updatedAt).getTime()).toBeGreaterThanOrEqual(new Date(client.updatedAt).getTime());
    expect(await revisions()).toEqual(before);
  });

  test('raising the quota above usage revives exhausted (and bumps); lowering it below exhausts', async () => {
    const iface = await createInterface();
    const client = await createClient({ name: 'quota', interfaceIds: [iface.id], quotaBytes: 1000 });
    await t.query(`update clients set used_bytes = 1500, status = 'exhausted' where id = $1`, [client.id]);
    let before = await revisions();
    const same = await patchClient(client.id, { quotaBytes: 1500 });
    expect(same.body.status).toBe('exhausted');
    expect(await revisions()).toEqual(before);
    const revived = await patchClient(client.id, { quotaBytes: 2000 });
    expect(revived.body).toMatchObject({ status: 'active', remainingBytes: 500 });
    expect((await revisions())[localNode]).toBe(before[localNode] + 1);
    before = await revisions();
    const exhausted = await patchClient(client.id, { quotaBytes: 1200 });
    expect(exhausted.body).toMatchObject({ status: 'exhausted', remainingBytes: 0 });
    expect((await revisions())[localNode]).toBe(before[localNode] + 1);
  });

  test('moving the expiry to the future or clearing it revives expired; a past expiry expires at once', async () => {
    const iface = await createInterface();
    const client = await createClient({ name: 'expiry', interfaceIds: [iface.id], expiresAt: '2099-01-01T00:00:00Z' });
    const expired = await patchClient(client.id, { expiresAt: '2021-01-01T00:00:00Z' });
    expect(expired.body).toMatchObject({ status: 'expired', expiresAt: '2021-01-01T00:00:00.000Z' });
    const future = await patchClient(client.id, { expiresAt: '2099-02-01T00:00:00+02:00' });
    expect(future.body).toMatchObject({ status: 'active', expiresAt: '2099-01-31T22:00:00.000Z' });
    await patchClient(client.id, { expiresAt: '2021-01-01T00:00:00Z' });
    const cleared = await patchClient(client.id, { expiresAt: null });
    expect(cleared.body).toMatchObject({ status: 'active', expiresAt: null });
  });

  test('enabled:false disables; enabled:true recomputes from quota and expiry', async () => {
    const iface = await createInterface();
    const client = await createClient({ name: 'toggle', interfaceIds: [iface.id], quotaBytes: 10 });
    const before = await revisions();
    const disabled = await patchClient(client.id, { enabled: false });
    expect(disabled.body.status).toBe('disabled');
    expect((await revisions())[localNode]).toBe(before[localNode] + 1);
    // Raising the quota or moving the expiry leaves a disabled client disabled.
    expect((await patchClient(client.id, { quotaBytes: 20, expiresAt: '2099-01-01T00:00:00Z' })).body.status).toBe(
      'disabled',
    );
    await t.query(`update clients set used_bytes = 50 where id = $1`, [client.id]);
    expect((await patchClient(client.id, { enabled: true })).body.status).toBe('exhausted');
    await patchClient(client.id, { enabled: false });
    expect((await patchClient(client.id, { enabled: true, quotaBytes: 0 })).body.status).toBe('active');
    await patchClient(client.id, { enabled: false, expiresAt: '2020-06-01T00:00:00Z' });
    expect((await patchClient(client.id, { enabled: true })).body.status).toBe('expired');
  });

  test('deviceLimit cannot go below the device count (409), 0 lifts it', async () => {
    const iface = await createInterface();
    const client = await createClient({
      name: 'limits',
      interfaceIds: [iface.id],
      deviceLimit: 3,
      deviceNames: ['a', 'b'],
    });
    await expectRefused(
      'PATCH',
      `clients/${client.id}`,
      { deviceLimit: 1, name: 'ignored' },
      409,
      'deviceLimit',
      /2 devices/,
    );
    expect((await patchClient(client.id, { deviceLimit: 2 })).body.deviceLimit).toBe(2);
    expect((await patchClient(client.id, { deviceLimit: 0 })).body.deviceLimit).toBe(0);
    await expectRefused('PATCH', `clients/${client.id}`, { deviceLimit: 51 }, 400, 'deviceLimit');
    await expectRefused('PATCH', `clients/${client.id}`, { quotaBytes: -1 }, 400, 'quotaBytes');
    await expectRefused(
      'PATCH',
      `clients/${client.id}`,
      { interfaceIds: [iface.id, randomUUID()] },
      404,
      'interfaceIds',
    );
    await expectRefused('PATCH', `clients/${client.id}`, { interfaceIds: [] }, 400, 'interfaceIds');
    await expectRefused('PATCH', `clients/${client.id}`, { name: null }, 400, 'name');
    await expectRefused('PATCH', `clients/${client.id}`, { subId: 'x' }, 400, 'subId');
  });

  test('interfaceIds: attaching provisions every device on the new interface, detaching removes its accounts', async () => {
    const remoteNode = (await createNode()).id;
    const a = await createInterface();
    const b = await createInterface({ nodeId: remoteNode });
    const client = await createClient({
      name: 'mover',
      interfaceIds: [a.id],
      deviceLimit: 2,
      deviceNames: ['one', 'two'],
    });
    const accountsOf = async () =>
      t.query<{ interface_id: string; ip: string; device_id: string }>(
        `select a.interface_id, a.ip, a.device_id from accounts a join devices d on d.id = a.device_id where d.client_id = $1 order by a.interface_id, a.ip`,
        [client.id],
      );
    const onA = (await accountsOf()).filter((row) => row.interface_id === a.id);

    let before = await revisions();
    const attached = await patchClient(client.id, { interfaceIds: [a.id, b.id] });
    expect(attached.status).toBe(200);
    expect([...attached.body.interfaceIds].sort()).toEqual([a.id, b.id].sort());
    const afterAttach = await accountsOf();
    expect(afterAttach.filter((row) => row.interface_id === b.id)).toHaveLength(2);
    expect(afterAttach.filter((row) => row.interface_id === a.id)).toEqual(onA);
    let after = await revisions();
    expect(after[remoteNode]).toBe(before[remoteNode] + 1);
    expect(after[localNode]).toBe(before[localNode]);

    before = after;
    const detached = await patchClient(client.id, { interfaceIds: [b.id] });
    expect(detached.body.interfaceIds).toEqual([b.id]);
    expect((await accountsOf()).map((row) => row.interface_id)).toEqual([b.id, b.id]);
    after = await revisions();
    expect(after[localNode]).toBe(before[localNode] + 1);
    expect(after[remoteNode]).toBe(before[remoteNode]);
    expect(detached.body.devices.every((device: { accounts: unknown[] }) => device.accounts.length === 1)).toBe(true);
  });

  test('DELETE removes the client with its devices, accounts and links, and bumps its nodes', async () => {
    const iface = await createInterface();
    const client = await createClient({
      name: 'goner',
      interfaceIds: [iface.id],
      deviceLimit: 2,
      deviceNames: ['a', 'b'],
    });
    const before = await revisions();
    const deleted = await answer(typed().DELETE('/api/clients/{id}', { params: { path: { id: client.id } } }));
    expect(deleted).toMatchObject({ status: 200, body: { id: client.id, deleted: true } });
    const [left] = await t.query(
      `select (select count(*) from devices where client_id = $1)::int as devices,
              (select count(*) from client_interfaces where client_id = $1)::int as links,
              (select count(*) from accounts where interface_id = $2)::int as accounts`,
      [client.id, iface.id],
    );
    expect(left).toEqual({ devices: 0, links: 0, accounts: 0 });
    expect((await revisions())[localNode]).toBe(before[localNode] + 1);
    expect((await call('GET', `clients/${client.id}`)).status).toBe(404);
    expect((await call('DELETE', `clients/${client.id}`)).status).toBe(404);
  });
});

describe('POST /api/clients/{id}/reset', () => {
  async function used(clientId: string) {
    await t.query(`update clients set used_bytes = 3000, up_bytes = 1000, down_bytes = 2000 where id = $1`, [clientId]);
    await t.query(`update devices set up_bytes = 1000, down_bytes = 2000 where client_id = $1`, [clientId]);
    await t.query(
      `update accounts set up_bytes = 500, down_bytes = 1000 where device_id in (select id from devices where client_id = $1)`,
      [clientId],
    );
  }

  test('zeroes client, devices and accounts, stamps lastResetAt, revives exhausted and bumps', async () => {
    const iface = await createInterface();
    const client = await createClient({ name: 'resettable', interfaceIds: [iface.id], quotaBytes: 2000 });
    await used(client.id);
    await t.query(`update clients set status = 'exhausted' where id = $1`, [client.id]);
    const before = await revisions();
    const started = Date.now();
    const reset = await answer(typed().POST('/api/clients/{id}/reset', { params: { path: { id: client.id } } }));
    expect(reset.status).toBe(200);
    expect(reset.body.previous).toEqual({ usedBytes: 3000, upBytes: 1000, downBytes: 2000 });
    expect(reset.body.client).toMatchObject({
      id: client.id,
      usedBytes: 0,
      upBytes: 0,
      downBytes: 0,
      status: 'active',
      remainingBytes: 2000,
    });
    expect(new Date(reset.body.client.lastResetAt!).getTime()).toBeGreaterThanOrEqual(started - 1000);
    const [counters] = await t.query(
      `select (select sum(up_bytes + down_bytes) from devices where client_id = $1)::int as devices,
              (select sum(a.up_bytes + a.down_bytes) from accounts a join devices d on d.id = a.device_id where d.client_id = $1)::int as accounts`,
      [client.id],
    );
    expect(counters).toEqual({ devices: 0, accounts: 0 });
    expect((await revisions())[localNode]).toBe(before[localNode] + 1);
  });

  test('leaves expired and disabled clients as they are (no node change)', async () => {
    const iface = await createInterface();
    const expired = await createClient({ name: 'reset-expired', interfaceIds: [iface.id], quotaBytes: 100 });
    await used(expired.id);
    await t.query(`update clients set status = 'expired', expires_at = '2020-01-01' where id = $1`, [expired.id]);
    const disabled = await createClient({
      name: 'reset-disabled',
      interfaceIds: [iface.id],
      quotaBytes: 100,
      enabled: false,
    });
    await used(disabled.id);
    const before = await revisions();
    expect(
      (await answer(typed().POST('/api/clients/{id}/reset', { params: { path: { id: expired.id } } }))).body.client,
    ).toMatchObject({ status: 'expired', usedBytes: 0 });
    expect(
      (await answer(typed().POST('/api/clients/{id}/reset', { params: { path: { id: disabled.id } } }))).body.client,
    ).toMatchObject({ status: 'disabled', usedBytes: 0 });
    expect(await revisions()).toEqual(before);
  });

  test('an unknown client is 404', async () => {
    expect((await call('POST', `clients/${randomUUID()}/reset`)).status).toBe(404);
  });
});
