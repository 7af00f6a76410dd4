import { randomUUID } from 'node:crypto';
import { encodeCursor } from '../../apps/controller/src/clients/client-cursor.js';
import { fixtures } from '../support/fixtures.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';

/**
 * Cursor pages beside page/perPage: walking every sort by cursor gives the same rows, in the same
 * order, as one big page; cursors are validated.
 */

// The DTO module needs reflect-metadata loaded first; the sorts are few enough to name here.
const CLIENT_SORTS = ['newest', 'oldest', 'name', 'traffic', 'remaining', 'expiry'] as const;

let t: TestPanel;
let token: string;
let ifaceId: string;
const { call, createNodeWithInterface, createClient } = fixtures(() => ({ t, token }));

beforeAll(async () => {
  t = await startTestPanel();
  token = await t.login();
  ifaceId = (await createNodeWithInterface()).iface.id;
  for (let i = 0; i < 11; i++) {
    await createClient({
      name: `cursor-${i % 4}`,
      interfaceIds: [ifaceId],
      ...(i % 3 === 0 ? { quotaBytes: 1000 * (i % 2 ? 1 : 2) } : {}),
      ...(i % 2 === 0 ? { expiresAt: new Date(Date.now() + (1 + (i % 3)) * 86_400_000).toISOString() } : {}),
    });
  }
  // Equal keys (names, traffic, expiry, remaining) make the id tie-break matter.
  await t.query(`update clients set used_bytes = 500 where name in ('cursor-1', 'cursor-2')`);
}, 60_000);

afterAll(async () => {
  await t?.stop();
});

test.each(CLIENT_SORTS)('walking sort=%s by cursor gives the rows of one big page, once each', async (sort) => {
  const all = await call('GET', `clients?interfaceId=${ifaceId}&sort=${sort}&perPage=200`);
  expect(all.body.nextCursor).toBeUndefined();
  const walked: string[] = [];
  const first = await call('GET', `clients?interfaceId=${ifaceId}&sort=${sort}&perPage=3`);
  expect(first.body).toMatchObject({ total: 11, page: 1, perPage: 3 });
  walked.push(...first.body.items.map((item: { id: string }) => item.id));
  let cursor: string | undefined = first.body.nextCursor;
  while (cursor) {
    const next = await call('GET', `clients?interfaceId=${ifaceId}&sort=${sort}&perPage=3&cursor=${cursor}`);
    expect(next.status).toBe(200);
    expect(next.body.page).toBeUndefined();
    expect(next.body).toMatchObject({ total: 11, perPage: 3 });
    walked.push(...next.body.items.map((item: { id: string }) => item.id));
    cursor = next.body.nextCursor;
  }
  expect(walked).toEqual(all.body.items.map((item: { id: string }) => item.id));
});

test('malformed cursors, a cursor of another sort, and cursor with page are a 400 naming cursor', async () => {
  const forged = [
    'not a cursor',
    'x'.repeat(2000),
    Buffer.from('{"a":1}').toString('base64url'),
    encodeCursor({ sort: 'newest', key: 'yesterday', id: randomUUID() }),
    encodeCursor({ sort: 'traffic', key: '12; drop table clients', id: randomUUID() }),
    encodeCursor({ sort: 'newest', key: null, id: randomUUID() }),
    Buffer.from(JSON.stringify(['name', 'a', 'not-an-id'])).toString('base64url'),
    Buffer.from(JSON.stringify(['name', 'a\u0000b', randomUUID()])).toString('base64url'),
  ];
  for (const cursor of forged) {
    const response = await call(
      'GET',
      `clients?cursor=${encodeURIComponent(cursor)}${cursor.includes('traffic') ? '&sort=traffic' : ''}`,
    );
    expect(response.status).toBe(400);
    expect(response.body.field).toBe('cursor');
  }
  // Keys of the right shape that PostgreSQL cannot read as the sort's type (no such date, beyond int8).
  const unreadable: [(typeof CLIENT_SORTS)[number], string][] = [
    ['newest', '2026-13-45 25:61:61+00'],
    ['oldest', '2026-02-30 00:00:00+00'],
    ['expiry', '9999-99-99 00:00:00+99:99'],
    ['traffic', '9999999999999999999'],
    ['remaining', '9223372036854775808'],
  ];
  for (const [sort, key] of unreadable) {
    const response = await call('GET', `clients?sort=${sort}&cursor=${encodeCursor({ sort, key, id: randomUUID() })}`);
    expect([sort, response.status, response.body.field]).toEqual([sort, 400, 'cursor']);
  }
  const name = encodeCursor({ sort: 'name', key: 'cursor-1', id: randomUUID() });
  expect((await call('GET', `clients?cursor=${name}`)).body).toMatchObject({ field: 'cursor' });
  expect((await call('GET', `clients?sort=name&cursor=${name}&page=2`)).body).toMatchObject({ field: 'cursor' });
  expect((await call('GET', `clients?sort=name&cursor=${name}`)).status).toBe(200);
});

