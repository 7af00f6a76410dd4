import { generate } from 'otplib';
import { TotpClock } from '../../apps/controller/src/auth/totp/totp-clock.js';
import { fixtures, type TestUser } from '../support/fixtures.js';
import { randomSuffix } from '../support/random-suffix.js';
import { CLI_MAIN, runToEnd } from '../support/spawned-process.js';
import { OWNER, startTestPanel, type TestPanel } from '../support/test-panel.js';

/**
 * Two-factor sign-in (TOTP). The panel's TOTP clock is set to chosen moments and the codes are
 * computed for them with the same library the panel uses, so no test waits for a time step to
 * pass. Each test signs in "from" an address of its own (X-Forwarded-For, the test's address is
 * a trusted proxy), so throttle counts of one test do not reach another.
 */
let t: TestPanel;
let ownerToken: string;
let clock: TotpClock;

const { createUser } = fixtures(() => ({ t, token: ownerToken }));

/** 2026-01-01T00:00:00Z, the start of a 30-second step; tests move on from it. */
const T0 = Date.UTC(2026, 0, 1);
const STEP = 30_000;

beforeAll(async () => {
  t = await startTestPanel({ WARREN_TRUSTED_PROXIES: '127.0.0.1' });
  ownerToken = await t.login();
  clock = t.panel.app.get(TotpClock);
});
afterAll(async () => {
  await t?.stop();
});

/** The panel's TOTP clock at `at` (ms); null for the system clock again. */
function setClock(at: number | null): void {
  clock.now = at === null ? () => Date.now() : () => at;
}
const codeAt = (secret: string, at: number) => generate({ secret, epoch: Math.floor(at / 1000) });

const signIn = (from: string, { username, password, code }: { username: string; password: string; code?: string }) =>
  t.call('POST', 'auth/login', {
    headers: { 'x-forwarded-for': from },
    body: code === undefined ? { username, password } : { username, password, code },
  });

/** Turns 2FA on for the user at the clock's `at`; returns the secret and the recovery codes. */
async function enrol(user: TestUser, at: number): Promise<{ secret: string; recoveryCodes: string[] }> {
  setClock(at);
  const started = await t.call('POST', 'auth/totp/start', { token: user.token, body: { password: user.password } });
  expect(started.status).toBe(200);
  const confirmed = await t.call('POST', 'auth/totp/confirm', {
    token: user.token,
    body: { code: await codeAt(started.body.secret, at) },
  });
  expect(confirmed.status).toBe(200);
  return { secret: started.body.secret, recoveryCodes: confirmed.body.recoveryCodes };
}

afterEach(() => setClock(null));

