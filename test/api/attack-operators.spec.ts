import { generate } from 'otplib';
import { TotpClock } from '../../apps/controller/src/auth/totp/totp-clock.js';
import { fixtures, type TestUser } from '../support/fixtures.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';

/**
 * The new operator, two-factor, token-scope, audit and subscription features tried as an attacker
 * would: each test is one attempt that must fail, and what it must leave behind.
 */
let t: TestPanel;
let ownerToken: string;
let clock: TotpClock;

beforeAll(async () => {
  t = await startTestPanel({ WARREN_TRUSTED_PROXIES: '127.0.0.1' });
  ownerToken = await t.login();
  clock = t.panel.app.get(TotpClock);
});
afterAll(async () => {
  await t?.stop();
});
afterEach(() => {
  clock.now = () => Date.now();
});

const { call, createInterface, createClient, createUser, createToken } = fixtures(() => ({ t, token: ownerToken }));

let addressCount = 0;
const freshAddress = () => `203.0.113.${++addressCount}`;

async function open(path: string, from = freshAddress()) {
  const response = await fetch(`${t.panel.origin}${path}`, { headers: { 'x-forwarded-for': from } });
  return { status: response.status, text: await response.text() };
}

const T0 = Date.UTC(2026, 0, 1);
const codeAt = (secret: string, at: number) => generate({ secret, epoch: Math.floor(at / 1000) });

describe('one-time links', () => {
  test('a disabled client gets no config from a one-time link made before it was disabled', async () => {
    const iface = await createInterface({});
    const client = await createClient({ name: 'Leaver', interfaceIds: [iface.id], deviceNames: ['phone'] });
    const made = await call('POST', `devices/${client.devices[0].id}/profile/link`, {});
    expect(made.status).toBe(201);
    expect((await call('PATCH', `clients/${client.id}`, { enabled: false })).status).toBe(200);
    // The page before the button already says why, and spends nothing.
    expect((await open(made.body.path)).status).toBe(403);
    const fetched = await open(`${made.body.path}?download=1`);
    expect(fetched.text).not.toContain('PrivateKey');
    expect(fetched.status).toBe(403);
    // The link was spent all the same: enabling the client again does not bring it back.
    expect((await call('PATCH', `clients/${client.id}`, { enabled: true })).status).toBe(200);
    expect((await open(`${made.body.path}?download=1`)).status).toBe(404);
  });
});

describe('secrets never reach the audit log', () => {
  test('after two-factor, tokens, links and passwords, audit_entries holds none of them', async () => {
    const secrets: string[] = [];
    const user: TestUser = await createUser('admin');
    clock.now = () => T0;
    const started = await t.call('POST', 'auth/totp/start', { token: user.token, body: { password: user.password } });
    secrets.push(started.body.secret);
    const code = await codeAt(started.body.secret, T0);
    const confirmed = await t.call('POST', 'auth/totp/confirm', { token: user.token, body: { code } });
    expect(confirmed.status).toBe(200);
    secrets.push(...(confirmed.body.recoveryCodes as string[]));
    // A secret typed into fields of any name, on refused and accepted requests alike.
    const from = freshAddress();
    const signIn = (body: Record<string, unknown>) =>
      t.call('POST', 'auth/login', { headers: { 'x-forwarded-for': from }, body });
    clock.now = () => T0 + 30_000;
    const next = await codeAt(started.body.secret, T0 + 30_000);
    expect((await signIn({ username: user.username, password: user.password, code: next })).status).toBe(200);
    expect((await signIn({ username: user.username, password: user.password, code: next })).status).toBe(401);
    const recovery = confirmed.body.recoveryCodes[0] as string;
    expect((await signIn({ username: user.username, password: user.password, code: recovery })).status).toBe(200);
    expect((await signIn({ username: user.username, password: user.password, code: recovery })).status).toBe(401);
    const disabled = await t.call('POST', 'auth/totp/disable', {
      token: user.token,
      body: { code: confirmed.body.recoveryCodes[1] },
    });
    expect(disabled.status).toBe(200);

    const issued = await createToken({ name: 'attack-audit' });
    secrets.push(issued.token);
    const iface = await createInterface({});
    const client = await createClient({ name: 'Audited', interfaceIds: [iface.id], deviceNames: ['phone'] });
    const link = await call('GET', `clients/${client.id}/subscription`);
    secrets.push(link.body.path.split('/').pop());
    const rotated = await call('POST', `clients/${client.id}/subscription/rotate`);
    secrets.push(rotated.body.path.split('/').pop());
    const once = await call('POST', `devices/${client.devices[0].id}/profile/link`, {});
    secrets.push(once.body.path.split('/').pop());
    const profile = await call('GET', `devices/${client.devices[0].id}/profile`);
    const privateKey = /PrivateKey\s*=\s*(\S+)/.exec(String(profile.body))?.[1];
    if (privateKey) secrets.push(privateKey);

    const table = JSON.stringify(await t.query('select * from audit_entries'));
    for (const secret of secrets) expect(table).not.toContain(secret);
  });
});

