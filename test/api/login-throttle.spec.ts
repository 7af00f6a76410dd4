import { OWNER, startTestPanel, type TestPanel } from '../support/test-panel.js';

let t: TestPanel;
beforeAll(async () => {
  t = await startTestPanel();
});
afterAll(async () => {
  await t?.stop();
});

describe('login throttling', () => {
  test('after five free failures a username is locked out with 429 and Retry-After, even with the right password', async () => {
    for (let attempt = 1; attempt <= 5; attempt++) {
      const response = await t.call('POST', 'auth/login', { body: { username: OWNER.username, password: `wrong-${attempt}` } });
      expect(response.status).toBe(401);
    }
    const sixth = await t.call('POST', 'auth/login', { body: { username: OWNER.username, password: 'wrong-6' } });
    expect(sixth.status).toBe(401);
    const locked = await t.call('POST', 'auth/login', { body: OWNER });
    expect(locked.status).toBe(429);
    expect(locked.body).toEqual({ error: expect.stringMatching(/too many/), field: '' });
    const retryAfter = Number(locked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(30);
  });

  test('lockouts double with further failures and are shared by username case variants', async () => {
    await t.query(`update login_throttles set locked_until = null`);
    const failed = await t.call('POST', 'auth/login', { body: { username: OWNER.username.toUpperCase(), password: 'wrong-7' } });
    expect(failed.status).toBe(401);
    const locked = await t.call('POST', 'auth/login', { body: OWNER });
    expect(locked.status).toBe(429);
    const retryAfter = Number(locked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(30);
    expect(retryAfter).toBeLessThanOrEqual(60);
  });

  test('a success clears the username counter once the lockout has passed', async () => {
    await t.query(`update login_throttles set locked_until = null`);
    await t.query(`delete from login_throttles where key like 'ip:%'`);
    expect((await t.call('POST', 'auth/login', { body: OWNER })).status).toBe(200);
    const rows = await t.query<{ key: string }>(`select key from login_throttles where key like 'user:%'`);
    expect(rows).toEqual([]);
  });
});
