import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importClients, type ImportQuery } from '../support/client-import.js';
import { fixtures } from '../support/fixtures.js';
import { keyPair, presharedKey, wgEasyFile, writeWgEasyDatabase } from '../support/old-panels.js';
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

const { call, createInterface, createClient, revisions, createToken } = fixtures(() => ({ t, token }));

/** Everything a refused import must leave untouched. */
async function snapshot() {
  const [counts] = await t.query(
    `select (select count(*) from clients) as clients, (select count(*) from devices) as devices,
            (select count(*) from accounts) as accounts, (select count(*) from client_interfaces) as links`,
  );
  const clients = await t.query('select id, name, status, quota_bytes, expires_at, note from clients order by id');
  return { counts, clients, revisions: await revisions() };
}

const run = (file: unknown, query: ImportQuery, as = token) => importClients(t, as, file, query);

/** An interface on 10.<n>.0.0/24 and a wg-easy file of `count` clients on it. */
async function wgEasyOn(n: number, count: number) {
  const iface = await createInterface({ subnet: `10.${n}.0.0/24` });
  // Names of this test alone; addresses from .100, clear of what the panel hands out from .2.
  return { iface, file: wgEasyFile(count, `10.${n}`, { namePrefix: `c${n}-`, first: 98 }) };
}

async function accountOf(publicKey: string) {
  const [row] = await t.query<Record<string, string>>(
    `select a.ip, a.private_key, a.preshared_key, a.interface_id, d.name as device, c.name as client, c.status
       from accounts a join devices d on d.id = a.device_id join clients c on c.id = d.client_id where a.public_key = $1`,
    [publicKey],
  );
  return row;
}

