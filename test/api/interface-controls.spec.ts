import { randomUUID } from 'node:crypto';
import { fixtures } from '../support/fixtures.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';

/**
 * An interface's controls (docs/interfaces.md, "Controls"): `reset-usage` zeroes its accounts and
 * takes exactly their bytes off their devices' and clients' totals, nothing of other interfaces.
 * On real tunnels: test/e2e/interface-controls.spec.ts.
 */
let t: TestPanel;
let token: string;

beforeAll(async () => {
  t = await startTestPanel();
  token = await t.login();
});
afterAll(async () => {
  await t?.stop();
});

const { call, createNodeWithInterface, createInterface, createClient, accountsOf, getClient, revision } = fixtures(
  () => ({ t, token }),
);

/** Sets an account's counters and adds them to its device and client, as reported usage does. */
async function count(accountId: string, up: number, down: number): Promise<void> {
  await t.query(
    `with a as (update accounts set up_bytes = up_bytes + $2, down_bytes = down_bytes + $3 where id = $1 returning device_id),
          d as (update devices set up_bytes = up_bytes + $2, down_bytes = down_bytes + $3
                 where id = (select device_id from a) returning client_id)
     update clients set up_bytes = up_bytes + $2, down_bytes = down_bytes + $3, used_bytes = used_bytes + $2 + $3
      where id = (select client_id from d)`,
    [accountId, up, down],
  );
}

test("reset-usage zeroes the interface's accounts and takes exactly their bytes off devices and clients", async () => {
  const { node, iface } = await createNodeWithInterface();
  const other = await createInterface({ nodeId: node.id });
  const both = await createClient({
    interfaceIds: [iface.id, other.id],
    deviceNames: ['phone', 'laptop'],
    deviceLimit: 2,
  });
  const only = await createClient({ interfaceIds: [iface.id] });
  const elsewhere = await createClient({ interfaceIds: [other.id] });
  const clientIds = [both.id, only.id, elsewhere.id];
  const accounts = [
    ...(await accountsOf(both.id)),
    ...(await accountsOf(only.id)),
    ...(await accountsOf(elsewhere.id)),
  ];
  const counted = new Map<string, [number, number]>();
  let expectedBytes = 0;
  for (const [i, account] of accounts.entries()) {
    const up = 1_000_003 * (i + 1);
    const down = 7_000_001 * (i + 1);
    await count(account.id, up, down);
    counted.set(account.id, [up, down]);
    if (account.interface_id === iface.id) expectedBytes += up + down;
  }

  const reset = await call('POST', `interfaces/${iface.id}/reset-usage`);
  expect(reset.status).toBe(200);
  expect(reset.body).toEqual({ id: iface.id, accounts: 3, bytes: expectedBytes, statusChanged: 0 });

  // Its accounts are at zero; the other interface's keep what they counted.
  const after = await t.query<{ id: string; interface_id: string; up_bytes: string; down_bytes: string }>(
    `select a.id, a.interface_id, a.up_bytes, a.down_bytes from accounts a join devices d on d.id = a.device_id
      where d.client_id = any($1::uuid[])`,
    [clientIds],
  );
  expect(after).toHaveLength(accounts.length);
  for (const row of after)
    expect([row.id, Number(row.up_bytes), Number(row.down_bytes)]).toEqual([
      row.id,
      ...(row.interface_id === iface.id ? [0, 0] : counted.get(row.id)!),
    ]);
  // Devices and clients hold exactly the sum of what their accounts hold now.
  for (const id of clientIds) {
    const client = await getClient(id);
    const [sum] = await t.query<{ up: string; down: string }>(
      `select coalesce(sum(a.up_bytes), 0) as up, coalesce(sum(a.down_bytes), 0) as down
         from accounts a join devices d on d.id = a.device_id where d.client_id = $1`,
      [id],
    );
    expect([client.upBytes, client.downBytes, client.usedBytes]).toEqual([
      Number(sum.up),
      Number(sum.down),
      Number(sum.up) + Number(sum.down),
    ]);
    for (const device of client.devices) {
      const [row] = await t.query<{ up: string; down: string }>(
        'select sum(up_bytes) as up, sum(down_bytes) as down from accounts where device_id = $1',
        [device.id],
      );
      expect([device.upBytes, device.downBytes]).toEqual([Number(row.up), Number(row.down)]);
    }
  }
  expect((await getClient(only.id)).usedBytes).toBe(0);
});