test('sort=traffic is exactly used bytes descending, then id, across steps and among clients without traffic', async () => {
  // The order walks a stepped column (clients.used_step, 1/16 of a doubling; no traffic: by id):
  // totals inside one step, across steps, far apart, equal, and zero.
  const totals = [0, 0, 0, 1, 1000, 1001, 1001, 1030, 2 ** 30, 2 ** 30 + 1, 2 ** 53 - 1];
  const ids = (await t.query<{ id: string }>(`select id from clients where name like 'cursor-%' order by id`)).map(
    (row) => row.id,
  );
  expect(ids).toHaveLength(totals.length);
  for (const [i, id] of ids.entries())
    await t.query(`update clients set used_bytes = $1 where id = $2`, [totals[(i * 7) % totals.length], id]);
  const rows = await t.query<{ id: string; used_bytes: string }>(
    `select id, used_bytes::text from clients where name like 'cursor-%'`,
  );
  const expected = rows
    .sort((a, b) => Number(BigInt(b.used_bytes) - BigInt(a.used_bytes)) || (a.id < b.id ? 1 : -1))
    .map((row) => row.id);
  const walked: string[] = [];
  let cursor = '';
  do {
    const page = await call('GET', `clients?interfaceId=${ifaceId}&sort=traffic&perPage=2${cursor}`);
    walked.push(...page.body.items.map((item: { id: string }) => item.id));
    cursor = page.body.nextCursor ? `&cursor=${page.body.nextCursor}` : '';
  } while (cursor);
  expect(walked).toEqual(expected);
  expect(
    (await call('GET', `clients?interfaceId=${ifaceId}&sort=traffic&perPage=200`)).body.items.map(
      (item: { id: string }) => item.id,
    ),
  ).toEqual(expected);
});

test('sort=remaining is exactly quota − used ascending, unlimited last, then id, by cursor pages of 2 and 3', async () => {
  // The order walks a stepped column (clients.remaining_step): over quota (far, a whole GiB, a
  // little), used up exactly, a little left, whole GiB left (an untouched plan) and just above
  // it, unlimited; equal keys in each kind of step (1/64 doublings, whole GiB, unlimited).
  const GIB = 2 ** 30;
  const usage: [quota: number, used: number][] = [
    [0, 0],
    [0, 5000],
    [10 * GIB, 0],
    [10 * GIB, 0],
    [5000, 5000],
    [3000, 3000],
    [1000, 4000],
    [2000, 5000],
    [GIB, 2 * GIB],
    [2000, 1001],
    [11 * GIB + 5, GIB],
  ];
  const ids = await cursorClientIds();
  expect(ids).toHaveLength(usage.length);
  for (const [i, id] of ids.entries())
    await t.query(`update clients set quota_bytes = $1, used_bytes = $2 where id = $3`, [...usage[(i * 5) % 11], id]);
  const expected = await exactRemainingOrder();
  for (const perPage of [2, 3]) expect(await walkRemaining(perPage)).toEqual(expected);
  expect(
    (await call('GET', `clients?interfaceId=${ifaceId}&sort=remaining&perPage=200`)).body.items.map(
      (item: { id: string }) => item.id,
    ),
  ).toEqual(expected);

  // Usage grows between pages (a counter batch): a client already shown moves further ahead, one
  // not shown yet moves behind the cursor; no page shows a client twice, and every other client
  // is shown once.
  const walked: string[] = [];
  let cursor = '';
  let batches = 0;
  do {
    const page = await call('GET', `clients?interfaceId=${ifaceId}&sort=remaining&perPage=3${cursor}`);
    walked.push(...page.body.items.map((item: { id: string }) => item.id));
    cursor = page.body.nextCursor ? `&cursor=${page.body.nextCursor}` : '';
    if (batches++ === 0) {
      await t.query(`update clients set used_bytes = used_bytes + $1::int8 where id = $2`, [3 * GIB, walked[2]]);
      await t.query(`update clients set used_bytes = used_bytes + $1::int8 where id = $2`, [11 * GIB, expected[8]]);
    }
  } while (cursor);
  expect(new Set(walked).size).toBe(walked.length);
  expect(walked.slice(0, 3)).toEqual(expected.slice(0, 3));
  expect(walked.filter((id) => id !== expected[8]).sort()).toEqual(expected.filter((id) => id !== expected[8]).sort());
});

async function cursorClientIds(): Promise<string[]> {
  return (await t.query<{ id: string }>(`select id from clients where name like 'cursor-%' order by id`)).map(
    (row) => row.id,
  );
}

/** The remaining order computed here: quota − used ascending, unlimited (quota 0) last, then id. */
async function exactRemainingOrder(): Promise<string[]> {
  const rows = await t.query<{ id: string; quota_bytes: string; used_bytes: string }>(
    `select id, quota_bytes::text, used_bytes::text from clients where name like 'cursor-%'`,
  );
  const remaining = (row: (typeof rows)[number]) =>
    BigInt(row.quota_bytes) === 0n ? null : BigInt(row.quota_bytes) - BigInt(row.used_bytes);
  return rows
    .sort((a, b) => {
      const [ra, rb] = [remaining(a), remaining(b)];
      if (ra !== rb) {
        if (ra === null) return 1;
        if (rb === null) return -1;
        return ra < rb ? -1 : 1;
      }
      return a.id < b.id ? -1 : 1;
    })
    .map((row) => row.id);
}

async function walkRemaining(perPage: number): Promise<string[]> {
  const walked: string[] = [];
  let cursor = '';
  do {
    const page = await call('GET', `clients?interfaceId=${ifaceId}&sort=remaining&perPage=${perPage}${cursor}`);
    expect(page.status).toBe(200);
    walked.push(...page.body.items.map((item: { id: string }) => item.id));
    cursor = page.body.nextCursor ? `&cursor=${page.body.nextCursor}` : '';
  } while (cursor);
  return walked;
}
