import { randomUUID } from 'node:crypto';
import { systemSampleSchema } from '#libs/contracts/system.js';
import { QUEUE_BACKEND } from '../../apps/controller/src/runtime.js';
import type { QueueBackend } from '../../apps/controller/src/queue/queue-backend.js';
import { SystemHistoryMaintenance } from '../../apps/controller/src/system/history-maintenance.service.js';
import {
  HISTORY_MAINTENANCE_JOB,
  SYSTEM_HISTORY_QUEUE,
} from '../../apps/controller/src/system/history-maintenance.scheduler.js';
import { SystemService } from '../../apps/controller/src/system/system.service.js';
import { CONTROLLER_SOURCE } from '../../apps/controller/src/system/tiers.js';
import { systemSample } from '../support/system-sample.js';
import { createTestDatabase } from '../support/test-database.js';
import { answer, fixtures } from '../support/fixtures.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';
import { waitFor } from '../support/wait-for.js';
import { refusal } from '../support/refusal.js';

let t: TestPanel;
let token: string;
/** When this file's panel started: every sample of its own host is taken after. */
let panelStartedAt: number;
let system: SystemService;

beforeAll(async () => {
  panelStartedAt = Date.now();
  t = await startTestPanel();
  token = await t.login();
  system = t.panel.app.get(SystemService);
});
afterAll(async () => {
  await t?.stop();
});

const { call, typed, createNode } = fixtures(() => ({ t, token }));

const RANGES: [string, number][] = [
  ['5m', 300],
  ['1h', 3600],
  ['6h', 6 * 3600],
  ['24h', 24 * 3600],
  ['48h', 48 * 3600],
  ['7d', 7 * 86400],
];
const SERIES = ['cpu', 'memory', 'swap', 'disk', 'rxRate', 'txRate', 'load1'];

interface Point {
  t: number;
  v: number | null;
}

const sample = systemSample;

/** Records a sample every 2 s from `from` to `to` (controller clock), as the agent link would. */
function recordEvery2s(nodeId: string, from: number, to: number, over: Parameters<typeof sample>[1] = {}): number[] {
  const times: number[] = [];
  for (let at = from; at <= to; at += 2000) {
    system.record(nodeId, sample(at, over), new Date(at));
    times.push(at);
  }
  return times;
}

async function history(query: string) {
  const response = await call('GET', `system/history${query}`);
  expect(response.status).toBe(200);
  return response.body as {
    range: string;
    points: number;
    step: number;
    nodeId: string | null;
    series: Record<string, Point[]>;
  };
}