describe('POST /api/clients/import: wg-easy v14 wg0.json', () => {
  test('a preview says what would be created and writes nothing; the apply keeps keys, preshared keys and addresses', async () => {
    const { iface, file } = await wgEasyOn(41, 3);
    const [first, second] = Object.values(file.clients);
    second.enabled = false;
    const before = await snapshot();
    const preview = await run(file, { interfaceId: iface.id, dryRun: true });
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({
      format: 'wg-easy-json',
      dryRun: true,
      applied: false,
      interfaceId: iface.id,
      summary: { rows: 3, created: 3, updated: 0, refused: 0 },
    });
    expect(preview.body.rows[0]).toEqual({
      row: 1,
      name: 'c41-1',
      action: 'create',
      devices: 1,
      addresses: ['10.41.0.100'],
      errors: [],
    });
    // The old server's key is not this interface's: said, with what to do about it.
    expect(preview.body.warnings.join(' ')).toContain(file.server.publicKey);
    expect(await snapshot()).toEqual(before);

    const applied = await run(file, { interfaceId: iface.id });
    expect(applied.status).toBe(200);
    expect(applied.body).toMatchObject({ applied: true, summary: { created: 3, refused: 0 } });
    expect(await accountOf(first.publicKey)).toMatchObject({
      ip: first.address,
      private_key: first.privateKey,
      preshared_key: first.preSharedKey,
      interface_id: iface.id,
      device: 'device-1',
      client: 'c41-1',
      status: 'active',
    });
    expect(await accountOf(second.publicKey)).toMatchObject({ client: 'c41-2', status: 'disabled' });
    const after = await revisions();
    expect(after[iface.nodeId]).toBe(before.revisions[iface.nodeId] + 1);
    // New devices on the interface get addresses the import did not take.
    const later = await createClient({ interfaceIds: [iface.id] });
    expect(['10.41.0.100', '10.41.0.101', '10.41.0.102']).not.toContain(later.devices[0].accounts[0].ip);

    // The same file again: every row is its client already, so each is an update.
    const again = await run(file, { interfaceId: iface.id, dryRun: true });
    expect(again.body.summary).toEqual({ rows: 3, created: 0, updated: 3, refused: 0 });
  });

  test('a half-valid file is refused whole with row-level errors naming row and field, and nothing is written', async () => {
    const { iface, file } = await wgEasyOn(42, 4);
    const rows = Object.values(file.clients);
    rows[1].address = '10.99.0.7'; // another subnet
    rows[2].preSharedKey = 'not-a-key';
    rows[3].publicKey = keyPair().publicKey; // not the private key's
    const before = await snapshot();
    const preview = await run(file, { interfaceId: iface.id, dryRun: true });
    expect(preview.status).toBe(200);
    expect(preview.body.summary).toEqual({ rows: 4, created: 1, updated: 0, refused: 3 });
    expect(preview.body.rows.map((row: { action: string }) => row.action)).toEqual([
      'create',
      'refuse',
      'refuse',
      'refuse',
    ]);
    expect(preview.body.rows[1].errors).toEqual([
      {
        field: 'rows[2].address',
        code: 'outOfRange',
        message: "10.99.0.7 is not an address of the interface's subnet 10.42.0.0/24",
      },
    ]);
    expect(preview.body.rows[2].errors[0].field).toBe('rows[3].preSharedKey');
    expect(preview.body.rows[3].errors[0].field).toBe('rows[4].publicKey');

    const applied = await run(file, { interfaceId: iface.id });
    expect(applied.status).toBe(400);
    expect(applied.body).toEqual(refusal('rows[2].address'));
    expect(applied.body.error).toMatch(/^3 of 4 rows are refused, so nothing was imported; row 2 \("c42-2"\)/);
    expect(applied.body.errors.map((error: { field: string }) => error.field)).toEqual([
      'rows[2].address',
      'rows[3].preSharedKey',
      'rows[4].publicKey',
    ]);
    expect(await snapshot()).toEqual(before);
  });

  test('duplicate names and addresses within the file, and addresses already in use, are refused', async () => {
    const { iface, file } = await wgEasyOn(43, 3);
    const rows = Object.values(file.clients);
    rows[1].name = 'C43-1';
    rows[2].address = rows[0].address;
    const taken = await createClient({ name: 'someone', interfaceIds: [iface.id] });
    const takenIp = taken.devices[0].accounts[0].ip;
    const more = wgEasyFile(1, '10.43', { namePrefix: 'c43-more-', over: (client) => (client.address = takenIp) });
    const preview = await run(
      { ...file, clients: { ...file.clients, ...more.clients } },
      { interfaceId: iface.id, dryRun: true },
    );
    expect(preview.body.rows.map((row: { errors: { field: string; code: string }[] }) => row.errors)).toEqual([
      [],
      [
        expect.objectContaining({
          field: 'rows[2].name',
          code: 'duplicate',
          message: 'the name "C43-1" repeats row 1',
        }),
      ],
      [expect.objectContaining({ field: 'rows[3].address', code: 'duplicate' })],
      [expect.objectContaining({ field: 'rows[4].address', code: 'conflict' })],
    ]);
  });

  test('a name that exists with other keys is refused; an existing client of the file updates', async () => {
    const { iface, file } = await wgEasyOn(44, 1);
    await createClient({ name: 'c44-1', interfaceIds: [iface.id] });
    const preview = await run(file, { interfaceId: iface.id, dryRun: true });
    expect(preview.body.rows[0]).toMatchObject({
      action: 'refuse',
      errors: [expect.objectContaining({ field: 'rows[1].name', code: 'conflict' })],
    });
  });

  test('a file on a subnet the interface does not have: every row refused, naming its address', async () => {
    const iface = await createInterface({ subnet: '10.45.0.0/24' });
    const file = wgEasyFile(2, '10.8');
    const applied = await run(file, { interfaceId: iface.id });
    expect(applied.status).toBe(400);
    expect(applied.body.errors.map((error: { field: string; code: string }) => [error.field, error.code])).toEqual([
      ['rows[1].address', 'outOfRange'],
      ['rows[2].address', 'outOfRange'],
    ]);
  });
});

