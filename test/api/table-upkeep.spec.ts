import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import pg from 'pg';
import {
  holdOffTableUpkeep,
  releaseTableUpkeep,
  TABLE_UPKEEP_APPLICATION,
} from '../../apps/controller/src/database/upkeep-hold-off.js';
import type { QueueBackend } from '../../apps/controller/src/queue/queue-backend.js';
import { QUEUE_BACKEND } from '../../apps/controller/src/runtime.js';
import { HELD_OFF_GAP_MS, TableUpkeep, type DueTable } from '../../apps/controller/src/system/table-upkeep.js';
import {
  TABLE_UPKEEP_EVERY_MS,
  TABLE_UPKEEP_JOB,
  TABLE_UPKEEP_QUEUE,
} from '../../apps/controller/src/system/table-upkeep.scheduler.js';
import { fixtures } from '../support/fixtures.js';
import { waitFor } from '../support/wait-for.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';

/**
 * The panel's stand-in for autovacuum (system/table-upkeep.ts), on the server the tests run on:
 * this machine's PostgreSQL has autovacuum off, the tests' own embedded one (WARREN_TEST_SERVICES=
 * own) has it on. Either way the test checks what that server needs. On the PostgreSQL queue
 * store (REDIS_URL unset), whose schema the upkeep keeps too.
 */

let t: TestPanel;
let token: string;

beforeAll(async () => {
  t = await startTestPanel({ REDIS_URL: '' });
  token = await t.login();
  const queue = t.panel.app.get<QueueBackend>(QUEUE_BACKEND).queue(TABLE_UPKEEP_QUEUE);
  const scheduler = await waitFor(
    'the table upkeep job scheduler',
    async () => (await queue.getJobScheduler(TABLE_UPKEEP_JOB)) ?? undefined,
  );
  expect(scheduler).toMatchObject({ every: TABLE_UPKEEP_EVERY_MS });
  // The runs below are the tests' own: the minute's run would take their tables first.
  await queue.pause();
});
afterAll(async () => {
  await t?.stop();
});

const { call, createInterface } = fixtures(() => ({ t, token }));

async function clientsStats() {
  const [row] = await t.query<{ analyzed: boolean; dead: number; tuples: number }>(
    `select s.last_analyze is not null as analyzed, s.n_dead_tup::int as dead, c.reltuples::int as tuples
       from pg_stat_user_tables s join pg_class c on c.oid = s.relid
      where s.schemaname = current_schema() and s.relname = 'clients'`,
  );
  return row;
}

test('analyzes and vacuums the tables past autovacuum thresholds when the server runs no autovacuum', async () => {
  const iface = await createInterface({ subnet: '10.62.0.0/20' });
  const made = await call('POST', 'clients/batch', { namePrefix: 'upkeep-', count: 300, interfaceIds: [iface.id] });
  expect(made.status).toBe(201);
  // Every client touched four times: 1,200 dead versions of `clients` rows, past the table's own
  // threshold (1,000 + 1%, Migration20261127140200_counter_batches).
  for (let i = 0; i < 4; i++) await t.query(`update clients set note = $1`, [`touched ${i}`]);
  await t.query('select pg_stat_force_next_flush()').catch(() => undefined);
  const [{ autovacuum }] = await t.query<{ autovacuum: string }>('show autovacuum');
  const upkeep = t.panel.app.get(TableUpkeep);

  if (autovacuum === 'on') {
    expect(await upkeep.run()).toEqual({ ran: false, vacuumed: [], analyzed: [], deferred: [] });
    return;
  }
  // Statistics reach pg_stat_user_tables when a transaction ends, at most once a second.
  const runs: Awaited<ReturnType<TableUpkeep['run']>>[] = [];
  const stats = await waitFor('clients vacuumed and analyzed', async () => {
    runs.push(await upkeep.run());
    const now = await clientsStats();
    return now.analyzed && now.dead < 300 ? now : undefined;
  });
  expect(runs.every((run) => run.ran)).toBe(true);
  expect(stats.tuples).toBeGreaterThanOrEqual(300);

  // Done: the next run finds nothing due on `clients`.
  const again = await upkeep.run();
  expect(again.vacuumed).not.toContain('clients');
  expect(again.analyzed).not.toContain('clients');
});

/** Tables of the test's own, due at once (thresholds 0), which the server's autovacuum leaves alone. */
async function dueTable(name: string, rows: number, deleted: number) {
  await t.query(
    `create table ${name} (x int) with (autovacuum_enabled = false, autovacuum_vacuum_threshold = 0,
       autovacuum_vacuum_scale_factor = 0, autovacuum_analyze_threshold = 0, autovacuum_analyze_scale_factor = 0)`,
  );
  await t.query(`insert into ${name} select generate_series(1, ${rows})`);
  await t.query(`delete from ${name} where x <= ${deleted}`);
  // The statistics of a session reach pg_stat_user_tables when it ends (at most a second later).
  await waitFor(`${name} counted`, async () => {
    const [row] = await t.query<{ dead: number }>(
      `select n_dead_tup::int as dead from pg_stat_user_tables where schemaname = current_schema() and relname = $1`,
      [name],
    );
    return row?.dead === deleted;
  });
}