describe('GET /api/system', () => {
  test("the controller's own host: a real sample of this machine, with sampledAt", async () => {
    const response = await answer(typed().GET('/api/system'));
    expect(response.status).toBe(200);
    const { controller } = response.body;
    const { sampledAt, ...fields } = controller;
    expect(systemSampleSchema.parse(fields)).toEqual(fields);
    expect(sampledAt).toBe(new Date(controller.at).toISOString());
    expect(controller.at).toBeGreaterThanOrEqual(panelStartedAt);
    expect(controller.at).toBeLessThanOrEqual(Date.now());
    expect(controller.cpu.cores).toBeGreaterThanOrEqual(1);
    expect(controller.memory.total).toBeGreaterThan(0);
    expect(controller.memory.used).toBeGreaterThan(0);
    expect(controller.disk.total).toBeGreaterThan(0);
    expect(controller.uptimeSeconds).toBeGreaterThan(0);
    // The sampler runs inside the panel: its RSS is this test process's.
    expect(controller.processRss).toBeGreaterThan(10 * 1024 * 1024);
  });

  test('the controller keeps sampling its host', async () => {
    const first = (await answer(typed().GET('/api/system'))).body.controller.at;
    const second = await waitFor('a new sample of the controller host', async () => {
      const at = (await answer(typed().GET('/api/system'))).body.controller.at;
      return at !== first ? at : undefined;
    });
    expect(second).toBeGreaterThan(first);
  });

  test('every node is listed, the local node first, with its agent, sync state and latest sample', async () => {
    const id = (await createNode()).id;
    const response = await answer(typed().GET('/api/system'));
    const [local, ...others] = response.body.nodes;
    expect(local).toEqual({
      id: expect.any(String),
      name: expect.any(String),
      isLocal: true,
      // Tests run with WARREN_LOCAL_AGENT=off: no agent is meant to run for it.
      agent: { state: 'unmanaged', version: null, lastSeenAt: null, capabilities: null, gaps: [] },
      sync: { desiredRevision: 1, appliedRevision: 0, inSync: false },
      system: null,
    });
    expect(others.map((node: { id: string }) => node.id)).toContain(id);
    expect(others.every((node: { isLocal: boolean }) => !node.isLocal)).toBe(true);
  });

  test('agent state: connected only while the link was seen within 30 s; enrolled; never enrolled', async () => {
    const capabilities = { root: true, wireguardKernel: false, wireguardGo: true, wg: true, nft: false, ip: true };
    const ids = {
      live: (await createNode()).id,
      crashed: (await createNode()).id,
      gone: (await createNode()).id,
      quiet: (await createNode()).id,
      pending: (await createNode()).id,
      none: (await createNode()).id,
    };
    const credential = () => randomUUID().replace(/-/g, '').padEnd(64, '0');
    // Creating a node may already have made its agent row (the pending enrolment): upsert.
    const agent = (nodeId: string, columns: string, values: string) =>
      t.query(
        `insert into node_agents (node_id, ${columns}) values ($1, ${values})
         on conflict (node_id) do update set ${columns
           .split(', ')
           .map((column) => `${column} = excluded.${column}`)
           .join(', ')}`,
        [nodeId],
      );
    await agent(
      ids.live,
      'credential_hash, enrolled_at, connected, last_seen_at, version, capabilities, gaps',
      `'${credential()}', now(), true, now() - interval '5 seconds', '0.1.0', '${JSON.stringify(capabilities)}', '["nft missing: no NAT"]'`,
    );
    // A controller that crashed leaves connected = true behind.
    await agent(
      ids.crashed,
      'credential_hash, enrolled_at, connected, last_seen_at, version',
      `'${credential()}', now(), true, now() - interval '45 seconds', '0.1.0'`,
    );
    await agent(
      ids.gone,
      'credential_hash, enrolled_at, connected, last_seen_at',
      `'${credential()}', now(), false, now() - interval '2 seconds'`,
    );
    await agent(ids.quiet, 'credential_hash, enrolled_at', `'${credential()}', now()`);
    await agent(ids.pending, 'enrolment_hash, enrolment_expires_at', `'${credential()}', now() + interval '1 hour'`);
    await t.query('delete from node_agents where node_id = $1', [ids.none]);
    await t.query('update nodes set applied_revision = desired_revision where id = $1', [ids.live]);

    const nodes = new Map((await answer(typed().GET('/api/system'))).body.nodes.map((node) => [node.id, node]));
    const live = nodes.get(ids.live) as Record<string, any>;
    expect(live.agent).toEqual({
      state: 'connected',
      version: '0.1.0',
      lastSeenAt: expect.any(String),
      capabilities,
      gaps: ['nft missing: no NAT'],
    });
    expect(Date.now() - Date.parse(live.agent.lastSeenAt)).toBeGreaterThanOrEqual(4000);
    expect(live.sync).toEqual({ desiredRevision: 1, appliedRevision: 1, inSync: true });
    const state = (id: string) => nodes.get(id)!.agent.state;
    expect({
      crashed: state(ids.crashed),
      gone: state(ids.gone),
      quiet: state(ids.quiet),
      pending: state(ids.pending),
      none: state(ids.none),
    }).toEqual({
      crashed: 'disconnected',
      gone: 'disconnected',
      quiet: 'enrolled',
      pending: 'never-enrolled',
      none: 'never-enrolled',
    });
  });

  test("a sample recorded for a node is that node's system", async () => {
    const id = (await createNode()).id;
    const now = Date.now();
    system.record(id, sample(now - 2000, { cpu: 10 }), new Date(now - 2000));
    system.record(id, sample(now, { cpu: 20 }), new Date(now));
    const node = (await answer(typed().GET('/api/system'))).body.nodes.find((entry) => entry.id === id)!;
    expect(node.system).toEqual({ ...sample(now, { cpu: 20 }), sampledAt: new Date(now).toISOString() });
  });

  test('without a sample in memory, the newest stored raw sample (another replica holds the link)', async () => {
    const id = (await createNode()).id;
    const at = Date.now() - 4000;
    // As another replica's flush would have written it.
    await t.query(
      `insert into system_samples (source, tier, at, cpu_percent, cores, load1, load5, load15, memory_used, memory_total, swap_used,
         swap_total, disk_used, disk_total, rx_bytes, tx_bytes, rx_rate, tx_rate, uptime_seconds, process_rss)
       values ($1, 2, to_timestamp($2 / 1000.0) - interval '2 seconds', 1, 2, 0, 0, 0, 1, 4, 0, 0, 1, 2, 0, 0, 0, 0, 1, 1),
              ($1, 2, to_timestamp($2 / 1000.0), 12.5, 2, 0.25, 0.5, 0.75, 256, 1024, 1, 4, 30, 120, 5000, 6000, 70, 80, 999, 12345)`,
      [id, at],
    );
    const node = (await answer(typed().GET('/api/system'))).body.nodes.find((entry) => entry.id === id)!;
    expect(node.system).toEqual({
      at,
      cpu: { percent: 12.5, cores: 2, load1: 0.25, load5: 0.5, load15: 0.75 },
      memory: { used: 256, total: 1024, percent: 25 },
      swap: { used: 1, total: 4, percent: 25 },
      disk: { used: 30, total: 120, percent: 25 },
      network: { rxBytes: 5000, txBytes: 6000, rxRate: 70, txRate: 80 },
      uptimeSeconds: 999,
      processRss: 12345,
      sampledAt: new Date(at).toISOString(),
    });
  });

  test('record() refuses what is not a node id or not a sample, and stores nothing of it', async () => {
    const id = (await createNode()).id;
    expect(() => system.record('not-a-node', sample(Date.now()))).toThrow(/node id/);
    expect(() => system.record(id, { ...sample(Date.now()), cpu: { ...sample(0).cpu, percent: 150 } })).toThrow();
    await system.flush();
    expect(await t.query('select 1 from system_samples where source = $1', [id])).toHaveLength(0);
  });
});

