import { fixtures } from '../support/fixtures.js';
import { OWNER, startTestPanel, type TestPanel } from '../support/test-panel.js';
import { refusal } from '../support/refusal.js';

/**
 * Cross-site request forgery: what a browser sends with the session cookie when another site
 * makes it call the panel, against what the panel's own pages send.
 */
let t: TestPanel;
let session: string;
let cookie: string;

const { count } = fixtures(() => ({ t, token: session }));

beforeAll(async () => {
  t = await startTestPanel();
  session = await t.login();
  cookie = `warren_session=${session}`;
});
afterAll(async () => {
  await t?.stop();
});

/** POST /api/tokens signed in by the cookie alone, with the browser's headers given. */
const issueByCookie = (headers: Record<string, string>) =>
  t.call('POST', 'tokens', { headers: { cookie, ...headers }, body: { name: 'by-cookie' } });

describe('cookie-authenticated unsafe requests', () => {
  test.each([
    ['no Origin and no Sec-Fetch-Site (a form post from an old browser, a forged request)', {}],
    ['another site’s Origin', { origin: 'https://evil.example' }],
    ['the panel’s host on another scheme', { origin: 'https://127.0.0.1' }],
    ['an opaque Origin (sandboxed frame)', { origin: 'null' }],
    ['Sec-Fetch-Site: same-site (a sibling subdomain)', { 'sec-fetch-site': 'same-site' }],
    ['Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }],
  ])('are refused with 403 {error, field: "origin"} and change nothing: %s', async (_, headers) => {
    const before = await count('api_tokens');
    const refused = await issueByCookie(headers);
    expect([refused.status, refused.body]).toEqual([
      403,
      refusal('origin', expect.stringMatching(/must come from the panel/)),
    ]);
    expect(await count('api_tokens')).toBe(before);
  });

  test('are accepted from the panel’s own origin, by Origin or (when absent) Sec-Fetch-Site: same-origin', async () => {
    expect((await issueByCookie({ origin: t.panel.origin })).status).toBe(201);
    expect((await issueByCookie({ 'sec-fetch-site': 'same-origin' })).status).toBe(201);
  });

  test('a foreign Origin wins over a same-origin Sec-Fetch-Site', async () => {
    expect((await issueByCookie({ origin: 'https://evil.example', 'sec-fetch-site': 'same-origin' })).status).toBe(403);
  });

  test('safe methods with the cookie still answer from anywhere (they change nothing)', async () => {
    const me = await t.call('GET', 'auth/me', { headers: { cookie, origin: 'https://evil.example' } });
    expect(me.status).toBe(200);
  });

  test('bearer tokens are unaffected, whatever the Origin', async () => {
    const issued = await t.call('POST', 'tokens', {
      token: session,
      headers: { origin: 'https://evil.example' },
      body: { name: 'by-bearer' },
    });
    expect(issued.status).toBe(201);
  });

  test('logout by cookie from another site is refused: the session stays', async () => {
    const other = await t.login();
    const refused = await t.call('POST', 'auth/logout', {
      headers: { cookie: `warren_session=${other}`, origin: 'https://evil.example' },
    });
    expect(refused.status).toBe(403);
    expect((await t.call('GET', 'auth/me', { token: other })).status).toBe(200);
    const done = await t.call('POST', 'auth/logout', {
      headers: { cookie: `warren_session=${other}`, origin: t.panel.origin },
    });
    expect(done.status).toBe(200);
    expect((await t.call('GET', 'auth/me', { token: other })).status).toBe(401);
  });
});

describe('login CSRF', () => {
  test('a sign-in another site makes the browser send is refused: no session, no cookie', async () => {
    const before = await count('sessions');
    for (const headers of [{ origin: 'https://evil.example' }, { 'sec-fetch-site': 'cross-site' }] as Record<
      string,
      string
    >[]) {
      const refused = await t.call('POST', 'auth/login', { headers, body: OWNER });
      expect([refused.status, refused.body]).toEqual([403, refusal('origin', 'sign-in from another site is refused')]);
      expect(refused.headers.get('set-cookie')).toBeNull();
    }
    expect(await count('sessions')).toBe(before);
  });

  test('the panel’s own sign-in page, and scripts that send no browser headers, sign in', async () => {
    const fromPanel = await t.call('POST', 'auth/login', { headers: { origin: t.panel.origin }, body: OWNER });
    expect(fromPanel.status).toBe(200);
    expect(fromPanel.headers.get('set-cookie')).toMatch(/warren_session=/);
    expect((await t.call('POST', 'auth/login', { body: OWNER })).status).toBe(200);
  });
});
