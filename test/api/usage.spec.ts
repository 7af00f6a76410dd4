import { jest } from '@jest/globals';
import { generateKeyPair } from '../../libs/wireguard/keys.js';
import type { PeerCounters } from '../../libs/contracts/agent-link.js';
import { UsageService } from '../../apps/controller/src/clients/usage.service.js';
import { CounterCommits } from '../../apps/controller/src/clients/counter-commits.js';
import { PanelMetrics } from '../../apps/controller/src/metrics/panel-metrics.js';
import { answer, fixtures } from '../support/fixtures.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';

/**
 * Accounting rules on a real panel and database, driven through the service the agent link calls
 * (the link itself is covered end to end in test/e2e/agent-*.spec.ts): each batch counts once,
 * bytes add up from account to device to client, quota exhaustion takes peers off the node,
 * start-on-first-use starts at the first handshake.
 */

let t: TestPanel;
let token: string;
let usage: UsageService;
let commits: CounterCommits;

beforeAll(async () => {
  t = await startTestPanel();
  token = await t.login();
  usage = t.panel.app.get(UsageService);
  commits = t.panel.app.get(CounterCommits);
});

afterAll(async () => {
  await t?.stop();
});

const { call, typed, createNodeWithInterface, createClient, accountsOf, getClient, revision } = fixtures(() => ({
  t,
  token,
}));

interface Fixture {
  nodeId: string;
  ifname: string;
  ifaceId: string;
}

/** A node of its own with one interface. */
async function fixture(): Promise<Fixture> {
  const { node, iface } = await createNodeWithInterface();
  // Creating a node gave it an agent row (its enrolment); counters are claimed against it.
  expect(await t.query('select 1 from node_agents where node_id = $1', [node.id])).toHaveLength(1);
  return { nodeId: node.id, ifname: iface.name, ifaceId: iface.id };
}

/** A client on the fixture's interface; its id and its accounts' peer keys and devices, in device order. */
async function clientOn(f: Fixture, body: Record<string, unknown> = {}) {
  const created = await createClient({ interfaceIds: [f.ifaceId], ...body });
  const accounts = await accountsOf(created.id);
  return {
    id: created.id as string,
    keys: accounts.map((row) => row.public_key as string),
    deviceIds: accounts.map((row) => row.device_id as string),
  };
}

function peer(
  f: Fixture,
  publicKey: string,
  rx: number,
  tx: number,
  lastHandshake: number | null = null,
): PeerCounters {
  return { interface: f.ifname, publicKey, rxBytes: rx, txBytes: tx, lastHandshake, endpoint: '198.51.100.7:40000' };
}

test('bytes add up from accounts to devices to the client; a repeated sequence number counts nothing', async () => {
  const f = await fixture();
  const c = await clientOn(f, { deviceLimit: 2, deviceNames: ['phone', 'laptop'] });
  const handshake = Date.now() - 5000;
  const first = await usage.recordCounters(f.nodeId, 1, [
    peer(f, c.keys[0], 1000, 5000, handshake),
    peer(f, c.keys[1], 200, 300),
  ]);
  expect(first).toEqual({ duplicate: false, matched: 2, transitions: 0 });
  expect(await usage.recordCounters(f.nodeId, 1, [peer(f, c.keys[0], 1000, 5000)])).toMatchObject({ duplicate: true });
  expect(await usage.recordCounters(f.nodeId, 2, [peer(f, c.keys[0], 1, 2)])).toMatchObject({
    duplicate: false,
    matched: 1,
  });

  const view = await getClient(c.id);
  expect(view).toMatchObject({ upBytes: 1201, downBytes: 5302, usedBytes: 6503, onlineNow: true });
  expect(new Date(view.lastHandshake!).getTime()).toBe(handshake);
  const devices = view.devices;
  const phone = devices.find((d) => d.id === c.deviceIds[0])!;
  expect(phone).toMatchObject({ upBytes: 1001, downBytes: 5002, onlineNow: true });
  expect(phone.accounts[0]).toMatchObject({ upBytes: 1001, downBytes: 5002, lastEndpoint: '198.51.100.7:40000' });
  const laptop = devices.find((d: { id: string }) => d.id === c.deviceIds[1]);
  expect(laptop).toMatchObject({ upBytes: 200, downBytes: 300, lastHandshake: null, onlineNow: false });
});