describe('GET /api/system/history', () => {
  test.each(RANGES)('%s: 240 points per series, aligned buckets of range/240 ending at now', async (range, seconds) => {
    const before = Date.now();
    const body = await history(`?range=${range}`);
    const after = Date.now();
    expect(Object.keys(body).sort()).toEqual(['nodeId', 'points', 'range', 'series', 'step']);
    expect(body).toMatchObject({ range, points: 240, step: seconds / 240, nodeId: null });
    expect(Object.keys(body.series).sort()).toEqual([...SERIES].sort());
    const stepMs = body.step * 1000;
    for (const name of SERIES) {
      const points = body.series[name];
      expect(points).toHaveLength(240);
      points.forEach((point, index) => {
        expect(point.t).toBe(points[0].t + index * stepMs);
        expect(point.v === null || typeof point.v === 'number').toBe(true);
      });
      expect(points[0].t % stepMs).toBe(0);
      // The last bucket holds the moment of the request.
      expect(points[239].t).toBeLessThanOrEqual(after);
      expect(points[239].t + stepMs).toBeGreaterThan(before);
    }
  });

  test('the range defaults to 1h', async () => {
    expect(await history('')).toMatchObject({ range: '1h', points: 240, step: 15, nodeId: null });
  });

  test("the controller's own samples fill the newest buckets of its history", async () => {
    const body = await history('?range=5m');
    // The last 6 buckets are 7.5 s; samples come every 2 s (the newest may still be in the write buffer).
    const memory = body.series.memory.slice(-6).filter((point) => point.v !== null);
    expect(memory.length).toBeGreaterThanOrEqual(4);
    for (const point of memory) {
      expect(point.v).toBeGreaterThan(0);
      expect(point.v).toBeLessThanOrEqual(100);
    }
    for (const name of ['cpu', 'disk', 'load1', 'rxRate']) {
      for (const point of body.series[name].slice(-6)) if (point.v !== null) expect(point.v).toBeGreaterThanOrEqual(0);
    }
  });

  test("samples recorded for a node show up in that node's history, before and after they are written", async () => {
    const id = (await createNode()).id;
    const now = Date.now();
    const times = recordEvery2s(id, now - 60_000, now, { cpu: 40, memoryUsed: 768, rxRate: 1234.5 });

    const check = async () => {
      for (const [range, query] of [
        ['5m', `?range=5m&nodeId=${id}`],
        ['1h', `?nodeId=${id}`],
      ]) {
        const body = await history(query);
        expect({ range: body.range, nodeId: body.nodeId }).toEqual({ range, nodeId: id });
        const stepMs = body.step * 1000;
        const covered = (point: Point) => point.t + stepMs > times[0] && point.t <= times.at(-1)!;
        const before = (point: Point) => point.t + stepMs + 2000 < times[0];
        expect(body.series.cpu.filter(covered).length).toBeGreaterThan(range === '5m' ? 40 : 3);
        for (const [name, value] of [
          ['cpu', 40],
          ['memory', 75],
          ['disk', 25],
          ['swap', 0],
          ['rxRate', 1234.5],
          ['txRate', 200],
          ['load1', 1.5],
        ] as const) {
          expect({
            range,
            name,
            values: [...new Set(body.series[name].filter(covered).map((point) => point.v))],
          }).toEqual({ range, name, values: [value] });
          expect({
            range,
            name,
            values: [...new Set(body.series[name].filter(before).map((point) => point.v))],
          }).toEqual({ range, name, values: [null] });
        }
      }
    };
    await check(); // still in the write buffer
    await system.flush();
    expect(await t.query('select 1 from system_samples where source = $1 and tier = 2', [id])).toHaveLength(
      times.length,
    );
    await check(); // from the database

    // Another node's history is its own.
    const other = (await createNode()).id;
    const empty = await history(`?range=5m&nodeId=${other}`);
    expect(empty.series.cpu.every((point) => point.v === null)).toBe(true);
  });

  test('a gap in the samples stays null in the 5-minute chart', async () => {
    const id = (await createNode()).id;
    const now = Date.now();
    recordEvery2s(id, now - 100_000, now - 70_000);
    recordEvery2s(id, now - 40_000, now);
    const body = await history(`?range=5m&nodeId=${id}`);
    const inGap = body.series.cpu.filter((point) => point.t > now - 66_000 && point.t < now - 45_000);
    expect(inGap.length).toBeGreaterThan(10);
    expect(inGap.every((point) => point.v === null)).toBe(true);
    const reporting = body.series.cpu.filter((point) => point.t > now - 38_000 && point.t < now - 2000);
    expect(reporting.every((point) => point.v === 40)).toBe(true);
  });

  type Bad = [string, string, number, string];
  const bad: Bad[] = [
    ['an unknown range', '?range=2h', 400, 'range'],
    ['an empty range', '?range=', 400, 'range'],
    ['a range given twice', '?range=1h&range=5m', 400, 'range'],
    ['a malformed nodeId', '?nodeId=nope', 400, 'nodeId'],
    ['an empty nodeId', '?nodeId=', 400, 'nodeId'],
    ['an unknown parameter', '?ranges=1h', 400, 'ranges'],
    ['an unknown node', `?nodeId=${randomUUID()}`, 404, 'nodeId'],
  ];
  test.each(bad)('%s (%s): %i naming %s', async (_, query, status, field) => {
    const response = await call('GET', `system/history${query}`);
    expect({ status: response.status, body: response.body }).toEqual({
      status,
      body: refusal(field),
    });
  });

  test('unauthenticated: 401', async () => {
    for (const path of ['system', 'system/history', 'system/history?range=7d']) {
      const response = await t.call('GET', path);
      expect({ path, status: response.status, body: response.body }).toEqual({
        path,
        status: 401,
        body: { error: expect.any(String), field: '' },
      });
    }
  });
});