describe('turning two-factor sign-in on', () => {
  test('start answers a secret and its otpauth URI once; a wrong code does not turn it on; the right one does and answers ten recovery codes, stored hashed', async () => {
    const user = await createUser('viewer');
    setClock(T0);
    const started = await t.call('POST', 'auth/totp/start', { token: user.token, body: { password: user.password } });
    expect(started.status).toBe(200);
    const { secret, uri } = started.body;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(uri).toBe(`otpauth://totp/Warren:${user.username}?secret=${secret}&issuer=Warren`);
    const status = await t.call('GET', 'auth/totp', { token: user.token });
    expect(status.body).toEqual({ enabled: false, pending: true, recoveryCodesLeft: 0 });

    const wrong = await t.call('POST', 'auth/totp/confirm', { token: user.token, body: { code: '000000' } });
    expect([wrong.status, wrong.body.field]).toEqual([400, 'code']);
    const stale = await t.call('POST', 'auth/totp/confirm', {
      token: user.token,
      body: { code: await codeAt(secret, T0 - 5 * STEP) },
    });
    expect([stale.status, stale.body.field]).toEqual([400, 'code']);
    expect((await signIn('198.51.100.1', user)).body).toMatchObject({ token: expect.any(String) });

    const confirmed = await t.call('POST', 'auth/totp/confirm', {
      token: user.token,
      body: { code: await codeAt(secret, T0) },
    });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.enabled).toBe(true);
    const codes: string[] = confirmed.body.recoveryCodes;
    expect(codes).toHaveLength(10);
    for (const code of codes) expect(code).toMatch(/^[a-z2-7]{5}-[a-z2-7]{5}$/);
    expect(new Set(codes).size).toBe(10);
    expect((await t.call('GET', 'auth/totp', { token: user.token })).body).toEqual({
      enabled: true,
      pending: false,
      recoveryCodesLeft: 10,
    });

    // Neither the secret nor a recovery code is in any answer after, nor stored as it is (codes).
    const answers = JSON.stringify([
      (await t.call('GET', 'auth/me', { token: user.token })).body,
      (await t.call('GET', 'auth/totp', { token: user.token })).body,
    ]);
    expect(answers).not.toContain(secret);
    const rows = JSON.stringify(await t.query('select * from totp_recovery_codes where user_id = $1', [user.id]));
    for (const code of codes) {
      expect(rows).not.toContain(code);
      expect(rows).not.toContain(code.replace('-', ''));
    }
    // On already: a second start is refused and the secret in force stays.
    const again = await t.call('POST', 'auth/totp/start', { token: user.token, body: { password: user.password } });
    expect(again.status).toBe(409);
    expect((await signIn('198.51.100.1', { ...user, code: await codeAt(secret, T0 + STEP) })).status).toBe(200);
  });
});

describe('signing in with two-factor sign-in on', () => {
  test('the password alone answers {needCode: true} with no session; with the code it signs in; the same code twice is refused', async () => {
    const user = await createUser('admin');
    const { secret } = await enrol(user, T0);
    const sessionsBefore = Number((await t.query('select count(*) from sessions'))[0].count);
    setClock(T0 + 10 * STEP);

    const first = await signIn('198.51.100.2', user);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ needCode: true });
    expect(first.headers.get('set-cookie')).toBeNull();
    expect(Number((await t.query('select count(*) from sessions'))[0].count)).toBe(sessionsBefore);

    const code = await codeAt(secret, T0 + 10 * STEP);
    const signedIn = await signIn('198.51.100.2', { ...user, code });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.user).toMatchObject({ username: user.username, role: 'admin' });
    expect((await t.call('GET', 'auth/me', { token: signedIn.body.token })).status).toBe(200);

    // Replay: the same code, and a code of an earlier step still inside the window, are refused.
    const replayed = await signIn('198.51.100.2', { ...user, code });
    expect([replayed.status, replayed.body.field]).toEqual([401, 'code']);
    const earlier = await signIn('198.51.100.2', { ...user, code: await codeAt(secret, T0 + 9 * STEP) });
    expect([earlier.status, earlier.body.field]).toEqual([401, 'code']);
    // The next step's code is a new code.
    setClock(T0 + 11 * STEP);
    expect((await signIn('198.51.100.2', { ...user, code: await codeAt(secret, T0 + 11 * STEP) })).status).toBe(200);

    // A wrong password never reaches the code question.
    const wrongPassword = await signIn('198.51.100.2', { ...user, password: 'not-the-password' });
    expect([wrongPassword.status, wrongPassword.body.needCode]).toEqual([401, undefined]);
  });

  test('two sign-ins racing with one code: exactly one gets a session', async () => {
    const user = await createUser('viewer');
    const { secret } = await enrol(user, T0);
    setClock(T0 + 20 * STEP);
    const code = await codeAt(secret, T0 + 20 * STEP);
    const answers = await Promise.all(
      Array.from({ length: 4 }, (_, i) => signIn(`198.51.100.${10 + i}`, { ...user, code })),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 401, 401, 401]);
  });

  test('wrong codes count toward the sign-in throttle: after the free failures the right code meets 429', async () => {
    const user = await createUser('viewer');
    const { secret } = await enrol(user, T0);
    setClock(T0 + 30 * STEP);
    const from = '198.51.100.20';
    // Asking for the code costs nothing: the password was right.
    for (let i = 0; i < 8; i++) expect((await signIn(from, user)).body).toEqual({ needCode: true });
    for (let attempt = 1; attempt <= 6; attempt++) {
      const wrong = await signIn(from, { ...user, code: '000000' });
      expect([wrong.status, wrong.body.field]).toEqual([401, 'code']);
    }
    const locked = await signIn(from, { ...user, code: await codeAt(secret, T0 + 30 * STEP) });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another address is not locked out, and the code not spent by the refused attempt still works.
    expect((await signIn('198.51.100.21', { ...user, code: await codeAt(secret, T0 + 30 * STEP) })).status).toBe(200);
  });

  test('a recovery code signs in once, in any case and with or without its dash', async () => {
    const user = await createUser('viewer');
    const { recoveryCodes } = await enrol(user, T0);
    const [first, second] = recoveryCodes;
    expect((await signIn('198.51.100.30', { ...user, code: first.toUpperCase() })).status).toBe(200);
    const again = await signIn('198.51.100.30', { ...user, code: first });
    expect([again.status, again.body.field]).toEqual([401, 'code']);
    expect((await signIn('198.51.100.30', { ...user, code: second.replace('-', '') })).status).toBe(200);
    expect((await t.call('GET', 'auth/totp', { token: user.token })).body.recoveryCodesLeft).toBe(8);
    const madeUp = await signIn('198.51.100.30', { ...user, code: 'aaaaa-bbbbb' });
    expect(madeUp.status).toBe(401);
  });
});