test('a peer the node has no account for is ignored; another node cannot count for this node', async () => {
  const f = await fixture();
  const other = await fixture();
  const c = await clientOn(f);
  const stranger = generateKeyPair().publicKey;
  // The other node names this node's peer on its own interface name: no match there.
  expect(
    await usage.recordCounters(other.nodeId, 1, [peer(other, c.keys[0], 999, 999), peer(f, c.keys[0], 999, 999)]),
  ).toMatchObject({ matched: 0 });
  expect(await usage.recordCounters(f.nodeId, 1, [peer(f, stranger, 10, 10)])).toMatchObject({ matched: 0 });
  expect((await getClient(c.id)).usedBytes).toBe(0);
});

test('reaching the quota exhausts the client and takes its peers off the node; reset revives', async () => {
  const f = await fixture();
  const c = await clientOn(f, { quotaBytes: 10_000 });
  const before = await revision(f.nodeId);
  expect(await usage.recordCounters(f.nodeId, 1, [peer(f, c.keys[0], 4000, 4000)])).toMatchObject({ transitions: 0 });
  expect((await getClient(c.id)).status).toBe('active');
  expect(await revision(f.nodeId)).toBe(before);
  expect(await usage.recordCounters(f.nodeId, 2, [peer(f, c.keys[0], 1000, 1000)])).toMatchObject({ transitions: 1 });
  expect((await getClient(c.id)).status).toBe('exhausted');
  expect(await revision(f.nodeId)).toBe(before + 1);
  const desired = await t.query<{ n: string }>(
    `select count(*) as n from accounts a join devices d on d.id = a.device_id join clients c on c.id = d.client_id
      where a.node_id = $1 and c.status = 'active'`,
    [f.nodeId],
  );
  expect(Number(desired[0].n)).toBe(0);

  expect((await answer(typed().POST('/api/clients/{id}/reset', { params: { path: { id: c.id } } }))).status).toBe(200);
  expect(await getClient(c.id)).toMatchObject({ status: 'active', usedBytes: 0 });
  expect(await revision(f.nodeId)).toBe(before + 2);
});

test('start on first use: the first handshake starts the period, once', async () => {
  const f = await fixture();
  const c = await clientOn(f, { startOnFirstUse: true, durationDays: 30 });
  expect((await getClient(c.id)).activatedAt).toBeNull();
  // Traffic counters without a handshake do not start it.
  await usage.recordCounters(f.nodeId, 1, [peer(f, c.keys[0], 0, 0, null)]);
  expect((await getClient(c.id)).activatedAt).toBeNull();
  const now = new Date('2026-12-01T10:00:00Z');
  await usage.recordCounters(f.nodeId, 2, [peer(f, c.keys[0], 100, 100, now.getTime() - 1000)], now);
  const started = await getClient(c.id);
  expect(new Date(started.activatedAt!).toISOString()).toBe(now.toISOString());
  expect(new Date(started.expiresAt!).toISOString()).toBe(new Date(now.getTime() + 30 * 86_400_000).toISOString());
  await usage.recordCounters(
    f.nodeId,
    3,
    [peer(f, c.keys[0], 100, 100, now.getTime() + 60_000)],
    new Date(now.getTime() + 120_000),
  );
  expect(new Date((await getClient(c.id)).activatedAt!).toISOString()).toBe(now.toISOString());
});

