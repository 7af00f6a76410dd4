import type { PeerCounters } from '../../libs/contracts/agent-link.js';
import { UsageService } from '../../apps/controller/src/clients/usage.service.js';
import { UsageHistoryService } from '../../apps/controller/src/clients/usage-history.service.js';
import { fixtures } from '../support/fixtures.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';

/**
 * Per-client usage history and the current rate (docs/clients.md, "Usage history"), on a real
 * panel and database, driven through the service the agent link calls: the history counts a batch
 * exactly when the totals do, to the byte, through folding into hours and days and pruning; the
 * routes cut the ranges; the rate is bytes over the agent's interval and lapses.
 */

let t: TestPanel;
let token: string;
let usage: UsageService;
let history: UsageHistoryService;

beforeAll(async () => {
  t = await startTestPanel();
  token = await t.login();
  usage = t.panel.app.get(UsageService);
  history = t.panel.app.get(UsageHistoryService);
});

afterAll(async () => {
  await t?.stop();
});

const { call, createNodeWithInterface, createClient, accountsOf, getClient } = fixtures(() => ({ t, token }));

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

async function clientOnNode() {
  const { node, iface } = await createNodeWithInterface();
  const created = await createClient({ interfaceIds: [iface.id], deviceLimit: 2, deviceNames: ['phone', 'laptop'] });
  const keys = (await accountsOf(created.id)).map((row) => row.public_key as string);
  // Traffic comes with a recent handshake (WireGuard moves no data without a session).
  const peer = (key: string, rx: number, tx: number): PeerCounters => ({
    interface: iface.name,
    publicKey: key,
    rxBytes: rx,
    txBytes: tx,
    lastHandshake: Date.now() - 10_000,
    endpoint: null,
  });
  return { nodeId: node.id, clientId: created.id as string, keys, peer };
}

const sum = (points: { v: number }[]) => points.reduce((total, point) => total + point.v, 0);

async function historyRows(clientId: string) {
  return t.query<{ tier: number; up: string; down: string }>(
    `select tier, sum(up_bytes)::text as up, sum(down_bytes)::text as down from client_usage_history
      where client_id = $1 group by tier order by tier`,
    [clientId],
  );
}

test('each batch adds to the current 5-minute row once, to the byte, and the routes show it', async () => {
  const c = await clientOnNode();
  const now = new Date();
  await usage.recordCounters(c.nodeId, 1, [c.peer(c.keys[0], 1000, 5000), c.peer(c.keys[1], 7, 11)], now);
  // A repeat (the agent resent after a reconnect) counts nothing, in the totals or the history.
  expect(await usage.recordCounters(c.nodeId, 1, [c.peer(c.keys[0], 1000, 5000)], now)).toMatchObject({
    duplicate: true,
  });
  await usage.recordCounters(c.nodeId, 2, [c.peer(c.keys[0], 3, 4)], now);
  // A handshake-only report (no bytes) writes no history row.
  await usage.recordCounters(c.nodeId, 3, [{ ...c.peer(c.keys[1], 0, 0), lastHandshake: now.getTime() - 1000 }], now);

  // One row per client and bucket, updated in place: not a row per report.
  expect(await historyRows(c.clientId)).toEqual([{ tier: 300, up: '1010', down: '5015' }]);
  const client = await getClient(c.clientId);
  expect([client.upBytes, client.downBytes]).toEqual([1010, 5015]);

  const shown = await call('GET', `clients/${c.clientId}/usage?range=1h`);
  expect(shown.status).toBe(200);
  expect(shown.body).toMatchObject({ range: '1h', step: 300, points: 12, upBytes: 1010, downBytes: 5015 });
  expect(shown.body.series.up).toHaveLength(12);
  expect(sum(shown.body.series.down)).toBe(5015);
  // The last point holds now; the bytes are in it.
  expect(shown.body.series.down.at(-1)).toEqual({ t: Math.floor(now.getTime() / 300_000) * 300_000, v: 5015 });
  // The default range is 24h.
  expect((await call('GET', `clients/${c.clientId}/usage`)).body).toMatchObject({ range: '24h', points: 48 });

  // The overview's total is the node's row: the same bytes (other tests' nodes add their own).
  const node = await t.query<{ up: string; down: string }>(
    `select up_bytes::text as up, down_bytes::text as down from node_usage_history where node_id = $1`,
    [c.nodeId],
  );
  expect(node).toEqual([{ up: '1010', down: '5015' }]);
  const total = await call('GET', 'overview/usage?range=48h');
  expect(total.status).toBe(200);
  expect(total.body).toMatchObject({ range: '48h', step: 3600, points: 48 });
  expect(total.body.downBytes).toBeGreaterThanOrEqual(5015);
});

