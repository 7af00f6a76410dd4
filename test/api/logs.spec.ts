import { randomUUID } from 'node:crypto';
import { BackupJobs } from '../../apps/controller/src/backups/backup-jobs.js';
import { jsonLines, tapOutput, type OutputTap } from '../support/output-tap.js';
import { OWNER, startTestPanel, type TestPanel } from '../support/test-panel.js';
import { waitFor } from '../support/wait-for.js';

/**
 * The panel's log as an operator's log shipper sees it (WARREN_LOG_FORMAT=json, the default when
 * stdout is not a terminal): one JSON object a line, each request's lines carrying the id its
 * answer's X-Request-Id header gives, job lines their job id, and no secret a caller sent.
 */

let t: TestPanel;
let tap: OutputTap;

beforeAll(async () => {
  tap = tapOutput();
  t = await startTestPanel({ WARREN_LOG_LEVEL: 'log', WARREN_LOG_FORMAT: 'json' });
}, 60_000);

afterAll(async () => {
  await t?.stop();
  tap?.untap();
});

/** The panel's log lines (this file's process writes nothing else as JSON). */
const lines = () => jsonLines(tap.text()).filter((line) => line.name === 'warren');

test('every line is JSON with a time, a level and a message', () => {
  const all = lines();
  expect(all.length).toBeGreaterThan(0);
  for (const line of all)
    expect(line).toMatchObject({ time: expect.any(String), level: expect.any(Number), msg: expect.any(String) });
});

test('a request gets an id (X-Request-Id), and its line carries it with the route pattern', async () => {
  const token = await t.login();
  const response = await t.call('GET', `clients/${randomUUID()}`, { token });
  const id = response.headers.get('x-request-id')!;
  expect(id).toMatch(/^[0-9a-f-]{36}$/);
  const line = await waitFor('the request line', () => lines().find((candidate) => candidate.reqId === id));
  expect(line).toMatchObject({ msg: 'request answered', method: 'GET', route: '/api/clients/:id', status: 404 });
  // Only its own fields: nothing an earlier line of the same request set (a service's context) leaks into it.
  const signIn = lines().find(
    (candidate) =>
      candidate.msg === 'request answered' && candidate.route === '/api/auth/login' && candidate.status === 200,
  );
  expect(signIn).toBeDefined();
  expect(signIn!.context).toBeUndefined();
});

test("a caller's sane X-Request-Id is kept; one too long or with unsafe characters is replaced", async () => {
  const kept = await t.call('GET', 'health/ready', { headers: { 'x-request-id': 'trace-4f2a.9:b_c' } });
  expect(kept.headers.get('x-request-id')).toBe('trace-4f2a.9:b_c');
  for (const insane of ['x'.repeat(129), 'a b', 'id"with"quotes', 'id\\n{"level":60}']) {
    const replaced = await t.call('GET', 'health', { headers: { 'x-request-id': insane } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  }
  // Refusals get one too (the request layer answers them before routing).
  const refused = await t.call('POST', 'auth/login', { body: '{', headers: { 'x-request-id': 'bad-json-1' } });
  expect(refused.status).toBe(400);
  expect(refused.headers.get('x-request-id')).toBe('bad-json-1');
});

test("lines a service writes while handling a request carry the request's id; secrets sent never appear", async () => {
  const password = `wrong-${randomUUID()}`;
  const refused = await t.call('POST', 'auth/login', {
    body: { username: OWNER.username, password },
    headers: { 'x-request-id': 'login-refused-1' },
  });
  expect(refused.status).toBe(401);
  const line = await waitFor('the refused sign-in line', () =>
    lines().find((candidate) => candidate.reqId === 'login-refused-1' && candidate.context === 'auth'),
  );
  expect(line.msg).toMatch(/sign-in refused for "owner"/);
  expect(line.level).toBe(40);

  // A made-up API token and session cookie: refused, and nowhere in the log.
  const fakeToken = `wrn_${'A1b2C3d4'.repeat(5)}xyz123`;
  const cookie = `warren_session=${randomUUID()}`;
  expect((await t.call('GET', 'auth/me', { headers: { authorization: `Bearer ${fakeToken}`, cookie } })).status).toBe(
    401,
  );
  const session = await t.login();
  expect((await t.call('GET', 'auth/me', { token: session })).status).toBe(200);
  await waitFor(
    'the last request line',
    () => lines().filter((candidate) => candidate.route === '/api/auth/me').length >= 2,
  );
  const text = tap.text();
  for (const secret of [password, OWNER.password, fakeToken, cookie, session]) expect(text).not.toContain(secret);
});

test("a job's lines carry its job id and queue", async () => {
  const jobs = t.panel.app.get(BackupJobs);
  const jobId = await jobs.start('backup', { trigger: 'api' });
  expect((await jobs.wait(jobId, 30_000)).state).toBe('completed');
  // A line the backup job writes while it runs (retention), or at least the one the runner logs.
  const line = await waitFor('a line of the job', () => lines().find((candidate) => candidate.jobId === jobId));
  expect(line.queue).toEqual(expect.any(String));
});