describe('turning two-factor sign-in off', () => {
  test('needs a right code or an unused recovery code; then the password alone signs in', async () => {
    const user = await createUser('viewer');
    const { secret, recoveryCodes } = await enrol(user, T0);
    setClock(T0 + 40 * STEP);
    const wrong = await t.call('POST', 'auth/totp/disable', {
      token: user.token,
      body: { code: '123456' },
    });
    expect([wrong.status, wrong.body.field]).toEqual([400, 'code']);
    const missing = await t.call('POST', 'auth/totp/disable', { token: user.token, body: {} });
    expect([missing.status, missing.body.field]).toEqual([400, 'code']);
    expect((await t.call('GET', 'auth/totp', { token: user.token })).body.enabled).toBe(true);

    const off = await t.call('POST', 'auth/totp/disable', {
      token: user.token,
      body: { code: await codeAt(secret, T0 + 40 * STEP) },
    });
    expect([off.status, off.body]).toEqual([200, { enabled: false }]);
    expect((await signIn('198.51.100.40', user)).body).toMatchObject({ token: expect.any(String) });
    const [row] = await t.query<{ totp_secret: string | null }>('select totp_secret from users where id = $1', [
      user.id,
    ]);
    expect(row.totp_secret).toBeNull();
    expect(
      Number((await t.query('select count(*) from totp_recovery_codes where user_id = $1', [user.id]))[0].count),
    ).toBe(0);

    // Back on with a new secret: the old recovery codes are gone; disabling with a recovery code works.
    const again = await enrol(user, T0 + 50 * STEP);
    expect(again.secret).not.toBe(secret);
    const oldCode = await t.call('POST', 'auth/totp/disable', { token: user.token, body: { code: recoveryCodes[0] } });
    expect(oldCode.status).toBe(400);
    const byRecovery = await t.call('POST', 'auth/totp/disable', {
      token: user.token,
      body: { code: again.recoveryCodes[3] },
    });
    expect(byRecovery.status).toBe(200);
    const offAlready = await t.call('POST', 'auth/totp/disable', { token: user.token, body: { code: '123456' } });
    expect(offAlready.status).toBe(409);
  });
});