describe('rollups', () => {
  test('the maintenance job is scheduled on the system-history queue', async () => {
    const queue = t.panel.app.get<QueueBackend>(QUEUE_BACKEND).queue(SYSTEM_HISTORY_QUEUE);
    const scheduler = await waitFor(
      'the history maintenance job scheduler',
      async () => (await queue.getJobScheduler(HISTORY_MAINTENANCE_JOB)) ?? undefined,
      5000,
    );
    expect(scheduler).toMatchObject({ every: 60_000 });
  });

  test('minute and ten-minute tiers are averages of the tier below, served to the longer ranges', async () => {
    const maintenance = t.panel.app.get(SystemHistoryMaintenance);
    const id = (await createNode()).id;
    // Ten whole minutes of samples, 30 to 20 minutes ago; minute m has cpu 10·m.
    const window = Math.floor((Date.now() - 30 * 60_000) / 600_000) * 600_000;
    for (let minute = 0; minute < 10; minute++) {
      recordEvery2s(id, window + minute * 60_000, window + minute * 60_000 + 58_000, {
        cpu: 10 * minute,
        rxRate: 100 * minute,
      });
    }
    await system.flush();

    // The schedule's ticks, one a minute just before each minute ends, then one after the ten minutes.
    for (let minute = 0; minute < 10; minute++) await maintenance.rollUp(new Date(window + minute * 60_000 + 59_000));
    await maintenance.rollUp(new Date(window + 600_000 + 59_000));

    const rows = await t.query<{ tier: number; at: number; cpu: number; rx: number; cores: number }>(
      `select tier, (extract(epoch from at) * 1000)::float8 as at, cpu_percent as cpu, rx_rate as rx, cores
         from system_samples where source = $1 and tier in (60, 600) order by tier, at`,
      [id],
    );
    expect(rows).toEqual([
      ...Array.from({ length: 10 }, (_, minute) => ({
        tier: 60,
        at: window + minute * 60_000,
        cpu: 10 * minute,
        rx: 100 * minute,
        cores: 4,
      })),
      { tier: 600, at: window, cpu: 45, rx: 450, cores: 4 },
    ]);

    // 6h and 24h read the minute tier: each bucket is the mean of the minute rows starting in it.
    const minutes = rows.filter((row) => row.tier === 60);
    for (const range of ['6h', '24h']) {
      const body = await history(`?range=${range}&nodeId=${id}`);
      const stepMs = body.step * 1000;
      const expected = body.series.cpu.map((point) => {
        const inside = minutes.filter((row) => row.at >= point.t && row.at < point.t + stepMs);
        return inside.length
          ? Math.round((inside.reduce((sum, row) => sum + row.cpu, 0) / inside.length) * 100) / 100
          : null;
      });
      expect({ range, values: body.series.cpu.map((point) => point.v) }).toEqual({ range, values: expected });
      expect(expected.filter((value) => value !== null).length).toBeGreaterThan(0);
    }
    // 48h and 7d read the ten-minute tier: one bucket holds the window's mean, all others are empty.
    for (const range of ['48h', '7d']) {
      const body = await history(`?range=${range}&nodeId=${id}`);
      const filled = body.series.cpu.filter((point) => point.v !== null);
      expect({ range, filled: filled.map((point) => point.v) }).toEqual({ range, filled: [45] });
      expect(filled[0].t).toBeLessThanOrEqual(window);
      expect(filled[0].t + body.step * 1000).toBeGreaterThan(window);
      expect(body.series.rxRate.find((point) => point.t === filled[0].t)!.v).toBe(450);
    }
  });

  test('a rollup run again, or with late samples, replaces its windows; the current window is partial', async () => {
    const maintenance = t.panel.app.get(SystemHistoryMaintenance);
    const id = (await createNode()).id;
    const minute = Math.floor((Date.now() - 10 * 60_000) / 60_000) * 60_000;
    recordEvery2s(id, minute, minute + 20_000, { cpu: 10 });
    await system.flush();
    await maintenance.rollUp(new Date(minute + 21_000));
    const cpuOf = async () =>
      (
        await t.query<{ cpu: number }>(
          'select cpu_percent as cpu from system_samples where source = $1 and tier = 60',
          [id],
        )
      ).map((row) => row.cpu);
    expect(await cpuOf()).toEqual([10]);
    // The rest of the minute arrives (one of them late, as another replica's flush would deliver it).
    recordEvery2s(id, minute + 22_000, minute + 58_000, { cpu: 40 });
    await system.flush();
    await maintenance.rollUp(new Date(minute + 125_000));
    const [cpu] = await cpuOf();
    expect(cpu).toBeCloseTo((11 * 10 + 19 * 40) / 30, 6);
    await maintenance.rollUp(new Date(minute + 125_000));
    expect(await cpuOf()).toEqual([cpu]);
  });

  test("the controller's own host has its tiers too", async () => {
    const maintenance = t.panel.app.get(SystemHistoryMaintenance);
    await system.flush();
    await maintenance.rollUp(new Date());
    const tiers = await t.query<{ tier: number }>(
      'select distinct tier from system_samples where source = $1 order by tier',
      [CONTROLLER_SOURCE],
    );
    expect(tiers.map((row) => row.tier)).toEqual([2, 60, 600]);
  });
});