test('folding into hours and days and pruning keep every byte exactly once in every range', async () => {
  const c = await clientOnNode();
  const start = Date.now();
  // Traffic over three hours ago, ninety minutes ago and now, then the clock moves on.
  const batches: [number, number, number][] = [
    [start - 3 * HOUR, 100, 1000],
    [start - 90 * 60_000, 20, 200],
    [start - 60_000, 3, 30],
  ];
  let seq = 0;
  for (const [at, up, down] of batches)
    await usage.recordCounters(c.nodeId, ++seq, [c.peer(c.keys[0], up, down)], new Date(at));
  const totals = { upBytes: 123, downBytes: 1230 };

  const ranges = ['1h', '24h', '48h', '7d', '30d', '90d', '1y', '2y'] as const;
  const everyRange = async (now: Date) => {
    for (const range of ranges) {
      const series = await history.client(c.clientId, range, now);
      const expected = range === '1h' && now.getTime() === start ? { upBytes: 3, downBytes: 30 } : totals;
      expect([range, series.upBytes, series.downBytes]).toEqual([range, expected.upBytes, expected.downBytes]);
      expect(sum(series.series.up)).toBe(series.upBytes);
    }
  };
  await everyRange(new Date(start));

  // Closed hours are folded once; the rows of the hour still open stay 5-minute rows.
  await history.maintain(new Date(start));
  const hourly = await historyRows(c.clientId);
  expect(hourly.find((row) => row.tier === 300)).toEqual({ tier: 300, up: '123', down: '1230' });
  expect(Number(hourly.find((row) => row.tier === 3600)?.up ?? 0)).toBeGreaterThanOrEqual(100);
  await everyRange(new Date(start));
  // A second run changes nothing.
  await history.maintain(new Date(start));
  expect(await historyRows(c.clientId)).toEqual(hourly);

  // Three days on: the 5-minute rows are pruned, every byte is in the hourly and daily rows.
  const later = new Date(start + 3 * DAY);
  await history.maintain(later);
  const folded = await historyRows(c.clientId);
  expect(folded).toEqual([
    { tier: 3600, up: '123', down: '1230' },
    { tier: 86400, up: '123', down: '1230' },
  ]);
  for (const range of ['7d', '30d', '90d', '1y', '2y'] as const)
    expect(await history.client(c.clientId, range, later)).toMatchObject(totals);

  // Past 91 days only the daily rows are left, and they still hold everything.
  const much = new Date(start + 100 * DAY);
  await history.maintain(much);
  expect(await historyRows(c.clientId)).toEqual([{ tier: 86400, up: '123', down: '1230' }]);
  expect(await history.client(c.clientId, '1y', much)).toMatchObject(totals);
  expect(await history.client(c.clientId, '30d', much)).toMatchObject({ upBytes: 0, downBytes: 0 });
});

test('a bad range is a 400 naming range, an unknown or malformed client id a 404, and deleting a client deletes its history', async () => {
  const c = await clientOnNode();
  await usage.recordCounters(c.nodeId, 1, [c.peer(c.keys[0], 1, 2)]);
  for (const path of [`clients/${c.clientId}/usage?range=3h`, 'overview/usage?range=forever']) {
    const refused = await call('GET', path);
    expect([refused.status, refused.body.field]).toEqual([400, 'range']);
  }
  const missing = await call('GET', `clients/00000000-0000-4000-8000-000000000000/usage`);
  expect([missing.status, missing.body.field]).toEqual([404, 'id']);
  expect((await call('GET', `clients/not-an-id/usage`)).status).toBe(404);

  expect(await historyRows(c.clientId)).toHaveLength(1);
  expect((await call('DELETE', `clients/${c.clientId}`)).status).toBe(200);
  expect(await historyRows(c.clientId)).toEqual([]);
});

test("the current rate is the latest report's bytes over the agent's interval, summed per client, and lapses", async () => {
  const c = await clientOnNode();
  const now = new Date();
  // Two seconds between the agent's readings: 4000 bytes down on the phone, 2000 on the laptop.
  await usage.recordCounters(c.nodeId, 1, [c.peer(c.keys[0], 1000, 4000), c.peer(c.keys[1], 500, 2000)], now, {
    at: now.getTime(),
    since: now.getTime() - 2000,
  });
  const client = await getClient(c.clientId);
  expect([client.downRate, client.upRate]).toEqual([3000, 750]);
  const phone = client.devices.find((device) => device.name === 'phone')!;
  expect([phone.accounts[0].downRate, phone.accounts[0].upRate]).toEqual([2000, 500]);
  const listed = await call('GET', `clients?search=${encodeURIComponent(client.name)}`);
  expect(listed.body.items[0]).toMatchObject({ id: c.clientId, downRate: 3000, upRate: 750 });

  // A report received long ago (its rate held until then plus an interval) shows no rate now, and
  // a batch without the agent's previous reading time (an older agent) leaves the rate as it was.
  const old = new Date(Date.now() - 60_000);
  await usage.recordCounters(c.nodeId, 2, [c.peer(c.keys[0], 10, 10)], old, {
    at: old.getTime(),
    since: old.getTime() - 2000,
  });
  await usage.recordCounters(c.nodeId, 3, [c.peer(c.keys[0], 10, 10)]);
  const lapsed = await getClient(c.clientId);
  expect([lapsed.downRate, lapsed.upRate]).toEqual([1000, 250]); // the laptop's still holds
});
