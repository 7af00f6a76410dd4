import { answer } from '../support/fixtures.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';

describe('GET /api/health', () => {
  let t: TestPanel | undefined;
  afterEach(async () => {
    await t?.stop();
    t = undefined;
  });

  test('with Redis: database and queue reachable', async () => {
    t = await startTestPanel();
    const response = await answer(t.client().GET('/api/health'));
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'ok', database: { ok: true }, queue: { ok: true, backend: 'redis' } });
  });

  test('without REDIS_URL the queue runs on PostgreSQL in its own schema', async () => {
    t = await startTestPanel({ REDIS_URL: '' });
    const response = await answer(t.client().GET('/api/health'));
    expect(response.status).toBe(200);
    expect(response.body.queue).toMatchObject({ ok: true, backend: 'postgres' });
    const schemas = await t.query<{ nspname: string }>(`select nspname from pg_namespace where nspname = 'bullmq'`);
    expect(schemas).toHaveLength(1);
  });

  test('an unreachable queue store is reported as 503 degraded, without connection details', async () => {
    t = await startTestPanel({ REDIS_URL: 'redis://:secret-pass@127.0.0.1:1' });
    const response = await answer(t.client().GET('/api/health'));
    expect(response.status).toBe(503);
    expect(response.body).toMatchObject({ status: 'degraded', database: { ok: true }, queue: { ok: false, backend: 'redis' } });
    expect(JSON.stringify(response.body)).not.toContain('secret-pass');
  });
});