describe('history survives a restart', () => {
  test('what one panel recorded, the next one on the same database serves', async () => {
    const database = await createTestDatabase();
    let first: TestPanel | undefined = await startTestPanel({}, { database });
    let second: TestPanel | undefined;
    try {
      const firstToken = await first.login();
      const created = await first.call('POST', 'nodes', {
        token: firstToken,
        body: { name: 'restarted', address: 'r.example.com' },
      });
      const id = created.body.id as string;
      const now = Date.now();
      const recorder = first.panel.app.get(SystemService);
      for (let at = now - 30_000; at <= now; at += 2000) recorder.record(id, sample(at, { cpu: 33 }), new Date(at));
      // No flush: stopping the panel writes what is buffered.
      await first.stop();
      first = undefined;

      second = await startTestPanel({}, { database });
      const secondToken = await second.login();
      const response = await second.call('GET', `system/history?range=5m&nodeId=${id}`, { token: secondToken });
      expect(response.status).toBe(200);
      const filled = (response.body.series.cpu as Point[]).filter((point) => point.v !== null);
      expect(filled.length).toBeGreaterThan(20);
      expect(new Set(filled.map((point) => point.v))).toEqual(new Set([33]));
      // The snapshot finds the newest sample in the database: this panel never received one.
      const node = (await second.call('GET', 'system', { token: secondToken })).body.nodes.find(
        (entry: { id: string }) => entry.id === id,
      );
      expect(node.system).toMatchObject({ at: now, cpu: { percent: 33 } });
    } finally {
      await first?.stop();
      await second?.stop();
      await database.drop();
    }
  });
});

