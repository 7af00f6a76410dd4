import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { answer } from '../support/fixtures.js';
import { OWNER, startTestPanel, type TestPanel } from '../support/test-panel.js';

let t: TestPanel;
beforeAll(async () => {
  t = await startTestPanel();
});
afterAll(async () => {
  await t?.stop();
});

describe('sign-in and sessions', () => {
  test('login returns a session token usable as Bearer and sets a strict HttpOnly cookie', async () => {
    const response = await answer(t.client().POST('/api/auth/login', { body: OWNER }));
    expect(response.status).toBe(200);
    expect(typeof response.body.token).toBe('string');
    expect(response.body.user).toMatchObject({ username: OWNER.username, role: 'owner' });
    expect((response.body.user as Record<string, unknown>).passwordHash).toBeUndefined();
    const cookie = response.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/warren_session=/);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);

    const me = await answer(t.client(response.body.token).GET('/api/auth/me'));
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ user: { username: OWNER.username }, via: 'session' });

    const viaCookie = await t.call('GET', 'auth/me', { headers: { cookie: `warren_session=${response.body.token}` } });
    expect(viaCookie.status).toBe(200);
  });

  test('the session token is stored hashed, never in the clear', async () => {
    const token = await t.login();
    const found = await answer(t.client(token).GET('/api/auth/me'));
    expect(found.status).toBe(200);
    const stored = await t.query<{ token_hash: string }>('select token_hash from sessions');
    expect(stored.some((row) => row.token_hash === token)).toBe(false);
    expect(stored.every((row) => /^[0-9a-f]{64}$/.test(row.token_hash))).toBe(true);
  });

  test('logout ends the session', async () => {
    const token = await t.login();
    expect((await answer(t.client(token).POST('/api/auth/logout'))).status).toBe(200);
    const after = await t.call('GET', 'auth/me', { token });
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ error: 'invalid or expired credentials', field: '' });
  });

  test('logout with an API token is a 400 saying how to revoke it; the token keeps working', async () => {
    const session = await t.login();
    const issued = await answer(t.client(session).POST('/api/tokens', { body: { name: 'not-a-session' } }));
    const token = (issued.body as { token: string }).token;
    const refused = await t.call('POST', 'auth/logout', { token });
    expect(refused).toMatchObject({
      status: 400,
      body: { error: expect.stringContaining('not a session'), field: '' },
    });
    expect((await t.call('GET', 'auth/me', { token })).status).toBe(200);
  });

  test('a stored password hash the panel cannot use (scrypt parameters it never makes) is a failed sign-in: 401, warned once', async () => {
    const owner = 'select password_hash from users where username = $1';
    const [{ password_hash: good }] = await t.query<{ password_hash: string }>(owner, [OWNER.username]);
    const logged: string[] = [];
    const spy = jest
      .spyOn(Logger.prototype, 'warn')
      .mockImplementation((message: unknown) => void logged.push(String(message)));
    try {
      // N = 3 is no power of two (crypto.scrypt threw a RangeError: a 500); p = 100000 runs minutes.
      for (const params of ['3$8$1', '16384$8$100000']) {
        const bad = good.replace(/^scrypt\$\d+\$\d+\$\d+\$/, `scrypt$${params}$`);
        await t.query('update users set password_hash = $1 where username = $2', [bad, OWNER.username]);
        for (let i = 0; i < 2; i++) {
          const refused = await t.call('POST', 'auth/login', { body: OWNER });
          expect([params, refused.status, refused.body]).toEqual([
            params,
            401,
            { error: 'invalid username or password', field: '' },
          ]);
        }
      }
    } finally {
      await t.query('update users set password_hash = $1 where username = $2', [good, OWNER.username]);
      spy.mockRestore();
    }
    expect(
      logged.filter((message) => message.includes(`password hash of "${OWNER.username}" cannot be used`)),
    ).toHaveLength(1);
    expect((await t.call('POST', 'auth/login', { body: OWNER })).status).toBe(200);
  });

  test('wrong password is a 401 with the error shape', async () => {
    const response = await t.call('POST', 'auth/login', { body: { username: OWNER.username, password: 'nope-nope' } });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ error: 'invalid username or password', field: '' });
  });
});