describe("clearing another user's two-factor sign-in", () => {
  test('the owner clears it with POST /api/admins/{id}/reset-2fa; an admin may not; an unknown id is 404', async () => {
    const user = await createUser('viewer');
    await enrol(user, T0);
    const admin = await createUser('admin');
    const refused = await t.call('POST', `admins/${user.id}/reset-2fa`, { token: admin.token });
    expect(refused.status).toBe(403);
    expect((await signIn('198.51.100.50', user)).body).toEqual({ needCode: true });

    const reset = await t.call('POST', `admins/${user.id}/reset-2fa`, { token: ownerToken });
    expect([reset.status, reset.body]).toEqual([200, { id: user.id, enabled: false }]);
    expect((await signIn('198.51.100.50', user)).body).toMatchObject({ token: expect.any(String) });
    const unknown = await t.call('POST', `admins/${crypto.randomUUID()}/reset-2fa`, { token: ownerToken });
    expect([unknown.status, unknown.body.field]).toEqual([404, 'id']);
  });

  test('warren admin reset-2fa --username NAME turns it off from the host; an unknown user exits 1', async () => {
    const user = await createUser('viewer');
    await enrol(user, T0);
    const cli = (args: string[]) =>
      runToEnd(CLI_MAIN, ['admin', 'reset-2fa', ...args], {
        ...process.env,
        DATABASE_URL: t.database.url,
        WARREN_LOG_LEVEL: 'error',
      });
    const result = await cli(['--username', user.username]);
    expect(result).toMatchObject({ code: 0 });
    expect(result.stdout).toContain(`Two-factor sign-in of ${user.username} is off`);
    expect((await signIn('198.51.100.60', user)).body).toMatchObject({ token: expect.any(String) });
    expect((await t.call('GET', 'auth/me', { token: user.token })).status).toBe(200);
    // Recorded as the API records it: turned on by the user, then off from the host.
    const events = await t.query<{ details: unknown }>(
      `select details from notification_events where subject_id = $1 and kind = 'auth.two-factor-changed'
        order by details->>'enabled' desc`,
      [user.id],
    );
    expect(events.map((row) => row.details)).toEqual([
      { enabled: true, by: 'self' },
      { enabled: false, by: 'command-line' },
    ]);

    const unknown = await cli(['--username', `nobody-${randomSuffix(6)}`]);
    expect(unknown.code).toBe(1);
    const owner = await cli([]);
    expect(owner).toMatchObject({ code: 0 });
    expect(owner.stdout).toContain(`Two-factor sign-in of ${OWNER.username} was not on`);
  });
});