describe('retention', () => {
  // Runs last: pruning with a clock in the future removes every source's old rows.
  test('each tier is pruned past its retention, younger rows stay', async () => {
    const maintenance = t.panel.app.get(SystemHistoryMaintenance);
    const id = (await createNode()).id;
    const now = Date.now();
    const insert = (tier: number, agoMs: number) =>
      t.query(
        `insert into system_samples (source, tier, at, cpu_percent, cores, load1, load5, load15, memory_used, memory_total, swap_used,
           swap_total, disk_used, disk_total, rx_bytes, tx_bytes, rx_rate, tx_rate, uptime_seconds, process_rss)
         values ($1, $2, to_timestamp($3 / 1000.0), ${new Array(17).fill('1').join(', ')})`,
        [id, tier, now - agoMs],
      );
    const ages = async (tier: number) =>
      (
        await t.query<{ ago: number }>(
          'select ($2 - extract(epoch from at) * 1000)::float8 as ago from system_samples where source = $1 and tier = $3 order by at',
          [id, now, tier],
        )
      ).map((row) => Math.round(row.ago / 60_000));
    const minutes = (count: number) => count * 60_000;
    await insert(2, minutes(30));
    await insert(2, minutes(1));
    await insert(60, minutes(60));
    await insert(60, minutes(5));
    await insert(600, minutes(120));
    await insert(600, minutes(10));

    // Raw: 65 min. At now + 40 min, the 30-minute-old row is 70 minutes old, the other 41.
    await maintenance.prune(new Date(now + minutes(40)));
    expect(await ages(2)).toEqual([1]);
    // Minute rows: 25 h.
    await maintenance.prune(new Date(now + minutes(24 * 60 + 30)));
    expect(await ages(60)).toEqual([5]);
    // Ten-minute rows: 7 days and an hour.
    await maintenance.prune(new Date(now + minutes(7 * 24 * 60)));
    expect(await ages(600)).toEqual([10]);
  });
});