test('concurrent batches of two nodes on one client all count, repeats never', async () => {
  const a = await fixture();
  const b = await fixture();
  const response = await answer(
    typed().POST('/api/clients', { body: { name: 'both', interfaceIds: [a.ifaceId, b.ifaceId] } }),
  );
  const keys = await t.query<{ public_key: string; node_id: string }>(
    'select a.public_key, a.node_id from accounts a join devices d on d.id = a.device_id where d.client_id = $1',
    [response.body.id],
  );
  const keyOn = (nodeId: string) => keys.find((row) => row.node_id === nodeId)!.public_key;
  // Each node's agent sends in order; the two nodes' batches interleave and touch the same client row.
  const send = async (f: Fixture) => {
    for (let seq = 1; seq <= 20; seq++) await usage.recordCounters(f.nodeId, seq, [peer(f, keyOn(f.nodeId), 10, 1)]);
  };
  await Promise.all([send(a), send(b), send(a).catch(() => undefined)]);
  // The third sender repeats node a's numbers concurrently: every repeat is refused, none counts twice.
  expect(await getClient(response.body.id)).toMatchObject({ upBytes: 400, downBytes: 40, usedBytes: 440 });
});

describe('client summaries kept on the client row (device count, latest handshake, interface ids)', () => {
  /** Clients whose summaries differ from what their devices and interface links say. */
  const drifted = () =>
    t.query(`select c.id from clients c
      where c.device_count <> (select count(*) from devices d where d.client_id = c.id)
         or c.last_handshake is distinct from (select max(d.last_handshake) from devices d where d.client_id = c.id)
         or c.interface_ids <> array(select ci.interface_id::text from client_interfaces ci where ci.client_id = c.id order by ci.interface_id)`);

  test('they follow devices added and deleted, interfaces attached, detached and deleted, and counter batches; the list shows them', async () => {
    const f = await fixture();
    const g = await fixture();
    const c = await clientOn(f, { deviceLimit: 3, deviceNames: ['phone', 'laptop'] });
    expect(await getClient(c.id)).toMatchObject({ deviceCount: 2, interfaceIds: [f.ifaceId], lastHandshake: null });

    await answer(
      typed().PATCH('/api/clients/{id}', {
        params: { path: { id: c.id } },
        body: { interfaceIds: [g.ifaceId, f.ifaceId] },
      }),
    );
    expect((await getClient(c.id)).interfaceIds).toEqual([f.ifaceId, g.ifaceId].sort());

    const early = Date.now() - 60_000;
    const late = Date.now() - 1000;
    await usage.recordCounters(f.nodeId, 1, [peer(f, c.keys[0], 1, 1, early), peer(f, c.keys[1], 1, 1, late)]);
    expect(new Date((await getClient(c.id)).lastHandshake!).getTime()).toBe(late);
    // An older handshake never moves it back.
    await usage.recordCounters(f.nodeId, 2, [peer(f, c.keys[1], 1, 1, early)]);
    expect(new Date((await getClient(c.id)).lastHandshake!).getTime()).toBe(late);

    // The device with the latest handshake goes: the client's falls back to the other device's.
    expect((await call('DELETE', `devices/${c.deviceIds[1]}`)).status).toBe(200);
    const afterDelete = await getClient(c.id);
    expect(afterDelete.deviceCount).toBe(1);
    expect(new Date(afterDelete.lastHandshake!).getTime()).toBe(early);
    await answer(
      typed().POST('/api/clients/{id}/devices', { params: { path: { id: c.id } }, body: { name: 'tablet' } }),
    );
    expect((await getClient(c.id)).deviceCount).toBe(2);

    // An interface deleted by force takes its links with it (a cascade, not the clients' code).
    expect((await call('DELETE', `interfaces/${g.ifaceId}?force=true`)).status).toBe(200);
    const view = await getClient(c.id);
    expect(view.interfaceIds).toEqual([f.ifaceId]);

    const listed = (
      await answer(typed().GET('/api/clients', { params: { query: { interfaceId: f.ifaceId, perPage: 100 } } }))
    ).body.items.find((item) => item.id === c.id)!;
    expect(listed).toMatchObject({
      deviceCount: 2,
      interfaceIds: [f.ifaceId],
      lastHandshake: view.lastHandshake,
      onlineNow: true,
    });
    expect(await drifted()).toEqual([]);
  });
});

