import { randomSuffix } from '../support/random-suffix.js';
import { OWNER, startTestPanel, type TestPanel } from '../support/test-panel.js';

/**
 * The panel trusts the test's own address as a proxy, so each test signs in "from" addresses of
 * its own through X-Forwarded-For, as clients behind a real reverse proxy would: no test's
 * failures count against another's.
 */
let t: TestPanel;
beforeAll(async () => {
  t = await startTestPanel({ WARREN_TRUSTED_PROXIES: '127.0.0.1' });
});
afterAll(async () => {
  await t?.stop();
});

const signIn = (from: string, body: { username: string; password: string }) =>
  t.call('POST', 'auth/login', { headers: { 'x-forwarded-for': from }, body });
const wrong = (from: string, username = OWNER.username) =>
  signIn(from, { username, password: `wrong-${randomSuffix(6)}` });

describe('login throttling', () => {
  test('after five free failures a username is locked out from that address with 429 and Retry-After, even with the right password', async () => {
    for (let attempt = 1; attempt <= 5; attempt++) expect((await wrong('192.0.2.1')).status).toBe(401);
    expect((await wrong('192.0.2.1')).status).toBe(401); // the sixth is checked, and sets the lockout
    const locked = await signIn('192.0.2.1', OWNER);
    expect(locked.status).toBe(429);
    expect(locked.body).toEqual({ error: expect.stringMatching(/too many/), field: '' });
    const retryAfter = Number(locked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(30);
  });

  test('lockouts double with further failures and are shared by username case variants', async () => {
    await t.query(`update login_throttles set locked_until = null where key like 'pair:192.0.2.1 %'`);
    expect((await wrong('192.0.2.1', OWNER.username.toUpperCase())).status).toBe(401);
    const locked = await signIn('192.0.2.1', OWNER);
    expect(locked.status).toBe(429);
    const retryAfter = Number(locked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(30);
    expect(retryAfter).toBeLessThanOrEqual(60);
  });

  test('twelve parallel wrong passwords: six are checked, six meet the lockout', async () => {
    const answers = await Promise.all(Array.from({ length: 12 }, () => wrong('192.0.2.2')));
    const statuses = answers.map((response) => response.status).sort();
    expect(statuses).toEqual([...Array(6).fill(401), ...Array(6).fill(429)]);
  });

  test('guessing from one address does not lock the owner out from another', async () => {
    for (let attempt = 1; attempt <= 7; attempt++) await wrong('192.0.2.3');
    expect((await signIn('192.0.2.3', OWNER)).status).toBe(429);
    expect((await signIn('198.51.100.3', OWNER)).status).toBe(200);
  });

  test('one address spraying usernames meets its own cap: twenty free failures, then every username is locked from there', async () => {
    for (let attempt = 1; attempt <= 21; attempt++)
      expect((await wrong('192.0.2.4', `guess-${attempt}`)).status).toBe(401);
    const locked = await signIn('192.0.2.4', OWNER);
    expect(locked.status).toBe(429);
    expect((await signIn('192.0.2.5', OWNER)).status).toBe(200);
  });

  test('an IPv6 /64 counts as one address', async () => {
    for (let attempt = 1; attempt <= 6; attempt++) await wrong(`2001:db8:7:7::${attempt}`);
    expect((await signIn('2001:db8:7:7:ffff::1', OWNER)).status).toBe(429);
    expect((await signIn('2001:db8:7:8::1', OWNER)).status).toBe(200);
  });

  test('a right password clears the username from that address and gives the address its attempt back', async () => {
    for (let attempt = 1; attempt <= 3; attempt++) await wrong('192.0.2.6');
    expect((await signIn('192.0.2.6', OWNER)).status).toBe(200);
    const rows = await t.query<{ key: string; failures: number }>(
      `select key, failures from login_throttles where key like '%192.0.2.6%' order by key`,
    );
    expect(rows).toEqual([{ key: 'address:192.0.2.6', failures: 3 }]);
  });
});
