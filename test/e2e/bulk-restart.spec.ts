import { freshInterface } from '../support/fixtures.js';
import { restartablePanel } from '../support/panel-process-api.js';
import { waitFor } from '../support/wait-for.js';

/**
 * A bulk job interrupted by a controller killed mid-job (SIGKILL, no shutdown) finishes after the
 * restart, each client changed exactly once and each node bumped once (issue 23 item 10). On the
 * queue store the embedded default uses: BullMQ on PostgreSQL, no REDIS_URL.
 */
const CLIENTS = 30_000;
const session = restartablePanel({ name: 'bulk-restart' });
const call: ReturnType<typeof session>['call'] = (...args) => session().call(...args);
const query: ReturnType<typeof session>['query'] = (...args) => session().query(...args);

test('a controller killed during an extend of 30,000 clients: after the restart the job completes, none extended twice', async () => {
  const made = await call('POST', 'interfaces', freshInterface());
  expect(made.status).toBe(201);
  const iface = made.body as { id: string; nodeId: string };
  // Seeded in SQL, as the bench does: creating them through the API is not what is tested.
  await query(
    `insert into clients (id, name, note, groups, quota_bytes, used_bytes, up_bytes, down_bytes, expires_at, device_limit,
                          rate_bits_per_sec, reset_cycle, start_on_first_use, duration_seconds, status, sub_id, owner_id, created_at, updated_at)
     select gen_random_uuid(), 'bulk-' || n, '', '{}', 0, 0, 0, 0, timestamptz '2030-01-01T00:00:00Z', 1, 0, 'none', false, 0,
            'active', md5(random()::text || n),
              (select id from users where role = 'owner' order by created_at limit 1), now(), now()
       from generate_series(1, $1) n`,
    [CLIENTS],
  );
  await query(`insert into client_interfaces (client_id, interface_id) select id, $1 from clients`, [iface.id]);
  // Expired, so the extension revives them and the node must change (bumped once, at the end).
  await query(`update clients set expires_at = timestamptz '2020-01-01T00:00:00Z', status = 'expired'`);
  const [{ desired_revision: before }] = await query<{ desired_revision: string }>(
    `select desired_revision from nodes where id = $1`,
    [iface.nodeId],
  );

  const started = await call('POST', 'clients/extend', { filter: {}, days: 3650 });
  expect(started.status).toBe(202);
  const id = started.body.id as string;
  // Killed once part of the job has committed and part has not.
  const doneAtKill = await waitFor(
    'the job to be part-way',
    async () => {
      const [row] = await query<{ done: number }>(`select done from client_bulk_jobs where id = $1`, [id]);
      return row.done > 0 && row.done < CLIENTS ? row.done : undefined;
    },
    60_000,
    20,
  );
  await session().kill();
  const [interrupted] = await query<{ done: number; finished_at: string | null }>(
    `select done, finished_at from client_bulk_jobs where id = $1`,
    [id],
  );
  expect(interrupted.finished_at).toBeNull();
  expect(interrupted.done).toBeGreaterThanOrEqual(doneAtKill);
  expect(interrupted.done).toBeLessThan(CLIENTS);
  // Not applied silently half-way: the node has not been told yet.
  expect((await query(`select desired_revision from nodes where id = $1`, [iface.nodeId]))[0]).toEqual({
    desired_revision: before,
  });

  await session().restart();
  const job = await waitFor(
    'the job to end after the restart',
    async () => {
      const view = (await call('GET', `jobs/${id}`)).body;
      return view.state === 'completed' || view.state === 'failed' ? view : undefined;
    },
    120_000,
    500,
  );
  expect(job).toMatchObject({ state: 'completed', progress: { done: CLIENTS, total: CLIENTS, changed: CLIENTS } });
  // Every client extended exactly once from the same expiry: one value, 3650 days after 2020-01-01.
  expect(
    await query(
      `select to_char(expires_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI') as expiry, status, count(*)::int as n
         from clients group by 1, 2`,
    ),
  ).toEqual([{ expiry: '2029-12-29 00:00', status: 'active', n: CLIENTS }]);
  const [{ desired_revision: after }] = await query<{ desired_revision: string }>(
    `select desired_revision from nodes where id = $1`,
    [iface.nodeId],
  );
  expect(Number(after)).toBe(Number(before) + 1);
  expect(await query(`select count(*)::int as n from client_bulk_items`)).toEqual([{ n: 0 }]);
}, 300_000);