test('a handshake stamped in the future counts as now, so it cannot pin a client online', async () => {
  const f = await fixture();
  const c = await clientOn(f);
  const before = Date.now();
  await usage.recordCounters(f.nodeId, 1, [peer(f, c.keys[0], 1, 1, Date.now() + 365 * 86_400_000)]);
  const stamped = new Date((await getClient(c.id)).lastHandshake!).getTime();
  expect(stamped).toBeGreaterThanOrEqual(before - 1000);
  expect(stamped).toBeLessThanOrEqual(Date.now());
});

test("totals saturate at 2^53 - 1: bytes one node reports for a shared client never make another node's batches fail", async () => {
  const a = await fixture();
  const b = await fixture();
  const shared = await createClient({ interfaceIds: [a.ifaceId, b.ifaceId] });
  const other = await clientOn(b);
  const keys = await accountsOf(shared.id);
  const keyOn = (f: Fixture) => keys.find((row) => row.interface_id === f.ifaceId)!.public_key as string;
  // Node A has pushed the shared client to the last exact byte (as 2^45-byte batches would, in time).
  await t.query('update clients set used_bytes = $2, up_bytes = $2, down_bytes = $2 where id = $1', [
    shared.id,
    Number.MAX_SAFE_INTEGER - 10,
  ]);
  const big = 2 ** 44;
  expect(await usage.recordCounters(a.nodeId, 1, [peer(a, keyOn(a), big, big)])).toMatchObject({
    duplicate: false,
    matched: 1,
  });
  // Node B's batch for the shared client and its own still counts.
  expect(
    await usage.recordCounters(b.nodeId, 1, [peer(b, keyOn(b), 10, 10), peer(b, other.keys[0], 1000, 2000)]),
  ).toMatchObject({ duplicate: false, matched: 2 });
  expect(await getClient(shared.id)).toMatchObject({
    usedBytes: Number.MAX_SAFE_INTEGER,
    upBytes: Number.MAX_SAFE_INTEGER,
    downBytes: Number.MAX_SAFE_INTEGER,
  });
  expect(await getClient(other.id)).toMatchObject({ usedBytes: 3000 });
});