const only =
  (...names: string[]) =>
  (due: DueTable[]) =>
    due.filter((table) => names.includes(table.name));

test('most due first, and no table started past the time budget: the rest is left for the next run', async () => {
  await dueTable('upkeep_little', 1000, 10); // 10 dead rows over a threshold of 0, in 990
  await dueTable('upkeep_much', 1000, 500); // 500 in 500
  const upkeep = t.panel.app.get(TableUpkeep);
  expect(await upkeep.runOn(only('upkeep_little', 'upkeep_much'), 0)).toEqual({
    ran: true,
    vacuumed: [],
    analyzed: [],
    deferred: ['upkeep_much', 'upkeep_little'],
  });
  expect(await upkeep.runOn(only('upkeep_little', 'upkeep_much'))).toEqual({
    ran: true,
    vacuumed: ['upkeep_much', 'upkeep_little'],
    analyzed: ['upkeep_much', 'upkeep_little'],
    deferred: [],
  });
});

test("the queue store's tables are the upkeep's too", async () => {
  // BullMQ's job table changes with every tick of the panel's recurring jobs; a threshold of 0
  // makes it due at its next change.
  await t.query(`alter table bullmq.job set (autovacuum_analyze_threshold = 0, autovacuum_analyze_scale_factor = 0)`);
  const upkeep = t.panel.app.get(TableUpkeep);
  const run = await waitFor('bullmq.job due', async () => {
    const result = await upkeep.runOn(only('bullmq.job'));
    return result.analyzed.length > 0 ? result : undefined;
  });
  expect(run.analyzed).toEqual(['bullmq.job']);
});

/**
 * An identity function `name`(`type`) for an expression index that sleeps a minute in the
 * upkeep's session (only there: the tests' own writes do not): a VACUUM's ANALYZE evaluates it
 * over the rows, so an upkeep VACUUM of a table with such an index runs a minute.
 */
async function sleepyInUpkeep(name: string, type: 'int' | 'text') {
  await t.query(`
    create function ${name}(x ${type}) returns ${type} language plpgsql immutable as $$
    begin
      if current_setting('application_name') = '${TABLE_UPKEEP_APPLICATION}' then perform pg_sleep(60); end if;
      return x;
    end $$`);
}

/** Until the upkeep's VACUUM of `table` sleeps in such a function. */
async function upkeepAsleepIn(table: string) {
  await waitFor(`the upkeep asleep in its VACUUM of ${table}`, async () => {
    const rows = await t.query(
      `select 1 from pg_stat_activity where datname = current_database() and application_name = $1
          and query like 'vacuum%' || $2 and wait_event = 'PgSleep'`,
      [TABLE_UPKEEP_APPLICATION, table],
    );
    return rows.length > 0;
  });
}

test('an upkeep VACUUM gives way to a restore or migration: its table is locked at once, and no other is started meanwhile', async () => {
  await sleepyInUpkeep('upkeep_slow', 'int');
  await dueTable('upkeep_held', 20, 10);
  await t.query(`create index upkeep_held_slow on upkeep_held ((upkeep_slow(x)))`);
  const upkeep = t.panel.app.get(TableUpkeep);
  const started = Date.now();
  const running = upkeep.runOn(only('upkeep_held'));
  await upkeepAsleepIn('upkeep_held');

  // What a restore (backups.repository.ts, beginHoldingEveryTable) and the start's migrations
  // (database/orm.ts) do before they take their tables.
  const restore = new pg.Client({ connectionString: t.database.url });
  await restore.connect();
  try {
    await holdOffTableUpkeep(restore);
    await restore.query('begin');
    // Without the hold-off this waits for the VACUUM's minutes asleep, and fails after 20 s.
    await restore.query(`set local lock_timeout = '20s'`);
    await restore.query('lock table upkeep_held in access exclusive mode');
    await restore.query('commit');
    expect(await running).toEqual({ ran: true, vacuumed: [], analyzed: [], deferred: ['upkeep_held'] });
    // The VACUUM's minute did not pass (a bound with room to spare, not a measurement).
    expect(Date.now() - started).toBeLessThan(30_000);

    // Held off: a run starts nothing while the restore's session lasts.
    await t.query(`create or replace function upkeep_slow(x int) returns int language sql immutable as 'select x'`);
    expect(await upkeep.runOn(only('upkeep_held'))).toEqual({
      ran: true,
      vacuumed: [],
      analyzed: [],
      deferred: ['upkeep_held'],
    });
  } finally {
    await restore.end();
  }
  // And after it, the table is taken again (its ANALYZE: the VACUUM's pass over the rows ended
  // before the cancel, in the ANALYZE that slept).
  expect(await upkeep.runOn(only('upkeep_held'))).toMatchObject({
    ran: true,
    analyzed: ['upkeep_held'],
    deferred: [],
  });
});

