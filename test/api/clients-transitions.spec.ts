import { QUEUE_BACKEND } from '../../apps/controller/src/runtime.js';
import type { QueueBackend } from '../../apps/controller/src/queue/queue-backend.js';
import { lastCycleBoundary } from '../../apps/controller/src/clients/client-status.js';
import type { ResetCycle } from '../../apps/controller/src/clients/client.entity.js';
import { SYSTEM_QUEUE, TIME_TRANSITIONS_JOB } from '../../apps/controller/src/clients/time-transitions.scheduler.js';
import { TimeTransitionsService } from '../../apps/controller/src/clients/time-transitions.service.js';
import { answer, fixtures } from '../support/fixtures.js';
import { waitFor } from '../support/wait-for.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';

/**
 * The scheduled half of the status rules. Tests call applyTimeTransitions with a clock of their
 * own, always far in the future relative to the anchors they set: the real 30 s tick running
 * meanwhile (with the real clock) then never finds anything of theirs to change.
 */

let t: TestPanel;
let token: string;
let transitions: TimeTransitionsService;

beforeAll(async () => {
  t = await startTestPanel();
  token = await t.login();
  transitions = t.panel.app.get(TimeTransitionsService);
});
afterAll(async () => {
  await t?.stop();
});

const { typed, createNodeWithInterface, createClient, getClient, revision } = fixtures(() => ({ t, token }));

const DAY = 86_400_000;

describe('expiry', () => {
  test('active and exhausted clients expire when expiresAt <= now; only active ones bump their node', async () => {
    const iface = (await createNodeWithInterface()).iface;
    const expiresAt = new Date(Date.now() + 30 * DAY);
    const active = (await createClient({ interfaceIds: [iface.id], expiresAt: expiresAt.toISOString() })).id;
    const exhausted = (
      await createClient({ interfaceIds: [iface.id], expiresAt: expiresAt.toISOString(), quotaBytes: 10 })
    ).id;
    await t.query(`update clients set used_bytes = 10, status = 'exhausted' where id = $1`, [exhausted]);
    const disabled = (
      await createClient({ interfaceIds: [iface.id], expiresAt: expiresAt.toISOString(), enabled: false })
    ).id;
    const later = (
      await createClient({ interfaceIds: [iface.id], expiresAt: new Date(expiresAt.getTime() + DAY).toISOString() })
    ).id;

    const before = await revision(iface.nodeId);
    await transitions.applyTimeTransitions(new Date(expiresAt.getTime() - 1));
    expect((await getClient(active)).status).toBe('active');
    expect(await revision(iface.nodeId)).toBe(before);

    const result = await transitions.applyTimeTransitions(expiresAt);
    expect(result.expired).toBeGreaterThanOrEqual(2);
    expect((await getClient(active)).status).toBe('expired');
    expect((await getClient(exhausted)).status).toBe('expired');
    expect((await getClient(disabled)).status).toBe('disabled');
    expect((await getClient(later)).status).toBe('active');
    expect(await revision(iface.nodeId)).toBe(before + 1);

    // Applying the same clock again changes nothing.
    await transitions.applyTimeTransitions(expiresAt);
    expect(await revision(iface.nodeId)).toBe(before + 1);
    // Each expiry is told once (docs/notifications.md), the repeated tick adding nothing.
    const told = await t.query<{ subject_id: string }>(
      `select subject_id from notification_events where kind = 'client.expired' and subject_id = any($1::text[])`,
      [[active, exhausted, disabled, later]],
    );
    expect(told.map((row) => row.subject_id).sort()).toEqual([active, exhausted].sort());
  });

  test('only exhausted clients expiring: no peers change, no bump', async () => {
    const iface = (await createNodeWithInterface()).iface;
    const expiresAt = new Date(Date.now() + 40 * DAY);
    const exhausted = (
      await createClient({ interfaceIds: [iface.id], expiresAt: expiresAt.toISOString(), quotaBytes: 1 })
    ).id;
    await t.query(`update clients set used_bytes = 5, status = 'exhausted' where id = $1`, [exhausted]);
    const before = await revision(iface.nodeId);
    await transitions.applyTimeTransitions(new Date(expiresAt.getTime() + 1000));
    expect((await getClient(exhausted)).status).toBe('expired');
    expect(await revision(iface.nodeId)).toBe(before);
  });
});