describe('escalation', () => {
  test('an admin and a viewer cannot read the log nor manage operators; a read-only token changes nothing', async () => {
    const admin = await createUser('admin');
    const viewer = await createUser('viewer');
    for (const who of [admin, viewer]) {
      expect((await t.call('GET', 'logs', { token: who.token })).status).toBe(403);
      expect(
        (
          await t.call('POST', 'admins', {
            token: who.token,
            body: { username: `x${who.id.slice(0, 6)}`, password: 'a-password-1', role: 'owner' },
          })
        ).status,
      ).toBe(403);
      expect((await t.call('PATCH', `admins/${who.id}`, { token: who.token, body: { role: 'owner' } })).status).toBe(
        403,
      );
      expect((await t.call('POST', `admins/${who.id}/reset-2fa`, { token: who.token })).status).toBe(403);
    }
    const readOnly = await createToken({ name: 'ro', readOnly: true });
    for (const [method, path] of [
      ['POST', 'auth/logout'],
      ['DELETE', 'auth/sessions'],
      ['POST', 'auth/totp/start'],
      ['POST', 'tokens'],
      ['POST', 'auth/password'],
    ] as const)
      expect([method, path, (await t.call(method, path, { token: readOnly.token, body: {} })).status]).toEqual([
        method,
        path,
        403,
      ]);
  });
});

describe('one-time links and HEAD', () => {
  test('a HEAD request (a link checker, a chat preview probing the URL) does not spend the link', async () => {
    const iface = await createInterface({});
    const client = await createClient({ name: 'Header', interfaceIds: [iface.id], deviceNames: ['phone'] });
    const made = await call('POST', `devices/${client.devices[0].id}/profile/link`, {});
    const head = await fetch(`${t.panel.origin}${made.body.path}`, {
      method: 'HEAD',
      headers: { 'x-forwarded-for': freshAddress() },
    });
    expect(head.status).toBe(404);
    const fetched = await open(`${made.body.path}?download=1`);
    expect(fetched.status).toBe(200);
    expect(fetched.text).toContain('PrivateKey');
  });
});

describe('a scoped token grants no sign-in', () => {
  test('an owner token limited to the admins group and expiring soon makes no user, sets no password, grants no role and enables nobody', async () => {
    const limited = await createToken({
      name: 'operators-only',
      routeGroups: ['admins'],
      expiresAt: new Date(Date.now() + 600_000).toISOString(),
    });
    const readOnly = await createToken({ name: 'read-only-owner', readOnly: true });
    const viewer = await createUser('viewer');
    const as = (method: string, path: string, body: unknown) => t.call(method, path, { token: limited.token, body });
    const before = await t.query('select id, username, role, enabled, password_hash from users order by id');

    const made = await as('POST', 'admins', { username: 'escaped', password: 'temporary-1234', role: 'owner' });
    expect([made.status, made.body.field]).toEqual([403, 'password']);
    const promoted = await as('PATCH', `admins/${viewer.id}`, { role: 'owner' });
    expect([promoted.status, promoted.body.field]).toEqual([403, 'role']);
    const reset = await as('PATCH', `admins/${viewer.id}`, { password: 'temporary-1234' });
    expect([reset.status, reset.body.field]).toEqual([403, 'password']);
    expect(await t.query('select id, username, role, enabled, password_hash from users order by id')).toEqual(before);

    // Narrowing stays allowed: disabling; enabling again (single or bulk) is not.
    expect((await as('PATCH', `admins/${viewer.id}`, { enabled: false })).status).toBe(200);
    const enabled = await as('PATCH', `admins/${viewer.id}`, { enabled: true });
    expect([enabled.status, enabled.body.field]).toEqual([403, 'enabled']);
    const bulk = await as('POST', 'admins/bulk', { ids: [viewer.id], action: 'enable' });
    expect([bulk.status, bulk.body.field]).toEqual([403, 'action']);
    expect(
      (await t.query<{ enabled: boolean }>('select enabled from users where id = $1', [viewer.id]))[0].enabled,
    ).toBe(false);
    // A read-only token is refused by the guard before any of this (it may not POST).
    expect((await t.call('POST', 'admins', { token: readOnly.token, body: {} })).status).toBe(403);
    // The owner's session still does all of it; an unscoped token enables, but sets no password
    // either: a password changes how someone signs in, a session's alone (docs/roles.md).
    expect((await call('PATCH', `admins/${viewer.id}`, { enabled: true })).status).toBe(200);
    const unscoped = await createToken({ name: 'whole-owner' });
    const byUnscoped = await t.call('PATCH', `admins/${viewer.id}`, {
      token: unscoped.token,
      body: { password: 'temporary-5678' },
    });
    expect([byUnscoped.status, byUnscoped.body.field]).toEqual([403, 'password']);
    expect((await call('PATCH', `admins/${viewer.id}`, { password: 'temporary-5678' })).status).toBe(200);
  });
});