describe('batches of several nodes recorded together (group commit, clients/counter-commits.ts)', () => {
  afterEach(() => jest.restoreAllMocks());

  /** The node's usage history rows summed: what its batches brought, as the node's charts read it. */
  async function nodeHistory(nodeId: string) {
    const [row] = await t.query<{ up: string | null; down: string | null }>(
      'select sum(up_bytes)::text as up, sum(down_bytes)::text as down from node_usage_history where node_id = $1',
      [nodeId],
    );
    return { up: Number(row.up ?? 0), down: Number(row.down ?? 0) };
  }

  test('one statement: each batch is claimed, a repeat or refused on its own; a shared client gets the sum', async () => {
    const [a, b, c, d] = [await fixture(), await fixture(), await fixture(), await fixture()];
    const shared = await createClient({ interfaceIds: [a.ifaceId, b.ifaceId] });
    const keys = await accountsOf(shared.id);
    const keyOn = (f: Fixture) => keys.find((row) => row.interface_id === f.ifaceId)!.public_key as string;
    const onC = await clientOn(c);
    const onD = await clientOn(d);
    expect(await usage.recordCounters(c.nodeId, 1, [peer(c, onC.keys[0], 5, 5)])).toMatchObject({ duplicate: false });

    const outcomes = await usage.recordBatches([
      { nodeId: a.nodeId, seq: 1, peers: [peer(a, keyOn(a), 100, 1000)] },
      { nodeId: b.nodeId, seq: 1, peers: [peer(b, keyOn(b), 20, 200), peer(b, onD.keys[0], 1, 1)] },
      // c's batch 1 was recorded before: a repeat, nothing counted.
      { nodeId: c.nodeId, seq: 1, peers: [peer(c, onC.keys[0], 7, 7)] },
      // Far ahead of d's last (0): refused, nothing counted.
      { nodeId: d.nodeId, seq: 10_000_000, peers: [peer(d, onD.keys[0], 9, 9)] },
    ]);
    expect(outcomes[0]).toEqual({ duplicate: false, matched: 1, transitions: 0 });
    // The key of d's client on b's batch has no account on b: it does not match.
    expect(outcomes[1]).toEqual({ duplicate: false, matched: 1, transitions: 0 });
    expect(outcomes[2]).toEqual({ duplicate: true, matched: 0, transitions: 0 });
    expect(outcomes[3]).toMatchObject({ duplicate: false, matched: 0, refused: expect.stringContaining('ahead') });

    expect(await getClient(shared.id)).toMatchObject({ upBytes: 120, downBytes: 1200, usedBytes: 1320 });
    expect(await getClient(onC.id)).toMatchObject({ usedBytes: 10 });
    expect(await getClient(onD.id)).toMatchObject({ usedBytes: 0 });
    expect(await nodeHistory(a.nodeId)).toEqual({ up: 100, down: 1000 });
    expect(await nodeHistory(b.nodeId)).toEqual({ up: 20, down: 200 });
    expect(await nodeHistory(c.nodeId)).toEqual({ up: 5, down: 5 });
    expect(await nodeHistory(d.nodeId)).toEqual({ up: 0, down: 0 });
    const seqs = await t.query<{ node_id: string; counters_seq: string }>(
      'select node_id, counters_seq::text from node_agents where node_id = any($1::uuid[])',
      [[a.nodeId, b.nodeId, c.nodeId, d.nodeId]],
    );
    expect(Object.fromEntries(seqs.map((row) => [row.node_id, Number(row.counters_seq)]))).toEqual({
      [a.nodeId]: 1,
      [b.nodeId]: 1,
      [c.nodeId]: 1,
      [d.nodeId]: 0,
    });
    // Two batches of one node cannot share a statement (an account would match twice).
    await expect(
      usage.recordBatches([
        { nodeId: a.nodeId, seq: 2, peers: [] },
        { nodeId: a.nodeId, seq: 3, peers: [] },
      ]),
    ).rejects.toThrow('distinct nodes');
  });

  /** The node ids of each transaction UsageService.recordBatches is asked for, from here on. */
  function watchTransactions(): string[][] {
    const transactions: string[][] = [];
    const recordBatches = usage.recordBatches.bind(usage);
    jest.spyOn(usage, 'recordBatches').mockImplementation((batches, now) => {
      transactions.push(batches.map((batch) => batch.nodeId));
      return recordBatches(batches, now);
    });
    return transactions;
  }

  /**
   * `count` nodes with a client each, and `batch(n, seq, rx)`: node n's batch `seq` carrying `rx`
   * bytes up and one down for its client.
   */
  async function nodesWithAClient(count: number) {
    const nodes = await Promise.all(Array.from({ length: count }, () => fixture()));
    const clients = await Promise.all(nodes.map((f) => clientOn(f)));
    const batch = (n: number, seq: number, rx: number) => ({
      nodeId: nodes[n].nodeId,
      seq,
      peers: [peer(nodes[n], clients[n].keys[0], rx, 1)],
    });
    return { nodes, clients, batch };
  }

  test("batches arriving together share a transaction; a node's batch waits while its last is in flight; a newer link's copy replaces a waiting one", async () => {
    const { nodes, clients, batch } = await nodesWithAClient(10);
    const transactions = watchTransactions();
    // The first two start at once, alone; the other eight wait.
    const first = nodes.map((_, n) => commits.record(batch(n, 1, 10)));
    // Node 0's next batch while its first is in flight: it waits for that one.
    const next = commits.record(batch(0, 2, 5));
    // Node 9's batch again, on a newer link (its agent reconnected): the waiting copy is dropped.
    const copy = commits.record(batch(9, 1, 10));
    const superseded = expect(first[9]).rejects.toThrow('newer copy');
    const outcomes = await Promise.all([...first.slice(0, 9), next, copy]);
    await superseded;
    for (const outcome of outcomes) expect(outcome).toMatchObject({ duplicate: false, matched: 1 });
    expect(await getClient(clients[0].id)).toMatchObject({ upBytes: 15, downBytes: 2 });
    for (let n = 1; n < 10; n++) expect(await getClient(clients[n].id)).toMatchObject({ upBytes: 10, downBytes: 1 });
    // 11 batches, none redone alone, in fewer transactions, none with a node twice.
    expect(transactions.flat()).toHaveLength(11);
    expect(transactions.length).toBeLessThan(11);
    for (const nodeIds of transactions) expect(new Set(nodeIds).size).toBe(nodeIds.length);
    expect(Math.max(...transactions.map((nodeIds) => nodeIds.length))).toBeGreaterThan(1);
  });

  test('while 20 or more batches arrived in the last second, a batch waits up to 50 ms for company, 16 start at once', async () => {
    const { nodes, batch } = await nodesWithAClient(18);
    const ids = (...ns: number[]) => ns.map((n) => nodes[n].nodeId);
    // A group commit of its own, on a clock moved by hand: what counts is the arrivals' spacing,
    // not this machine's speed, and the panel's own keeps its real clock for the other tests.
    const lingering = new CounterCommits(usage, t.panel.app.get(PanelMetrics));
    let now = 0;
    lingering.clock = () => now;
    const transactions = watchTransactions();
    // 18 at once: nobody waits for company (the first two start, the rest wait for them).
    await Promise.all(nodes.map((_, n) => lingering.record(batch(n, 1, 1))));
    transactions.length = 0;

    now = 500;
    // The 19th arrival in a second starts at once; the 20th waits, as does the 21st, 30 ms later.
    const first = lingering.record(batch(0, 2, 1));
    const second = lingering.record(batch(1, 2, 1));
    now = 530;
    const third = lingering.record(batch(2, 2, 1));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(transactions).toEqual([ids(0)]);
    // 50 ms after the oldest waiting one arrived (not after the last), they go together.
    now = 551;
    await Promise.all([first, second, third]);
    expect(transactions).toEqual([ids(0), ids(1, 2)]);

    // 16 waiting do not wait for more.
    now = 600;
    const sixteen = nodes.slice(0, 16).map((_, n) => lingering.record(batch(n, 3, 1)));
    expect(transactions.map((nodeIds) => nodeIds.length)).toEqual([1, 2, 16]);
    await Promise.all(sixteen);

    // A second later the stream is over: the last 20 arrivals are older than a second, nothing waits.
    transactions.length = 0;
    now = 1_601;
    await Promise.all([0, 1, 2].map((n) => lingering.record(batch(n, 4, 1))));
    expect(transactions.map((nodeIds) => nodeIds.length)).toEqual([1, 1, 1]);
  });

  test('a batch PostgreSQL refuses fails alone, and its node goes alone from then on', async () => {
    const { nodes, clients, batch } = await nodesWithAClient(5);
    const transactions = watchTransactions();
    // Past bigint: the link's schema would refuse it; here it reaches PostgreSQL, which does.
    const sent = [0, 1, 2, 3, 4].map((n) => commits.record(batch(n, 1, n === 3 ? 2 ** 64 : 1000)));
    const settled = await Promise.allSettled(sent);
    expect(settled.map((result) => result.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    for (const n of [0, 1, 2, 4]) expect(await getClient(clients[n].id)).toMatchObject({ upBytes: 1000, downBytes: 1 });
    expect(await getClient(clients[3].id)).toMatchObject({ usedBytes: 0 });
    // The three that waited went together, failed, then one at a time.
    expect(transactions.map((nodeIds) => nodeIds.length)).toEqual([1, 1, 3, 1, 1, 1]);

    // Sent again (as an agent does every round), it no longer takes others down with it.
    transactions.length = 0;
    const again = [0, 1, 3, 2, 4].map((n) => commits.record(batch(n, n === 3 ? 1 : 2, n === 3 ? 2 ** 64 : 1)));
    const settledAgain = await Promise.allSettled(again);
    expect(settledAgain.map((result) => result.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
    ]);
    const withNode3 = transactions.filter((nodeIds) => nodeIds.includes(nodes[3].nodeId));
    expect(withNode3).toEqual([[nodes[3].nodeId]]);
    expect(transactions.flat()).toHaveLength(5);
  });

  test("the hops of several nodes' batches are added in one statement: each node's own, once", async () => {
    const [a, b, c] = [await fixture(), await fixture(), await fixture()];
    const hopOf = async (f: Fixture) =>
      (await t.query<{ id: string }>('select id from outbounds where node_id = $1 order by id limit 1', [f.nodeId]))[0]
        .id;
    const [hopA, hopB, hopC] = [await hopOf(a), await hopOf(b), await hopOf(c)];
    const totals = async () =>
      Object.fromEntries(
        (
          await t.query<{ id: string; up: string; down: string }>(
            'select id, up_bytes::text as up, down_bytes::text as down from outbounds where id = any($1::uuid[])',
            [[hopA, hopB, hopC]],
          )
        ).map((row) => [row.id, [Number(row.up), Number(row.down)]]),
      );
    const before = await totals();
    const hops = (...list: [string, number, number][]) => ({
      at: Date.now(),
      hops: list.map(([id, upBytes, downBytes]) => ({ id, upBytes, downBytes })),
    });
    await usage.recordCounters(c.nodeId, 1, []);
    const outcomes = await usage.recordBatches([
      // A hop listed twice in a batch counts twice.
      { nodeId: a.nodeId, seq: 1, peers: [], reading: hops([hopA, 10, 20], [hopA, 1, 2]) },
      // b names c's hop too: not b's, it takes nothing (and c's own batch is a repeat).
      { nodeId: b.nodeId, seq: 1, peers: [], reading: hops([hopB, 3, 4], [hopC, 1000, 1000]) },
      // c's batch 1 again: a repeat, its hop counts nothing.
      { nodeId: c.nodeId, seq: 1, peers: [], reading: hops([hopC, 7, 7]) },
    ]);
    expect(outcomes.map((outcome) => outcome.duplicate)).toEqual([false, false, true]);
    expect(await totals()).toEqual({
      [hopA]: [before[hopA][0] + 11, before[hopA][1] + 22],
      [hopB]: [before[hopB][0] + 3, before[hopB][1] + 4],
      [hopC]: before[hopC],
    });
  });

  test("a node's hop totals saturate at 2^53 - 1 rather than fail the transaction it shares", async () => {
    const a = await fixture();
    const b = await fixture();
    const onB = await clientOn(b);
    const [hop] = await t.query<{ id: string }>('select id from outbounds where node_id = $1 limit 1', [a.nodeId]);
    await t.query('update outbounds set up_bytes = $2, down_bytes = $2 where id = $1', [
      hop.id,
      Number.MAX_SAFE_INTEGER - 10,
    ]);
    const outcomes = await usage.recordBatches([
      {
        nodeId: a.nodeId,
        seq: 1,
        peers: [],
        reading: { at: Date.now(), hops: [{ id: hop.id, upBytes: 2 ** 44, downBytes: 5 }] },
      },
      { nodeId: b.nodeId, seq: 1, peers: [peer(b, onB.keys[0], 7, 7)] },
    ]);
    expect(outcomes.map((outcome) => outcome.duplicate)).toEqual([false, false]);
    const [row] = await t.query<{ up: string; down: string }>(
      'select up_bytes::text as up, down_bytes::text as down from outbounds where id = $1',
      [hop.id],
    );
    expect(row).toEqual({ up: String(Number.MAX_SAFE_INTEGER), down: String(Number.MAX_SAFE_INTEGER - 5) });
    expect(await getClient(onB.id)).toMatchObject({ usedBytes: 14 });
  });
});