describe('reset cycles', () => {
  /** Puts a client's anchor (created_at) at `anchor` and gives it traffic on every level. */
  async function anchorWithTraffic(id: string, anchor: Date, status = 'active'): Promise<void> {
    await t.query(
      `update clients set created_at = $2, used_bytes = 700, up_bytes = 300, down_bytes = 400, status = $3 where id = $1`,
      [id, anchor, status],
    );
    await t.query(`update devices set up_bytes = 300, down_bytes = 400 where client_id = $1`, [id]);
    await t.query(
      `update accounts set up_bytes = 300, down_bytes = 400 where device_id in (select id from devices where client_id = $1)`,
      [id],
    );
  }

  async function traffic(id: string) {
    const [row] = await t.query<Record<string, number>>(
      `select c.used_bytes::int as used, (select sum(up_bytes + down_bytes) from devices where client_id = c.id)::int as devices,
              (select sum(a.up_bytes + a.down_bytes) from accounts a join devices d on d.id = a.device_id where d.client_id = c.id)::int as accounts
         from clients c where c.id = $1`,
      [id],
    );
    return row;
  }

  test('a daily cycle renews on its boundary: usage zeroed everywhere, boundary stamped, exhausted revived and bumped', async () => {
    const iface = (await createNodeWithInterface()).iface;
    const anchor = new Date(Math.ceil((Date.now() + 100 * DAY) / 1000) * 1000);
    const exhausted = (await createClient({ interfaceIds: [iface.id], resetCycle: 'daily', quotaBytes: 500 })).id;
    await anchorWithTraffic(exhausted, anchor, 'exhausted');
    const before = await revision(iface.nodeId);

    await transitions.applyTimeTransitions(new Date(anchor.getTime() + DAY - 1));
    expect(await traffic(exhausted)).toEqual({ used: 700, devices: 700, accounts: 700 });

    const now = new Date(anchor.getTime() + 3 * DAY + 3_600_000);
    const result = await transitions.applyTimeTransitions(now);
    expect(result.renewed).toBeGreaterThanOrEqual(1);
    expect(await traffic(exhausted)).toEqual({ used: 0, devices: 0, accounts: 0 });
    const after = await getClient(exhausted);
    expect(after.status).toBe('active');
    expect(after.lastResetAt).toBe(new Date(anchor.getTime() + 3 * DAY).toISOString());
    expect(await revision(iface.nodeId)).toBe(before + 1);

    // The next renewal counts from the stamped boundary, once.
    await t.query(`update clients set used_bytes = 1 where id = $1`, [exhausted]);
    await transitions.applyTimeTransitions(now);
    expect((await traffic(exhausted)).used).toBe(1);
    await transitions.applyTimeTransitions(new Date(anchor.getTime() + 4 * DAY));
    expect((await traffic(exhausted)).used).toBe(0);
    expect((await getClient(exhausted)).lastResetAt).toBe(new Date(anchor.getTime() + 4 * DAY).toISOString());
  });

  test('renewal leaves expiry alone: an expired client stays expired, a disabled one disabled; no bump', async () => {
    const iface = (await createNodeWithInterface()).iface;
    const anchor = new Date(Math.ceil((Date.now() + 200 * DAY) / 1000) * 1000);
    const expired = (
      await createClient({
        interfaceIds: [iface.id],
        resetCycle: 'weekly',
        quotaBytes: 500,
        expiresAt: new Date(anchor.getTime() + DAY).toISOString(),
      })
    ).id;
    await anchorWithTraffic(expired, anchor, 'exhausted');
    const disabled = (await createClient({ interfaceIds: [iface.id], resetCycle: 'weekly', enabled: false })).id;
    await anchorWithTraffic(disabled, anchor, 'disabled');
    const before = await revision(iface.nodeId);

    await transitions.applyTimeTransitions(new Date(anchor.getTime() + 8 * DAY));
    const afterExpired = await getClient(expired);
    expect(afterExpired).toMatchObject({
      status: 'expired',
      usedBytes: 0,
      lastResetAt: new Date(anchor.getTime() + 7 * DAY).toISOString(),
    });
    expect(await getClient(disabled)).toMatchObject({ status: 'disabled', usedBytes: 0 });
    expect(await revision(iface.nodeId)).toBe(before);
  });

  test('a reset by hand moves the anchor: the cycle counts from lastResetAt', async () => {
    const iface = (await createNodeWithInterface()).iface;
    const id = (await createClient({ interfaceIds: [iface.id], resetCycle: 'daily' })).id;
    const reset = await answer(typed().POST('/api/clients/{id}/reset', { params: { path: { id } } }));
    const lastResetAt = new Date(reset.body.client.lastResetAt!);
    await t.query(`update clients set used_bytes = 9, created_at = '2001-01-01' where id = $1`, [id]);
    await transitions.applyTimeTransitions(new Date(lastResetAt.getTime() + DAY - 1));
    expect((await getClient(id)).usedBytes).toBe(9);
    await transitions.applyTimeTransitions(new Date(lastResetAt.getTime() + DAY));
    expect(await getClient(id)).toMatchObject({
      usedBytes: 0,
      lastResetAt: new Date(lastResetAt.getTime() + DAY).toISOString(),
    });
  });

  test('the job renews only clients whose next_reset_at has come; the trigger keeps it on every change', async () => {
    const iface = (await createNodeWithInterface()).iface;
    const anchor = new Date(Math.ceil((Date.now() + 300 * DAY) / 1000) * 1000);
    const due = (await createClient({ interfaceIds: [iface.id], resetCycle: 'daily' })).id;
    const notDue = (await createClient({ interfaceIds: [iface.id], resetCycle: 'weekly' })).id;
    const none = (await createClient({ interfaceIds: [iface.id] })).id;
    for (const id of [due, notDue, none]) await anchorWithTraffic(id, anchor);
    const nextReset = async (id: string) => {
      const [row] = await t.query<{ at: Date | null }>(`select next_reset_at as at from clients where id = $1`, [id]);
      return row.at === null ? null : row.at.toISOString();
    };
    const at = (ms: number) => new Date(anchor.getTime() + ms).toISOString();
    // Set from the anchor (created_at here) and the cycle; none without a cycle.
    expect([await nextReset(due), await nextReset(notDue), await nextReset(none)]).toEqual([
      at(DAY),
      at(7 * DAY),
      null,
    ]);

    await transitions.applyTimeTransitions(new Date(anchor.getTime() + 2 * DAY));
    expect((await traffic(due)).used).toBe(0);
    expect((await traffic(notDue)).used).toBe(700);
    expect((await traffic(none)).used).toBe(700);
    // The renewal stamped lastResetAt = anchor + 2 days: the next one a day after.
    expect(await nextReset(due)).toBe(at(3 * DAY));

    // A changed cycle moves it; no cycle clears it.
    const patch = (id: string, body: { resetCycle: ResetCycle }) =>
      answer(typed().PATCH('/api/clients/{id}', { params: { path: { id } }, body }));
    await patch(notDue, { resetCycle: 'daily' });
    expect(await nextReset(notDue)).toBe(at(DAY));
    await patch(none, { resetCycle: 'none' });
    expect(await nextReset(none)).toBeNull();

    // The job reads next_reset_at alone: a client it names as not due yet is left, though its
    // anchor is days old; once due, it renews to its latest boundary.
    await t.query(`update clients set next_reset_at = $2 where id = $1`, [notDue, at(100 * DAY)]);
    await transitions.applyTimeTransitions(new Date(anchor.getTime() + 5 * DAY));
    expect((await traffic(notDue)).used).toBe(700);
    await t.query(`update clients set next_reset_at = $2 where id = $1`, [notDue, at(DAY)]);
    await transitions.applyTimeTransitions(new Date(anchor.getTime() + 5 * DAY));
    expect((await traffic(notDue)).used).toBe(0);
    expect((await getClient(notDue)).lastResetAt).toBe(at(5 * DAY));
    expect(await nextReset(notDue)).toBe(at(6 * DAY));

    // A reset by hand moves it from the reset.
    const reset = await answer(typed().POST('/api/clients/{id}/reset', { params: { path: { id: due } } }));
    expect(await nextReset(due)).toBe(new Date(new Date(reset.body.client.lastResetAt!).getTime() + DAY).toISOString());
  });

  test('the SQL boundaries agree with lastCycleBoundary (monthly clamps to short months, activation beats creation)', async () => {
    const iface = (await createNodeWithInterface()).iface;
    const now = new Date('2300-03-31T12:00:00.000Z');
    const cases: { cycle: ResetCycle; anchor: string; by: 'created_at' | 'activated_at' | 'last_reset_at' }[] = [
      { cycle: 'monthly', anchor: '2300-01-31T10:00:00.000Z', by: 'created_at' },
      { cycle: 'monthly', anchor: '2300-02-28T13:00:00.000Z', by: 'last_reset_at' },
      { cycle: 'monthly', anchor: '2300-03-01T00:00:00.000Z', by: 'activated_at' },
      { cycle: 'monthly', anchor: '2299-12-31T23:59:59.999Z', by: 'created_at' },
      { cycle: 'monthly', anchor: '2298-05-15T08:00:00.000Z', by: 'created_at' },
      { cycle: 'weekly', anchor: '2300-03-10T12:00:00.001Z', by: 'created_at' },
      { cycle: 'weekly', anchor: '2300-03-24T12:00:00.000Z', by: 'activated_at' },
      { cycle: 'daily', anchor: '2300-03-30T12:00:00.001Z', by: 'created_at' },
      { cycle: 'daily', anchor: '2299-07-04T01:02:03.004Z', by: 'last_reset_at' },
      { cycle: 'none', anchor: '2200-01-01T00:00:00.000Z', by: 'created_at' },
    ];
    const ids: string[] = [];
    for (const entry of cases) {
      const id = (await createClient({ interfaceIds: [iface.id], resetCycle: entry.cycle })).id;
      // Anchors by activation or last reset sit on top of a creation time far in the past, to
      // show those take precedence.
      await t.query(`update clients set created_at = $2, used_bytes = 5 where id = $1`, [
        id,
        entry.by === 'created_at' ? entry.anchor : '2100-01-01T00:00:00Z',
      ]);
      if (entry.by !== 'created_at')
        await t.query(`update clients set ${entry.by} = $2 where id = $1`, [id, entry.anchor]);
      ids.push(id);
    }
    await transitions.applyTimeTransitions(now);
    for (const [index, entry] of cases.entries()) {
      const expected = lastCycleBoundary(entry.cycle, new Date(entry.anchor), now);
      const after = await getClient(ids[index]);
      const previousReset = entry.by === 'last_reset_at' ? entry.anchor : null;
      expect({ ...entry, lastResetAt: after.lastResetAt, usedBytes: after.usedBytes }).toEqual({
        ...entry,
        lastResetAt: expected ? expected.toISOString() : previousReset,
        usedBytes: expected ? 0 : 5,
      });
    }
    expect(lastCycleBoundary('monthly', new Date(cases[0].anchor), now)?.toISOString()).toBe(
      '2300-03-31T10:00:00.000Z',
    );
    expect(lastCycleBoundary('monthly', new Date(cases[1].anchor), now)?.toISOString()).toBe(
      '2300-03-28T13:00:00.000Z',
    );
  });
});

