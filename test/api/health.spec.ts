import { answer } from '../support/fixtures.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';

/**
 * Liveness (GET /api/health: the process answers; for a supervisor) and readiness
 * (GET /api/health/ready: database and queue store answer, migrations done; for a load balancer).
 */
describe('GET /api/health and /api/health/ready', () => {
  let t: TestPanel | undefined;
  afterEach(async () => {
    await t?.stop();
    t = undefined;
  });

  test('with Redis: alive, and ready with database, queue and migrations', async () => {
    t = await startTestPanel();
    const live = await answer(t.client().GET('/api/health'));
    expect(live.status).toBe(200);
    expect(live.body).toMatchObject({ status: 'ok' });
    expect(live.body.uptimeSeconds).toBeGreaterThanOrEqual(0);
    const ready = await answer(t.client().GET('/api/health/ready'));
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({
      status: 'ready',
      database: { ok: true },
      queue: { ok: true, backend: 'redis' },
      migrations: { ok: true, pending: 0 },
    });
  });

  test('without REDIS_URL the queue runs on PostgreSQL in its own schema', async () => {
    t = await startTestPanel({ REDIS_URL: '' });
    const response = await answer(t.client().GET('/api/health/ready'));
    expect(response.status).toBe(200);
    expect(response.body.queue).toMatchObject({ ok: true, backend: 'postgres' });
    const schemas = await t.query<{ nspname: string }>(`select nspname from pg_namespace where nspname = 'bullmq'`);
    expect(schemas).toHaveLength(1);
  });

  test('an unreachable queue store: still alive (a restart would not help), not ready (503), without connection details', async () => {
    t = await startTestPanel({ REDIS_URL: 'redis://:secret-pass@127.0.0.1:1' });
    expect((await answer(t.client().GET('/api/health'))).status).toBe(200);
    const response = await answer(t.client().GET('/api/health/ready'));
    expect(response.status).toBe(503);
    expect(response.body).toMatchObject({
      status: 'not ready',
      database: { ok: true },
      queue: { ok: false, backend: 'redis' },
    });
    expect(JSON.stringify(response.body)).not.toContain('secret-pass');
  });

  test('a migration the database has not run makes the panel not ready', async () => {
    t = await startTestPanel();
    const [last] = await t.query<{ name: string }>('select name from warren_migrations order by id desc limit 1');
    await t.query('delete from warren_migrations where name = $1', [last!.name]);
    try {
      const response = await answer(t.client().GET('/api/health/ready'));
      expect(response.status).toBe(503);
      expect(response.body).toMatchObject({ status: 'not ready', migrations: { ok: false, pending: 1 } });
    } finally {
      await t.query('insert into warren_migrations (name, executed_at) values ($1, now())', [last!.name]);
    }
  });
});