test('an exhausted client under its quota again is active, and its node is told; an unknown interface is 404', async () => {
  const { node, iface } = await createNodeWithInterface();
  const client = await createClient({ interfaceIds: [iface.id], quotaBytes: 1000 });
  const [account] = await accountsOf(client.id);
  await count(account.id, 600, 600);
  await t.query(`update clients set status = 'exhausted' where id = $1`, [client.id]);
  const before = await revision(node.id);
  const reset = await call('POST', `interfaces/${iface.id}/reset-usage`);
  expect(reset.body).toMatchObject({ accounts: 1, bytes: 1200, statusChanged: 1 });
  expect((await getClient(client.id)).status).toBe('active');
  expect(await revision(node.id)).toBe(before + 1);

  const unknown = await call('POST', `interfaces/${randomUUID()}/reset-usage`);
  expect([unknown.status, unknown.body.field]).toEqual([404, 'id']);
});

test("clear removes the interface's accounts and detaches its clients, only when confirm names it", async () => {
  const { node, iface } = await createNodeWithInterface();
  const other = await createInterface({ nodeId: node.id });
  const client = await createClient({
    interfaceIds: [iface.id, other.id],
    deviceNames: ['phone', 'laptop'],
    deviceLimit: 2,
  });
  const bystander = await createClient({ interfaceIds: [other.id] });
  const accountsBefore = await t.query('select id from accounts order by id');

  for (const confirm of ['wrong-name', other.name]) {
    const refused = await call('POST', `interfaces/${iface.id}/clear`, { confirm });
    expect([refused.status, refused.body.field]).toEqual([400, 'confirm']);
  }
  expect(await t.query('select id from accounts order by id')).toEqual(accountsBefore);
  const before = await revision(node.id);

  const cleared = await call('POST', `interfaces/${iface.id}/clear`, { confirm: iface.name });
  expect(cleared.status).toBe(200);
  expect(cleared.body).toEqual({ id: iface.id, accountsRemoved: 2, clientsDetached: 1 });
  expect(await t.query('select id from accounts where interface_id = $1', [iface.id])).toEqual([]);
  expect((await accountsOf(client.id)).map((account) => account.interface_id)).toEqual([other.id, other.id]);
  expect((await getClient(client.id)).interfaceIds).toEqual([other.id]);
  expect(await accountsOf(bystander.id)).toHaveLength(1);
  expect(await revision(node.id)).toBe(before + 1);
  // The interface stays.
  expect((await call('GET', `interfaces/${iface.id}`)).status).toBe(200);

  const unknown = await call('POST', `interfaces/${randomUUID()}/clear`, { confirm: iface.name });
  expect([unknown.status, unknown.body.field]).toEqual([404, 'id']);
});

test("clone makes an interface on the same node with the source's settings, new keys and no accounts", async () => {
  const { node, iface } = await createNodeWithInterface({
    interface: { subnet: '10.91.0.0/24', mtu: 1380, dns: ['10.91.0.1'], endpointHost: 'vpn.example.net' },
  });
  await createClient({ interfaceIds: [iface.id] });
  const before = await revision(node.id);
  const cloned = await call('POST', `interfaces/${iface.id}/clone`, {
    name: `${iface.name.slice(0, 10)}c`,
    listenPort: iface.listenPort + 1,
    subnet: '10.92.0.0/24',
  });
  expect(cloned.status).toBe(201);
  expect(cloned.body).toMatchObject({
    nodeId: node.id,
    mode: iface.mode,
    listenPort: iface.listenPort + 1,
    subnet: '10.92.0.0/24',
    endpointHost: 'vpn.example.net',
    mtu: 1380,
    // DNS at the source's own gateway follows to the clone's.
    dns: ['10.92.0.1'],
    enabled: true,
    allocated: 0,
    clients: 0,
  });
  expect(cloned.body.id).not.toBe(iface.id);
  expect(cloned.body.publicKey).not.toBe(iface.publicKey);
  expect(await t.query('select id from accounts where interface_id = $1', [cloned.body.id])).toEqual([]);
  expect(await revision(node.id)).toBe(before + 1);
  // Name, port and subnet must be free on the node, as for any new interface.
  const clash = await call('POST', `interfaces/${iface.id}/clone`, {
    name: 'other0',
    listenPort: iface.listenPort,
    subnet: '10.93.0.0/24',
  });
  expect([clash.status, clash.body.field]).toEqual([409, 'listenPort']);
});
