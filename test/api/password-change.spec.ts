import { answer, fixtures, type TestUser } from '../support/fixtures.js';
import { CLI_MAIN, runToEnd } from '../support/spawned-process.js';
import { OWNER, startTestPanel, type TestPanel } from '../support/test-panel.js';
import { refusal } from '../support/refusal.js';

let t: TestPanel;
let ownerToken: string;

const { createUser, createToken } = fixtures(() => ({ t, token: ownerToken }));

beforeAll(async () => {
  t = await startTestPanel();
  ownerToken = await t.login();
});
afterAll(async () => {
  await t?.stop();
});

const signIn = (username: string, password: string) => t.call('POST', 'auth/login', { body: { username, password } });
const passwordHashOf = async (user: TestUser) =>
  (await t.query<{ password_hash: string }>('select password_hash from users where id = $1', [user.id]))[0]
    .password_hash;

describe('PATCH /api/auth/me: changing one’s own password', () => {
  test('ends the user’s other sessions, keeps this one and their API tokens; the new password signs in, the old does not', async () => {
    const user = await createUser('viewer');
    const other = (await signIn(user.username, user.password)).body.token as string;
    const apiToken = (await createToken({ name: 'stays' }, user.token)).token;
    const ownersSession = await t.login();

    const changed = await answer(
      t
        .client(user.token)
        .PATCH('/api/auth/me', { body: { currentPassword: user.password, newPassword: 'a-brand-new-passphrase' } }),
    );
    expect([changed.status, changed.body]).toEqual([
      200,
      { user: { id: user.id, username: user.username, role: 'viewer' }, sessionsEnded: 1 },
    ]);

    expect((await t.call('GET', 'auth/me', { token: other })).status).toBe(401);
    expect((await t.call('GET', 'auth/me', { token: user.token })).status).toBe(200);
    expect((await t.call('GET', 'auth/me', { token: apiToken })).status).toBe(200);
    expect((await t.call('GET', 'auth/me', { token: ownersSession })).status).toBe(200); // other users' sessions are theirs
    expect((await signIn(user.username, user.password)).status).toBe(401);
    expect((await signIn(user.username, 'a-brand-new-passphrase')).status).toBe(200);
  });

  test('is refused through an API token (403): only a signed-in session changes how one signs in', async () => {
    const user = await createUser('admin');
    const apiToken = (await createToken({ name: 'changer' }, user.token)).token;
    const changed = await t.call('PATCH', 'auth/me', {
      token: apiToken,
      body: { currentPassword: user.password, newPassword: 'another-passphrase' },
    });
    expect(changed.status).toBe(403);
    expect((await t.call('GET', 'auth/me', { token: user.token })).status).toBe(200);
    expect((await signIn(user.username, user.password)).status).toBe(200);
  });

  test('refuses a wrong current password, a short or unchanged new one, with {error, field} and the password as it was', async () => {
    const user = await createUser('viewer');
    const before = await passwordHashOf(user);
    const as = (body: unknown) => t.call('PATCH', 'auth/me', { token: user.token, body });
    const cases: [unknown, string][] = [
      [{ currentPassword: 'not-the-password', newPassword: 'long-enough-1' }, 'currentPassword'],
      [{ currentPassword: user.password, newPassword: 'short' }, 'newPassword'],
      [{ currentPassword: user.password, newPassword: 'x'.repeat(1025) }, 'newPassword'],
      [{ currentPassword: user.password, newPassword: user.password }, 'newPassword'],
      [{ newPassword: 'long-enough-2' }, 'currentPassword'],
    ];
    for (const [body, field] of cases) {
      const refused = await as(body);
      expect([refused.status, refused.body]).toEqual([400, refusal(field)]);
    }
    expect(await passwordHashOf(user)).toBe(before);
    expect((await t.call('GET', 'auth/me', { token: user.token })).status).toBe(200);
    expect(
      await t.query(`select 1 from notification_events where subject_id = $1 and kind = 'auth.password-changed'`, [
        user.id,
      ]),
    ).toEqual([]);
  });

  test('guessing the current password through a stolen session meets the sign-in throttle', async () => {
    const user = await createUser('admin');
    for (let attempt = 1; attempt <= 6; attempt++) {
      const refused = await t.call('PATCH', 'auth/me', {
        token: user.token,
        body: { currentPassword: `guess-${attempt}`, newPassword: 'taken-over-1' },
      });
      expect(refused.status).toBe(400);
    }
    const locked = await t.call('PATCH', 'auth/me', {
      token: user.token,
      body: { currentPassword: user.password, newPassword: 'taken-over-1' },
    });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  test('needs credentials', async () => {
    const refused = await t.call('PATCH', 'auth/me', {
      body: { currentPassword: OWNER.password, newPassword: 'whatever-long' },
    });
    expect(refused.status).toBe(401);
  });
});

describe('warren admin reset-password', () => {
  const cli = (args: string[], input?: string) =>
    runToEnd(
      CLI_MAIN,
      ['admin', 'reset-password', ...args],
      { ...process.env, DATABASE_URL: t.database.url, WARREN_LOG_LEVEL: 'error' },
      input,
    );

  test('prints a generated password for the owner and ends all the owner’s sessions; API tokens stay', async () => {
    const session = await t.login();
    const apiToken = (await createToken({ name: 'survives-reset' })).token;
    const result = await cli([]);
    expect(result).toMatchObject({ code: 0 });
    const password = result.stdout.match(/^ {2}(\S+)$/m)?.[1];
    expect(password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(result.stdout).toMatch(new RegExp(`New password of ${OWNER.username}`));
    expect((await t.call('GET', 'auth/me', { token: session })).status).toBe(401);
    expect((await t.call('GET', 'auth/me', { token: apiToken })).status).toBe(200);
    expect((await signIn(OWNER.username, OWNER.password)).status).toBe(401);
    const signedIn = await signIn(OWNER.username, password!);
    expect(signedIn.status).toBe(200);
    // Back to the password the other tests sign in with, the way a person would.
    const restored = await t.call('PATCH', 'auth/me', {
      token: signedIn.body.token,
      body: { currentPassword: password, newPassword: OWNER.password },
    });
    expect(restored.status).toBe(200);
    ownerToken = await t.login();
  });

  test('takes one line from stdin for a named user, and does not print it', async () => {
    const user = await createUser('viewer');
    const result = await cli(['--username', user.username, '--password-stdin'], 'chosen-on-the-host\n');
    expect(result).toMatchObject({ code: 0 });
    expect(result.stdout).not.toContain('chosen-on-the-host');
    expect((await t.call('GET', 'auth/me', { token: user.token })).status).toBe(401);
    expect((await signIn(user.username, 'chosen-on-the-host')).status).toBe(200);
    // The operators hear of it as of a change through the API (docs/notifications.md).
    const events = await t.query<{ kind: string; details: unknown }>(
      `select kind, details from notification_events where subject_id = $1 and kind = 'auth.password-changed'`,
      [user.id],
    );
    expect(events).toEqual([{ kind: 'auth.password-changed', details: { by: 'command-line' } }]);
  });

  test('refuses a password from stdin that breaks the rule (exit 2), and an unknown user (exit 1), changing nothing', async () => {
    const user = await createUser('viewer');
    const before = await passwordHashOf(user);
    const short = await cli(['--username', user.username, '--password-stdin'], 'short\n');
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('warren: password needs at least 8 characters.');
    const unknown = await cli(['--username', 'nobody-here']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no user "nobody-here"/);
    expect(await passwordHashOf(user)).toBe(before);
    expect((await t.call('GET', 'auth/me', { token: user.token })).status).toBe(200);
    expect(
      await t.query(`select 1 from notification_events where subject_id = $1 and kind = 'auth.password-changed'`, [
        user.id,
      ]),
    ).toEqual([]);
  });
});
