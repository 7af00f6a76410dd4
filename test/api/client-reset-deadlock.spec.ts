import pg from 'pg';
import { fixtures } from '../support/fixtures.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';
import { waitFor } from '../support/wait-for.js';

/**
 * POST /api/clients/{id}/reset against a counter batch in flight (the soak met this as a 500): the
 * batch takes accounts, devices, then the client; the reset the client, then its devices. Played
 * here by hand with a transaction in the batch's order, so that PostgreSQL picks the reset as the
 * deadlock's victim: the reset is tried again and answers 200.
 */

let t: TestPanel;
let token: string;
const f = fixtures(() => ({ t, token }));

beforeAll(async () => {
  t = await startTestPanel();
  token = await t.login();
}, 60_000);
afterAll(async () => {
  await t?.stop();
});

test('a reset that deadlocks with a counter batch is tried again and answers 200', async () => {
  const iface = await f.createInterface();
  const client = await f.createClient({ name: 'deadlock-reset', interfaceIds: [iface.id] });
  const batch = new pg.Client({ connectionString: t.database.url });
  await batch.connect();
  try {
    await batch.query('begin');
    // The batch's first steps: the client's devices (and their accounts) are locked.
    await batch.query('update devices set up_bytes = up_bytes + 10 where client_id = $1', [client.id]);
    const reset = t.call('POST', `clients/${client.id}/reset`, { token });
    // The reset holds the client and waits for the devices…
    await waitFor(
      'the reset waiting for a lock',
      async () =>
        (
          await batch.query(
            `select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()`,
          )
        ).rowCount! > 0 || undefined,
      20_000,
      5,
    );
    // …and the batch now wants the client: a cycle. The reset has waited longer, so its deadlock
    // check (deadlock_timeout after it began waiting) finds it first and aborts the reset.
    await batch.query('update clients set used_bytes = used_bytes + 10 where id = $1', [client.id]);
    await batch.query('commit');
    const answered = await reset;
    expect(answered.status).toBe(200);
    expect(answered.body.previous.usedBytes).toBe(10);
    const [row] = await t.query<{ used: string }>('select used_bytes::text as used from clients where id = $1', [
      client.id,
    ]);
    expect(row!.used).toBe('0');
  } finally {
    await batch.end();
  }
});
