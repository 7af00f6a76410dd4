import { TableUpkeep } from '../../apps/controller/src/system/table-upkeep.js';
import { fixtures } from '../support/fixtures.js';
import { waitFor } from '../support/wait-for.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';

/**
 * The panel's stand-in for autovacuum (system/table-upkeep.ts), on the server the tests run on:
 * this machine's PostgreSQL has autovacuum off, the tests' own embedded one (WARREN_TEST_SERVICES=
 * own) has it on. Either way the test checks what that server needs.
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
    expect(await upkeep.run()).toEqual({ ran: false, vacuumed: [], analyzed: [] });
    return;
  }
  // Statistics reach pg_stat_user_tables when a transaction ends, at most once a second; the
  // panel's own minute tick may be the run that does it.
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