test("a restore through the API takes the panel's tables from an upkeep VACUUM of one of them", async () => {
  const backup = await call('POST', 'backups');
  expect(backup.status).toBe(201);
  const { name } = backup.body as { name: string };
  // `clients` due at its next change, and a VACUUM of it asleep in its ANALYZE pass (as above).
  await sleepyInUpkeep('upkeep_nap', 'text');
  await t.query(`create index clients_upkeep_nap on clients ((upkeep_nap(id::text)))`);
  await t.query(
    `alter table clients set (autovacuum_vacuum_threshold = 0, autovacuum_vacuum_scale_factor = 0,
       autovacuum_analyze_threshold = 0, autovacuum_analyze_scale_factor = 0)`,
  );
  await t.query(`update clients set note = 'napping'`);
  await waitFor('the update counted', async () => {
    const [row] = await t.query<{ changed: number }>(
      `select n_mod_since_analyze::int as changed from pg_stat_user_tables where schemaname = current_schema() and relname = 'clients'`,
    );
    return row.changed > 0;
  });
  const upkeep = t.panel.app.get(TableUpkeep);
  const running = upkeep.runOn(only('clients'));
  await upkeepAsleepIn('clients');

  // Done within the request (200). Without the upkeep giving way, the restore's lock is cut off
  // and tried again for 60 s, then fails (503): the request answered 202 after its 25 s, the
  // restore still trying.
  const restored = await call('POST', `backups/${name}/restore`);
  expect(restored.status).toBe(200);
  expect(await running).toMatchObject({ ran: true, deferred: ['clients'] });
});

test('an upkeep held off for ten minutes says so, naming the session that holds it', async () => {
  await dueTable('upkeep_waiting', 20, 10);
  const upkeep = t.panel.app.get(TableUpkeep);
  const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  const saidHeldOff = () => warn.mock.calls.map(([message]) => String(message)).filter((m) => m.includes('held off'));
  const holder = new pg.Client({ connectionString: t.database.url, application_name: 'stuck restore' });
  const minute = 60_000;
  const start = Date.now();
  // The upkeep's own clock, minutes on: the panel's other parts keep the process's.
  const runAt = (minutes: number, table = 'upkeep_waiting') => {
    upkeep.clock = () => start + minutes * minute;
    return upkeep.runOn(only(table));
  };
  try {
    await holder.connect();
    await holdOffTableUpkeep(holder);
    // The job runs every minute; every third minute is enough here (the gap is longer).
    expect(await runAt(0)).toMatchObject({ vacuumed: [], deferred: ['upkeep_waiting'] });
    for (const minutes of [3, 6, 9]) expect(await runAt(minutes)).toMatchObject({ deferred: ['upkeep_waiting'] });
    expect(saidHeldOff()).toEqual([]);
    await runAt(10);
    expect(saidHeldOff()).toEqual([
      expect.stringMatching(/held off for 10 min.*pid \d+ \(application 'stuck restore', user '\S+', connected /),
    ]);
    // Said once per ten minutes, not at every run.
    for (const minutes of [11, 14, 17]) await runAt(minutes);
    expect(saidHeldOff()).toHaveLength(1);
    await runAt(20);
    expect(saidHeldOff()).toHaveLength(2);

    // Let go: the next run takes the table, and a hold-off after it counts from zero.
    await releaseTableUpkeep(holder);
    expect(await runAt(21)).toMatchObject({ vacuumed: ['upkeep_waiting'], deferred: [] });
    await holdOffTableUpkeep(holder);
    await dueTable('upkeep_waiting_again', 20, 10);
    const runAgainAt = (minutes: number) => runAt(minutes, 'upkeep_waiting_again');
    expect(await runAgainAt(22)).toMatchObject({ deferred: ['upkeep_waiting_again'] });
    for (const minutes of [25, 28, 31]) await runAgainAt(minutes);
    expect(saidHeldOff()).toHaveLength(2);
    // Held off again after runs that did not try the lock for longer than the gap (nothing due,
    // or another controller's turn): a new hold-off too.
    const back = 31 + HELD_OFF_GAP_MS / minute + 1;
    for (const minutes of [back, back + 3, back + 6, back + 9]) await runAgainAt(minutes);
    expect(saidHeldOff()).toHaveLength(2);
  } finally {
    upkeep.clock = () => Date.now();
    await holder.end();
    warn.mockRestore();
  }
});