describe('POST /api/clients/import: other formats', () => {
  test('wg-easy v15: its SQLite database, read with node:sqlite', async () => {
    const { iface, file } = await wgEasyOn(46, 2);
    const dir = mkdtempSync(join(tmpdir(), 'warren-wg-easy-'));
    try {
      await writeWgEasyDatabase(join(dir, 'wg-easy.db'), file);
      const bytes = readFileSync(join(dir, 'wg-easy.db'));
      const applied = await run(bytes, { interfaceId: iface.id });
      expect(applied.status).toBe(200);
      expect(applied.body).toMatchObject({ format: 'wg-easy-sqlite', summary: { created: 2 } });
      const [client] = Object.values(file.clients);
      expect(await accountOf(client.publicKey)).toMatchObject({
        ip: client.address,
        preshared_key: client.preSharedKey,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("W-UI's client export: quota, expiry, groups and every device's keys", async () => {
    const iface = await createInterface({ subnet: '10.47.0.0/24' });
    const [phone, laptop] = [keyPair(), keyPair()];
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const file = {
      clients: [
        {
          name: 'alice',
          note: 'from W-UI',
          groups: ['family'],
          telegramId: 5000000001,
          quotaBytes: 10_000_000,
          usedBytes: 1_000,
          expiresAt,
          deviceLimit: 3,
          status: 'active',
          accounts: [
            { interfaceId: 'wui-1', deviceName: 'phone', ip: '10.47.0.9', ...phone, presharedKey: presharedKey() },
            { interfaceId: 'wui-1', deviceName: 'laptop', ip: '10.47.0.10', ...laptop, presharedKey: presharedKey() },
          ],
        },
      ],
    };
    const applied = await run(file, { interfaceId: iface.id });
    expect(applied.status).toBe(200);
    expect(applied.body).toMatchObject({ format: 'w-ui', summary: { created: 1 } });
    const list = await call('GET', 'clients?search=alice');
    const detail = await call('GET', `clients/${list.body.items[0].id}`);
    expect(detail.body).toMatchObject({
      name: 'alice',
      note: 'from W-UI',
      groups: ['family'],
      telegramId: 5000000001,
      quotaBytes: 10_000_000,
      usedBytes: 1_000,
      deviceLimit: 3,
      status: 'active',
    });
    expect(Date.parse(detail.body.expiresAt)).toBe(Date.parse(expiresAt));
    expect(
      detail.body.devices.map((device: { name: string; accounts: { ip: string }[] }) => [
        device.name,
        device.accounts[0].ip,
      ]),
    ).toEqual([
      ['phone', '10.47.0.9'],
      ['laptop', '10.47.0.10'],
    ]);
  });

  test("Warren's export: keys only in the owner's session; the owner's JSON imports back onto another panel's interface", async () => {
    const iface = await createInterface({ subnet: '10.48.0.0/24' });
    const client = await createClient({
      name: 'exported',
      groups: ['g'],
      quotaBytes: 5,
      interfaceIds: [iface.id],
      deviceNames: ['a', 'b'],
      deviceLimit: 2,
    });
    const json = await call('GET', 'clients/export');
    expect(json.status).toBe(200);
    expect(json.headers.get('content-disposition')).toMatch(
      /attachment; filename="warren-clients-\d{4}-\d\d-\d\d\.json"/,
    );
    expect(json.body).toMatchObject({ format: 'warren-clients', version: 1, withKeys: true });
    const exported = json.body.clients.find((c: { name: string }) => c.name === 'exported');
    expect(exported).toMatchObject({ groups: ['g'], quotaBytes: 5, deviceLimit: 2 });
    expect(exported.devices.map((d: { name: string }) => d.name)).toEqual(['a', 'b']);
    const stored = await t.query<{ private_key: string }>(
      `select a.private_key from accounts a join devices d on d.id = a.device_id where d.client_id = $1 order by d.created_at`,
      [client.id],
    );
    expect(exported.devices[0].accounts[0].privateKey).toBe(stored[0].private_key);

    // An API token, even the owner's, never reads keys; nor does an admin's session.
    const viaToken = await t.call('GET', 'clients/export', { token: (await createToken()).token });
    expect(viaToken.body.withKeys).toBe(false);
    expect(JSON.stringify(viaToken.body)).not.toMatch(/privateKey|presharedKey/);
    const admin = await fixtures(() => ({ t, token })).createUser('admin');
    const asAdmin = await t.call('GET', 'clients/export', { token: admin.token });
    expect(asAdmin.status).toBe(200);
    expect(JSON.stringify(asAdmin.body)).not.toContain(stored[0].private_key);
    const viewer = await fixtures(() => ({ t, token })).createUser('viewer');
    expect((await t.call('GET', 'clients/export', { token: viewer.token })).status).toBe(403);

    const csv = await t.call('GET', 'clients/export?format=csv', { token });
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = String(csv.body).trim().split('\r\n');
    expect(lines[0]).toBe(
      'name,note,groups,telegramId,quotaBytes,usedBytes,expiresAt,deviceLimit,status,device,interface,ip,publicKey,privateKey,presharedKey',
    );
    expect(lines.filter((line) => line.startsWith('exported,'))).toHaveLength(2);
    // A group's clients alone.
    const group = await call('GET', 'clients/export?group=g');
    expect(group.body.clients.map((c: { name: string }) => c.name)).toEqual(['exported']);

    // The JSON back onto a second panel with an interface of the same subnet: same keys, same addresses.
    const other = await startTestPanel();
    try {
      const otherToken = await other.login();
      const target = (
        await other.call('POST', 'interfaces', {
          token: otherToken,
          body: { name: 'wgx', listenPort: 41000, subnet: '10.48.0.0/24', endpointHost: 'vpn.example.com' },
        })
      ).body;
      const mine = { ...json.body, clients: [exported] };
      const imported = await importClients(other, otherToken, mine, { interfaceId: target.id });
      expect(imported.status).toBe(200);
      expect(imported.body).toMatchObject({ format: 'warren', summary: { created: 1 } });
      const [copy] = await other.query<{ private_key: string; ip: string }>(
        `select a.private_key, a.ip from accounts a join devices d on d.id = a.device_id order by d.created_at limit 1`,
      );
      expect(copy).toEqual({ private_key: stored[0].private_key, ip: exported.devices[0].accounts[0].ip });
    } finally {
      await other.stop();
    }
  });
});

describe('POST /api/clients/import: round trips and peers without a preshared key', () => {
  test("Warren's CSV export imports back: the same clients, devices, keys and addresses, and the same CSV again", async () => {
    const iface = await createInterface({ subnet: '10.51.0.0/24' });
    const expiresAt = new Date(Date.now() + 7 * 86_400_000).toISOString();
    // Cells a spreadsheet would compute, the guard quote itself, commas, quotes and a line break.
    const tricky = await createClient({
      name: 'csv, "quoted" =1+1',
      note: "=SUM(A1)\nline two, 'quoted'",
      groups: ['csvtrip', '+plus'],
      telegramId: 5000000002,
      quotaBytes: 7_000_000,
      expiresAt,
      deviceLimit: 2,
      deviceNames: ['phone', '-laptop'],
      interfaceIds: [iface.id],
    });
    const plain = await createClient({ name: "'csv-plain", note: '', groups: ['csvtrip'], interfaceIds: [iface.id] });
    const exportCsv = async () => {
      const csv = await t.call('GET', 'clients/export?format=csv&group=csvtrip', { token });
      expect(csv.status).toBe(200);
      return String(csv.body);
    };
    const accounts = () =>
      t.query(
        `select c.name, d.name as device, a.ip, a.private_key, a.public_key, a.preshared_key
           from accounts a join devices d on d.id = a.device_id join clients c on c.id = d.client_id
          where 'csvtrip' = any(c.groups) order by a.ip`,
      );
    const csv = await exportCsv();
    expect(csv).toContain("'=SUM(A1)");
    const stored = await accounts();
    expect(stored).toHaveLength(3);
    for (const client of [tricky, plain]) expect((await call('DELETE', `clients/${client.id}`)).status).toBe(200);

    const preview = await run(csv, { interfaceId: iface.id, dryRun: true });
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({
      format: 'warren-csv',
      summary: { rows: 2, created: 2, updated: 0, refused: 0 },
      warnings: [],
    });
    const applied = await run(csv, { interfaceId: iface.id });
    expect(applied.status).toBe(200);
    expect(applied.body.summary).toEqual({ rows: 2, created: 2, updated: 0, refused: 0 });
    expect(await accounts()).toEqual(stored);
    const list = await call('GET', 'clients?search=quoted');
    const detail = await call('GET', `clients/${list.body.items[0].id}`);
    expect(detail.body).toMatchObject({
      name: tricky.name,
      note: tricky.note,
      groups: ['csvtrip', '+plus'],
      telegramId: 5000000002,
      quotaBytes: 7_000_000,
      deviceLimit: 2,
    });
    expect(Date.parse(detail.body.expiresAt)).toBe(Date.parse(expiresAt));
    expect(detail.body.devices.map((device: { name: string }) => device.name)).toEqual(['phone', '-laptop']);
    expect(await exportCsv()).toBe(csv);

    // Again: every row is its client already, so each is an update.
    const again = await run(csv, { interfaceId: iface.id, dryRun: true });
    expect(again.body.summary).toEqual({ rows: 2, created: 0, updated: 2, refused: 0 });
  });

  test('a CSV whose device has accounts on two interfaces needs sourceInterface, named by its line', async () => {
    const iface = await createInterface({ subnet: '10.53.0.0/24' });
    const csv = [
      'name,note,groups,telegramId,quotaBytes,usedBytes,expiresAt,deviceLimit,status,device,interface,ip,publicKey,privateKey,presharedKey',
      `two,,,,0,0,,1,active,d,wg1,10.53.0.9,,,`,
      `two,,,,0,0,,1,active,d,wg2,10.99.0.9,,,`,
      '',
    ].join('\r\n');
    const preview = await run(csv, { interfaceId: iface.id, dryRun: true });
    expect(preview.body.rows[0].errors).toEqual([expect.objectContaining({ field: 'rows[1].lines[3].interface' })]);
    const picked = await run(csv, { interfaceId: iface.id, dryRun: true, sourceInterface: 'wg1' });
    expect(picked.body.summary).toMatchObject({ created: 1, refused: 0 });
    expect(picked.body.warnings.join(' ')).toMatch(/carry no keys/);
  });

  test('wg-easy v15 peers without a preshared key are imported without one, and their profiles name none', async () => {
    const { iface, file } = await wgEasyOn(52, 2);
    const [bare, usual] = Object.values(file.clients);
    delete (bare as { preSharedKey?: string }).preSharedKey;
    const dir = mkdtempSync(join(tmpdir(), 'warren-wg-easy-'));
    try {
      await writeWgEasyDatabase(join(dir, 'wg-easy.db'), file);
      const bytes = readFileSync(join(dir, 'wg-easy.db'));
      const preview = await run(bytes, { interfaceId: iface.id, dryRun: true });
      expect(preview.body.summary).toEqual({ rows: 2, created: 2, updated: 0, refused: 0 });
      expect(preview.body.warnings.join(' ')).toMatch(/1 rows have peers without a preshared key/);
      const applied = await run(bytes, { interfaceId: iface.id });
      expect(applied.status).toBe(200);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(await accountOf(bare.publicKey)).toMatchObject({ ip: bare.address, preshared_key: '' });
    expect(await accountOf(usual.publicKey)).toMatchObject({ preshared_key: usual.preSharedKey });
    const profileOf = async (name: string) => {
      const list = await call('GET', `clients?search=${name}`);
      const configs = await call('GET', `clients/${list.body.items[0].id}/configs`);
      return configs.body.devices[0].profiles[0].body as string;
    };
    const bareProfile = await profileOf(bare.name);
    expect(bareProfile).toContain(`PrivateKey = ${bare.privateKey}`);
    expect(bareProfile).not.toContain('PresharedKey');
    expect(await profileOf(usual.name)).toContain(`PresharedKey = ${usual.preSharedKey}`);
  });
});

describe('POST /api/clients/import: bad files and requests', () => {
  test('refused before anything is read or written', async () => {
    const iface = await createInterface({ subnet: '10.49.0.0/24' });
    const before = await snapshot();
    const refused = async (file: unknown, query: ImportQuery, status: number, field: string, contentType?: string) => {
      const answer = await importClients(t, token, file, query, contentType);
      expect({ status: answer.status, body: answer.body }).toEqual({ status, body: refusal(field) });
      return answer.body;
    };
    expect((await refused('not json at all', { interfaceId: iface.id }, 400, 'file')).error).toMatch(
      /neither JSON, a SQLite database nor a Warren CSV export/,
    );
    expect((await refused({ hello: 'world' }, { interfaceId: iface.id }, 400, 'file')).error).toMatch(
      /not a Warren export/,
    );
    await refused(Buffer.from('SQLite format 3\0garbage'), { interfaceId: iface.id }, 400, 'file');
    await refused({ clients: {} }, { interfaceId: iface.id, format: 'w-ui' }, 400, 'file');
    await refused('', { interfaceId: iface.id }, 400, 'file');
    await refused(
      { server: {}, clients: {} },
      { interfaceId: '00000000-0000-4000-8000-000000000000' },
      404,
      'interfaceId',
    );
    await refused({ server: {}, clients: {} }, { interfaceId: 'nope' }, 400, 'interfaceId');
    await refused({ server: {}, clients: {} }, { interfaceId: iface.id }, 415, 'file', 'application/json');
    expect(await snapshot()).toEqual(before);
  });
});
