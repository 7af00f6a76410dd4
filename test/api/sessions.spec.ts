import { randomUUID } from 'node:crypto';
import { answer, fixtures } from '../support/fixtures.js';
import { refusal } from '../support/refusal.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';

let t: TestPanel;
let ownerToken: string;

const f = fixtures(() => ({ t, token: ownerToken }));

beforeAll(async () => {
  t = await startTestPanel();
  ownerToken = await t.login();
});
afterAll(async () => {
  await t?.stop();
});

const signIn = async (username: string, password: string, userAgent: string) => {
  const response = await t.call('POST', 'auth/login', {
    body: { username, password },
    headers: { 'user-agent': userAgent },
  });
  expect(response.status).toBe(200);
  return response.body.token as string;
};
const me = (token: string) => t.call('GET', 'auth/me', { token });

describe('GET /api/auth/sessions: one’s own sessions', () => {
  test('lists when and from where each signed in, marks the current one, never shows a token', async () => {
    const user = await f.createUser('viewer');
    const phone = await signIn(user.username, user.password, 'Phone browser/1.0');
    const laptop = await signIn(user.username, user.password, 'Laptop browser/2.0');
    const listed = await answer(t.client(laptop).GET('/api/auth/sessions'));
    expect(listed.status).toBe(200);
    expect(listed.body).toHaveLength(3);
    const current = listed.body.filter((session) => session.current);
    expect(current).toEqual([
      {
        id: expect.any(String),
        createdAt: expect.any(String),
        expiresAt: expect.any(String),
        lastSeenAt: expect.any(String),
        address: '127.0.0.1',
        userAgent: 'Laptop browser/2.0',
        current: true,
      },
    ]);
    expect(listed.body.map((session) => session.userAgent)).toContain('Phone browser/1.0');
    const text = JSON.stringify(listed.body);
    for (const token of [phone, laptop, user.token]) expect(text).not.toContain(token);
    expect(text).not.toMatch(/token|hash/i);
    // Another user's sessions are not in it.
    const owners = await answer(t.client(ownerToken).GET('/api/auth/sessions'));
    expect(owners.body.map((session) => session.id)).not.toEqual(expect.arrayContaining([current[0].id]));
  });

  test('through an API token no session is the current one', async () => {
    const user = await f.createUser('admin');
    const token = (await f.createToken({ name: 'lister' }, user.token)).token;
    const listed = await answer(t.client(token).GET('/api/auth/sessions'));
    expect(listed.body.length).toBe(1);
    expect(listed.body.every((session) => !session.current)).toBe(true);
  });
});

describe('ending sessions', () => {
  test('DELETE /api/auth/sessions/{id} ends one of one’s own; another user’s answers 404 and stays', async () => {
    const user = await f.createUser('viewer');
    const other = await signIn(user.username, user.password, 'Other/1');
    const sessions = await answer(t.client(user.token).GET('/api/auth/sessions'));
    const otherId = sessions.body.find((session) => session.userAgent === 'Other/1')!.id;

    const owner = await f.createUser('admin');
    const refused = await t.call('DELETE', `auth/sessions/${otherId}`, { token: owner.token });
    expect([refused.status, refused.body]).toEqual([404, refusal('id')]);
    expect((await me(other)).status).toBe(200);
    const unknown = await t.call('DELETE', `auth/sessions/${randomUUID()}`, { token: user.token });
    expect([unknown.status, unknown.body]).toEqual([404, refusal('id')]);

    const ended = await answer(
      t.client(user.token).DELETE('/api/auth/sessions/{id}', { params: { path: { id: otherId } } }),
    );
    expect([ended.status, ended.body]).toEqual([200, { id: otherId, deleted: true }]);
    expect((await me(other)).status).toBe(401);
    expect((await me(user.token)).status).toBe(200);
  });

  test('DELETE /api/auth/sessions ends every other session, keeps this one and API tokens', async () => {
    const user = await f.createUser('admin');
    const a = await signIn(user.username, user.password, 'A/1');
    const b = await signIn(user.username, user.password, 'B/1');
    const token = (await f.createToken({ name: 'stays' }, user.token)).token;
    const ownerBefore = (await answer(t.client(ownerToken).GET('/api/auth/sessions'))).body.length;
    const ended = await answer(t.client(a).DELETE('/api/auth/sessions'));
    expect([ended.status, ended.body]).toEqual([200, { sessionsEnded: 2 }]);
    expect((await me(a)).status).toBe(200);
    expect((await me(b)).status).toBe(401);
    expect((await me(user.token)).status).toBe(401);
    expect((await me(token)).status).toBe(200);
    expect((await answer(t.client(ownerToken).GET('/api/auth/sessions'))).body.length).toBe(ownerBefore);
    // Through an API token: refused (403), only a signed-in session ends sessions; nothing ends.
    const viaToken = await answer(t.client(token).DELETE('/api/auth/sessions'));
    expect(viaToken.status).toBe(403);
    expect((await me(a)).status).toBe(200);
  });

  test('ending the current session signs it out', async () => {
    const user = await f.createUser('viewer');
    const [mine] = (await answer(t.client(user.token).GET('/api/auth/sessions'))).body;
    expect((await t.call('DELETE', `auth/sessions/${mine.id}`, { token: user.token })).status).toBe(200);
    expect((await me(user.token)).status).toBe(401);
  });

  test('the routes take no body and no query', async () => {
    const user = await f.createUser('viewer');
    const refused = await t.call('DELETE', 'auth/sessions', { token: user.token, body: { keep: 'all' } });
    expect([refused.status, refused.body]).toEqual([400, refusal('keep')]);
    expect((await me(user.token)).status).toBe(200);
  });
});

describe('POST /api/auth/password, W-UI’s path beside PATCH /api/auth/me', () => {
  test('changes the password the same way: other sessions end, this one stays, the new one signs in', async () => {
    const user = await f.createUser('viewer');
    const other = await signIn(user.username, user.password, 'Other/2');
    const changed = await answer(
      t.client(user.token).POST('/api/auth/password', {
        body: { currentPassword: user.password, newPassword: 'a-new-passphrase-2' },
      }),
    );
    expect([changed.status, changed.body]).toEqual([
      200,
      { user: { id: user.id, username: user.username, role: 'viewer' }, sessionsEnded: 1 },
    ]);
    expect((await me(other)).status).toBe(401);
    expect((await me(user.token)).status).toBe(200);
    expect(
      (await t.call('POST', 'auth/login', { body: { username: user.username, password: user.password } })).status,
    ).toBe(401);
    await signIn(user.username, 'a-new-passphrase-2', 'New/1');
  });

  test('refuses a wrong current password with the field named, as PATCH /api/auth/me does', async () => {
    const user = await f.createUser('admin');
    for (const [method, path] of [
      ['POST', 'auth/password'],
      ['PATCH', 'auth/me'],
    ] as const) {
      const refused = await t.call(method, path, {
        token: user.token,
        body: { currentPassword: 'not-it', newPassword: 'long-enough-3' },
      });
      expect([refused.status, refused.body]).toEqual([400, refusal('currentPassword')]);
    }
  });
});