/**
 * Waits until the scheduler exists with period `everyMs`, then runs one tick through the worker
 * like the scheduler would.
 */
async function scheduledTickRuns(panel: TestPanel, everyMs = 30_000): Promise<void> {
  const queue = panel.panel.app.get<QueueBackend>(QUEUE_BACKEND).queue(SYSTEM_QUEUE);
  const scheduler = await waitFor(
    'the time-transitions job scheduler',
    async () => (await queue.getJobScheduler(TIME_TRANSITIONS_JOB)) ?? undefined,
    10_000,
  );
  expect(Number(scheduler?.every)).toBe(everyMs);

  const job = await queue.add(TIME_TRANSITIONS_JOB, {});
  const state = await waitFor(
    'the tick to finish',
    async () => {
      const current = await job.getState();
      return current === 'completed' || current === 'failed' ? current : undefined;
    },
    10_000,
  );
  expect(state).toBe('completed');
  const done = await queue.getJob(job.id!);
  expect(done?.returnvalue).toMatchObject({ expired: expect.any(Number), renewed: expect.any(Number) });
}

describe('schedule', () => {
  test('Redis: a job scheduler on the system queue every 30 s, and the worker applies a tick', async () => {
    await scheduledTickRuns(t);
  });

  test('PostgreSQL queue backend (no REDIS_URL): the same', async () => {
    const other = await startTestPanel({ REDIS_URL: '' });
    try {
      await scheduledTickRuns(other);
    } finally {
      await other.stop();
    }
  });

  test('WARREN_TIME_TRANSITIONS_MS sets the period (tests shorten it; production keeps 30 s)', async () => {
    const other = await startTestPanel({ WARREN_TIME_TRANSITIONS_MS: '2000' });
    try {
      await scheduledTickRuns(other, 2000);
    } finally {
      await other.stop();
    }
  });

  // Start-up and shutdown finishing at all, with the store never reachable, is the condition; how
  // long they take is not this test's business (a store that held them up would never let go).
  test('an unreachable queue store does not hold up start-up or shutdown', async () => {
    const other = await startTestPanel({ REDIS_URL: 'redis://127.0.0.1:1' });
    try {
      expect((await other.call('GET', 'health/ready')).status).toBe(503);
    } finally {
      await other.stop();
    }
  });
});