describe('changing how one signs in needs the password, and a session', () => {
  test('start needs the current password: none or a wrong one is a 400 naming it, starts nothing, and counts toward the sign-in throttle', async () => {
    const user = await createUser('viewer');
    const start = (body: unknown) =>
      t.call('POST', 'auth/totp/start', { token: user.token, body, headers: { 'x-forwarded-for': '198.51.100.70' } });
    const none = await start({});
    expect([none.status, none.body.field]).toEqual([400, 'password']);
    for (let i = 0; i < 5; i++) {
      const wrong = await start({ password: 'not-the-password' });
      expect([wrong.status, wrong.body.field]).toEqual([400, 'password']);
    }
    expect((await t.call('GET', 'auth/totp', { token: user.token })).body).toEqual({
      enabled: false,
      pending: false,
      recoveryCodesLeft: 0,
    });
    // The sixth wrong one locks (as at sign-in); then even the right password meets 429.
    expect((await start({ password: 'not-the-password' })).status).toBe(400);
    expect((await start({ password: user.password })).status).toBe(429);
    expect((await t.call('GET', 'auth/totp', { token: user.token })).body.pending).toBe(false);
  });

  test("an API token, even the owner's with every group, is refused (403) wherever sign-in factors change; nothing changes", async () => {
    const user = await createUser('admin');
    const { secret } = await enrol(user, T0);
    const ownersToken = (await t.call('POST', 'tokens', { token: ownerToken, body: { name: 'factors' } })).body.token;
    const usersToken = (await t.call('POST', 'tokens', { token: user.token, body: { name: 'own-factors' } })).body
      .token;
    const session = (await t.query<{ id: string }>('select id from sessions where user_id = $1 limit 1', [user.id]))[0]
      .id;
    setClock(T0 + 20 * STEP);
    const code = await codeAt(secret, T0 + 20 * STEP);
    const calls: [string, string, string, unknown][] = [
      [usersToken, 'POST', 'auth/totp/start', { password: user.password }],
      [usersToken, 'POST', 'auth/totp/confirm', { code }],
      [usersToken, 'POST', 'auth/totp/disable', { code }],
      [usersToken, 'PATCH', 'auth/me', { currentPassword: user.password, newPassword: 'another-password-1' }],
      [usersToken, 'POST', 'auth/password', { currentPassword: user.password, newPassword: 'another-password-1' }],
      [usersToken, 'DELETE', 'auth/sessions', undefined],
      [usersToken, 'DELETE', `auth/sessions/${session}`, undefined],
      [ownersToken, 'POST', `admins/${user.id}/reset-2fa`, undefined],
      [ownersToken, 'PATCH', `admins/${user.id}`, { password: 'a-temporary-password' }],
    ];
    for (const [token, method, path, body] of calls) {
      const answer = await t.call(method, path, { token, body });
      expect([method, path, answer.status]).toEqual([method, path, 403]);
    }
    // 2FA still on with its code, the password unchanged, the sessions alive.
    expect((await t.call('GET', 'auth/totp', { token: user.token })).body.enabled).toBe(true);
    expect((await t.call('GET', 'auth/me', { token: user.token })).status).toBe(200);
    expect((await signIn('198.51.100.71', { ...user, code })).status).toBe(200);
    // The same through a session works (the owner clears it).
    expect((await t.call('POST', `admins/${user.id}/reset-2fa`, { token: ownerToken })).status).toBe(200);
  });
});

describe('sign-ins in the audit log', () => {
  const entriesFrom = (address: string) =>
    t.query<{ outcome: string; status: number; actor_id: string | null }>(
      `select outcome, status, actor_id from audit_entries where action = 'auth.login' and address = $1 order by at`,
      [address],
    );

  test('a password that is right but asked for its code is recorded as awaiting-code; the completed sign-in as success', async () => {
    const user = await createUser('viewer');
    const { secret } = await enrol(user, T0);
    setClock(T0 + 30 * STEP);
    const from = '198.51.100.80';
    expect((await signIn(from, user)).body).toEqual({ needCode: true });
    expect((await signIn(from, { ...user, code: await codeAt(secret, T0 + 30 * STEP) })).status).toBe(200);
    expect(await entriesFrom(from)).toEqual([
      { outcome: 'awaiting-code', status: 200, actor_id: null },
      { outcome: 'success', status: 200, actor_id: user.id },
    ]);
  });

  test("failed sign-ins are recorded, a lockout's refusals only once: hammering a locked sign-in does not fill the log", async () => {
    const user = await createUser('viewer');
    const from = '198.51.100.81';
    const wrong = { ...user, password: 'not-the-password' };
    // Five free failures, the sixth locks: each a refused 401 entry.
    for (let i = 0; i < 6; i++) expect((await signIn(from, wrong)).status).toBe(401);
    for (let i = 0; i < 20; i++) expect((await signIn(from, i % 2 ? wrong : user)).status).toBe(429);
    const entries = await entriesFrom(from);
    expect(entries.map((entry) => `${entry.outcome} ${entry.status}`)).toEqual([
      ...Array(6).fill('refused 401'),
      'refused 429',
    ]);
  });
});
