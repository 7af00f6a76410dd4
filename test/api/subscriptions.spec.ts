import { randomUUID } from 'node:crypto';
import { fixtures, type ClientView, type InterfaceView, type TestUser } from '../support/fixtures.js';
import { rawRequest } from '../support/raw-http.js';
import { refusal } from '../support/refusal.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';

/**
 * Subscription links (docs/subscriptions.md): the operators' routes, the public page and its app
 * formats, rotation, one-time links, and what someone holding no link (or a guessed one) gets.
 * The panel runs under a base path and trusts the test's own address as a proxy, so each test
 * comes "from" an address of its own (X-Forwarded-For): no test's guesses count against another's.
 */
let t: TestPanel;
let token: string;
beforeAll(async () => {
  t = await startTestPanel({ WARREN_BASE_PATH: '/x7k2', WARREN_TRUSTED_PROXIES: '127.0.0.1' });
  token = await t.login();
});
afterAll(async () => {
  await t?.stop();
});

const { call, createInterface, createHost, createClient, createUser, expectRefused } = fixtures(() => ({ t, token }));

let addressCount = 0;
/** A documentation address (198.51.100.0/24) no other test in this file uses. */
const freshAddress = () => `198.51.100.${++addressCount}`;

interface Fetched {
  status: number;
  headers: Headers;
  text: string;
  bytes: Buffer;
}

/** A public GET (no credentials) of a path below the origin, from `from`. */
async function open(path: string, from: string, headers: Record<string, string> = {}): Promise<Fetched> {
  const response = await fetch(`${t.panel.origin}${path}`, {
    headers: { 'x-forwarded-for': from, ...headers },
    redirect: 'manual',
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, text: bytes.toString('utf8'), bytes };
}

let iface: InterfaceView;
let client: ClientView;
let viewer: TestUser;
let admin: TestUser;

beforeAll(async () => {
  iface = await createInterface({ dns: ['1.1.1.1'] });
  client = await createClient({
    name: 'Sara',
    interfaceIds: [iface.id],
    deviceLimit: 2,
    deviceNames: ['phone', 'laptop'],
    quotaBytes: 10 * 2 ** 30,
  });
  viewer = await createUser('viewer');
  admin = await createUser('admin');
});

const linkOf = async (id: string) => {
  const answer = await call('GET', `clients/${id}/subscription`);
  expect(answer.status).toBe(200);
  return answer.body as { clientId: string; url: string; path: string; formats: Record<string, string> };
};

describe('the link', () => {
  test('is made on first read, stays the same, sits under the base path, and lists one URL per format', async () => {
    const first = await linkOf(client.id);
    expect(first.path).toMatch(/^\/x7k2\/sub\/[A-Za-z0-9_-]{32}$/);
    expect(first.url).toBe(`${t.panel.origin}${first.path}`);
    expect(first.formats).toEqual({
      conf: `${first.url}?format=conf`,
      zip: `${first.url}?format=zip`,
      json: `${first.url}?format=json`,
      base64: `${first.url}?format=base64`,
    });
    expect(await linkOf(client.id)).toEqual(first);
    // Only a hash is stored: the token itself is nowhere in the database.
    const token = first.path.split('/').pop()!;
    const [row] = await t.query<{ sub_token_hash: string; sub_nonce: string }>(
      'select sub_token_hash, sub_nonce from clients where id = $1',
      [client.id],
    );
    expect(row.sub_token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(await t.query('select * from clients'))).not.toContain(token);
    expect(JSON.stringify(await t.query('select * from settings'))).not.toContain(token);
  });

  test('parallel first reads agree on one link', async () => {
    const fresh = await createClient({ interfaceIds: [iface.id] });
    const links = await Promise.all(Array.from({ length: 6 }, () => linkOf(fresh.id)));
    expect(new Set(links.map((link) => link.url)).size).toBe(1);
    expect((await open(links[0].path, freshAddress())).status).toBe(200);
  });

  test('a lost panel key does not leave a link that opens nothing: the client gets a new one', async () => {
    const own = await createClient({ interfaceIds: [iface.id] });
    const before = await linkOf(own.id);
    await t.query(`delete from settings where key = 'subscriptionKey'`);
    const after = await linkOf(own.id);
    expect(after.path).not.toBe(before.path);
    expect((await open(after.path, freshAddress())).status).toBe(200);
    expect((await open(before.path, freshAddress())).status).toBe(404);
    // The other clients' links are re-made the same way when next asked for.
    const again = await linkOf(client.id);
    expect((await open(again.path, freshAddress())).status).toBe(200);
  });

  test('unknown clients are 404; links are for owners and admins, not viewers or the unsigned', async () => {
    await expectRefused('GET', `clients/${randomUUID()}/subscription`, undefined, 404, 'id');
    await expectRefused('POST', `clients/${randomUUID()}/subscription/rotate`, undefined, 404, 'id');
    await expectRefused('GET', 'clients/not-an-id/subscription', undefined, 404, 'id');
    for (const [method, path] of [
      ['GET', `clients/${client.id}/subscription`],
      ['POST', `clients/${client.id}/subscription/rotate`],
    ]) {
      expect((await t.call(method, path, { token: viewer.token })).status).toBe(403);
      expect((await t.call(method, path)).status).toBe(401);
    }
    expect((await t.call('GET', `clients/${client.id}/subscription`, { token: admin.token })).status).toBe(200);
  });

  test('rotation gives a new link and the old one answers 404 at once', async () => {
    const before = await linkOf(client.id);
    expect((await open(before.path, freshAddress())).status).toBe(200);
    const rotated = await call('POST', `clients/${client.id}/subscription/rotate`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.path).not.toBe(before.path);
    expect(await linkOf(client.id)).toEqual(rotated.body);
    const from = freshAddress();
    const old = await open(before.path, from);
    expect([old.status, JSON.parse(old.text)]).toEqual([404, { error: 'not found', field: '' }]);
    expect((await open(`${before.path}?format=conf`, from)).status).toBe(404);
    expect((await open(rotated.body.path as string, from)).status).toBe(200);
  });
});

describe('the public page', () => {
  test('shows status, usage, expiry and every config with its QR code, with strict headers and no cookie', async () => {
    const link = await linkOf(client.id);
    const page = await open(link.path, freshAddress(), { cookie: `warren_session=${token}` });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toMatch(
      /^default-src 'none'; style-src 'sha256-[^']+'; img-src data:;/,
    );
    expect(page.headers.get('content-security-policy')).not.toMatch(/script-src|unsafe/);
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('set-cookie')).toBeNull();
    expect(page.headers.get('subscription-userinfo')).toBe(`upload=0; download=0; total=${10 * 2 ** 30}; expire=0`);
    expect(page.text).toContain('<html lang="en" dir="ltr">');
    expect(page.text).toContain('Sara');
    expect(page.text).toContain('data-status="active"');
    expect(page.text).not.toMatch(/<script/i);
    const configs = await call('GET', `clients/${client.id}/configs`);
    const bodies = (configs.body.devices as { profiles: { body: string }[] }[]).flatMap((d) => d.profiles);
    expect(bodies).toHaveLength(2);
    for (const profile of bodies) expect(page.text).toContain(profile.body.split('\n')[1]); // its PrivateKey line
    expect(page.text.match(/<img class="qr"/g)).toHaveLength(2);
    // Every link on the page stays on the page: relative query strings, no other path of the panel.
    const hrefs = [...page.text.matchAll(/href="([^"]*)"/g)].map((m) => m[1]);
    expect(hrefs.length).toBeGreaterThan(0);
    expect(hrefs.every((href) => href.startsWith('?'))).toBe(true);
    const download = await open(`${link.path}?download=1`, freshAddress());
    expect(download.status).toBe(200);
    expect(download.text).toBe(bodies[1].body);
    expect(download.headers.get('content-disposition')).toMatch(/^attachment; filename="[^"/]+\.conf"$/);
  });

  test('speaks Persian, right to left, by ?lang=, by the browser, or by the setting', async () => {
    const link = await linkOf(client.id);
    const byQuery = await open(`${link.path}?lang=fa`, freshAddress());
    expect(byQuery.text).toContain('<html lang="fa" dir="rtl">');
    expect(byQuery.text).toContain('فعال');
    expect(byQuery.text).toMatch(/[۰-۹]/); // Persian digits
    const byBrowser = await open(link.path, freshAddress(), { 'accept-language': 'fa-IR,fa;q=0.9,en;q=0.5' });
    expect(byBrowser.headers.get('content-language')).toBe('fa');
    const english = await open(link.path, freshAddress(), { 'accept-language': 'de-DE,en;q=0.5' });
    expect(english.headers.get('content-language')).toBe('en');
    const settings = (await call('GET', 'subscription')).body;
    expect((await call('PUT', 'subscription', { ...settings, language: 'fa' })).status).toBe(200);
    try {
      expect((await open(link.path, freshAddress(), { 'accept-language': 'en' })).headers.get('content-language')).toBe(
        'fa',
      );
      expect((await open(`${link.path}?lang=en`, freshAddress())).headers.get('content-language')).toBe('en');
    } finally {
      await call('PUT', 'subscription', settings);
    }
  });

  test('gives apps conf, zip, json and base64 with the subscription-userinfo header', async () => {
    await t.query(
      'update clients set up_bytes = 1000, down_bytes = 4000, used_bytes = 5000, expires_at = $2 where id = $1',
      [client.id, new Date('2031-01-02T03:04:05Z')],
    );
    const link = await linkOf(client.id);
    const from = freshAddress();
    const profile = (await call('GET', `devices/${client.devices[0].id}/profile`)).body as {
      body: string;
      filename: string;
    };
    const header = `upload=1000; download=4000; total=${10 * 2 ** 30}; expire=${Date.parse('2031-01-02T03:04:05Z') / 1000}`;

    const conf = await open(`${link.path}?format=conf`, from);
    expect([conf.status, conf.headers.get('content-type'), conf.text]).toEqual([
      200,
      'application/x-wireguard-config',
      profile.body,
    ]);
    expect(conf.headers.get('subscription-userinfo')).toBe(header);
    expect(conf.headers.get('content-disposition')).toBe(`attachment; filename="${profile.filename}"`);

    const second = await open(`${link.path}?format=conf&profile=1`, from);
    expect(second.text).not.toBe(profile.body);
    expect(second.text).toMatch(/^\[Interface\]/);

    const base64 = await open(`${link.path}?format=base64`, from);
    expect(Buffer.from(base64.text, 'base64').toString('utf8')).toBe(profile.body);
    expect(base64.headers.get('subscription-userinfo')).toBe(header);

    const json = await open(`${link.path}?format=json`, from);
    expect(json.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const parsed = JSON.parse(json.text);
    expect(parsed).toMatchObject({ name: 'Sara', status: 'active', upBytes: 1000, downBytes: 4000, usedBytes: 5000 });
    expect(parsed.devices.map((d: { name: string }) => d.name)).toEqual(['phone', 'laptop']);
    expect(parsed.devices[0].profiles[0].body).toBe(profile.body);

    const zip = await open(`${link.path}?format=zip`, from);
    expect([zip.status, zip.headers.get('content-type')]).toEqual([200, 'application/zip']);
    expect(zip.bytes.subarray(0, 4)).toEqual(Buffer.from([0x50, 0x4b, 0x03, 0x04]));

    for (const [bad, field] of [
      ['?format=yaml', 'format'],
      ['?format=conf&profile=9', 'profile'],
      ['?format=conf&profile=-1', 'profile'],
      ['?format=conf&format=zip', 'format'],
    ]) {
      const refused = await open(`${link.path}${bad}`, from);
      expect([bad, refused.status, JSON.parse(refused.text)]).toEqual([bad, 404, refusal(field)]);
    }
  });

  test('hands out exactly the configs the API renders, one per enabled host', async () => {
    const hosted = await createInterface();
    await createHost({ interfaceId: hosted.id, name: 'cdn', address: 'cdn.example.net', port: 443, priority: 10 });
    await createHost({ interfaceId: hosted.id, name: 'direct', address: '203.0.113.9', port: 0, priority: 5 });
    await createHost({ interfaceId: hosted.id, name: 'off', address: 'off.example.net', enabled: false });
    const own = await createClient({ interfaceIds: [hosted.id, iface.id], deviceLimit: 2, deviceNames: ['a', 'b'] });
    const link = await linkOf(own.id);
    const json = JSON.parse((await open(`${link.path}?format=json`, freshAddress())).text);
    const configs = (await call('GET', `clients/${own.id}/configs`)).body as {
      devices: { deviceName: string; profiles: { body: string; filename: string }[] }[];
    };
    expect(
      json.devices.map((d: { name: string; profiles: { body: string; filename: string }[] }) => [
        d.name,
        d.profiles.map((p) => [p.filename, p.body]),
      ]),
    ).toEqual(configs.devices.map((d) => [d.deviceName, d.profiles.map((p) => [p.filename, p.body])]));
    expect(configs.devices[0].profiles).toHaveLength(3); // two hosts on one interface, the other's endpoint
  });

  test('formats not offered are refused, and only offered ones are listed in the link', async () => {
    const settings = (await call('GET', 'subscription')).body;
    expect((await call('PUT', 'subscription', { ...settings, formats: ['conf'] })).status).toBe(200);
    try {
      const link = await linkOf(client.id);
      expect(Object.keys(link.formats)).toEqual(['conf']);
      const zip = await open(`${link.path}?format=zip`, freshAddress());
      expect([zip.status, JSON.parse(zip.text).field]).toEqual([404, 'format']);
      expect(await open(link.path, freshAddress()).then((page) => page.text)).not.toContain('?format=zip');
    } finally {
      await call('PUT', 'subscription', settings);
    }
  });

  test('a disabled, expired or exhausted client sees why, and no configs', async () => {
    const other = await createClient({ interfaceIds: [iface.id], name: 'Reza' });
    const link = await linkOf(other.id);
    expect((await call('PATCH', `clients/${other.id}`, { enabled: false })).status).toBe(200);
    const from = freshAddress();
    const disabled = await open(link.path, from);
    expect(disabled.status).toBe(200);
    expect(disabled.text).toContain('data-status="disabled"');
    expect(disabled.text).toContain('turned this subscription off');
    expect(disabled.text).not.toContain('PrivateKey');
    expect(disabled.text).not.toContain('<img class="qr"');
    const persian = await open(`${link.path}?lang=fa`, from);
    expect(persian.text).toContain('غیرفعال');
    for (const format of ['conf', 'zip', 'json', 'base64']) {
      const refused = await open(`${link.path}?format=${format}`, from);
      expect([format, refused.status, JSON.parse(refused.text)]).toEqual([
        format,
        403,
        { error: 'this subscription is disabled', field: '' },
      ]);
      expect(refused.headers.get('subscription-userinfo')).toMatch(/^upload=0; download=0; total=0; expire=0$/);
    }
    expect((await open(`${link.path}?download=0`, from)).status).toBe(403);

    await t.query(`update clients set status = 'expired', expires_at = now() - interval '1 day' where id = $1`, [
      other.id,
    ]);
    const expired = await open(link.path, from);
    expect(expired.text).toContain('data-status="expired"');
    expect(expired.text).toContain('has expired');
    await t.query(`update clients set status = 'exhausted', expires_at = null where id = $1`, [other.id]);
    expect((await open(link.path, from)).text).toContain('used all of its traffic');
  });

  test('a start-on-first-use client not yet connected sees how long it runs from its first connection, not “never”', async () => {
    const later = await createClient({
      name: 'Later',
      interfaceIds: [iface.id],
      startOnFirstUse: true,
      durationDays: 30,
      durationHours: 12,
    });
    const link = await linkOf(later.id);
    const english = await open(`${link.path}?lang=en`, freshAddress());
    expect(english.text).toContain('<dd>30 days and 12 hours from the first connection</dd>');
    expect(english.headers.get('subscription-userinfo')).toMatch(/; expire=0$/); // no date to give apps yet
    const persian = await open(`${link.path}?lang=fa`, freshAddress());
    expect(persian.text).toContain('<dd>۳۰ روز و ۱۲ ساعت پس از نخستین اتصال</dd>');
    const json = JSON.parse((await open(`${link.path}?format=json`, freshAddress())).text);
    expect(json).toMatchObject({ expiresAt: null, expiresAfterFirstUseSeconds: 30 * 86_400 + 12 * 3600 });
    // Once connected, the clock runs: a date and the days left.
    await t.query(
      `update clients set activated_at = now(), expires_at = now() + interval '30 days 12 hours' where id = $1`,
      [later.id],
    );
    const started = await open(`${link.path}?lang=en`, freshAddress());
    expect(started.text).toContain('(31 days left)');
    expect(JSON.parse((await open(`${link.path}?format=json`, freshAddress())).text).expiresAfterFirstUseSeconds).toBe(
      null,
    );
  });

  test('a deleted client’s link is gone', async () => {
    const gone = await createClient({ interfaceIds: [iface.id] });
    const link = await linkOf(gone.id);
    expect((await call('DELETE', `clients/${gone.id}`)).status).toBe(200);
    expect((await open(link.path, freshAddress())).status).toBe(404);
  });
});

describe('guessing links', () => {
  test('unknown, malformed and tricked tokens all answer the same 404; nothing else of the panel answers there', async () => {
    const link = await linkOf(client.id);
    const real = link.path.split('/').pop()!;
    const flipped = real.slice(0, -1) + (real.endsWith('A') ? 'B' : 'A');
    const from = freshAddress();
    const notFound = { error: 'not found', field: '' };
    for (const path of [
      `/x7k2/sub/${flipped}`,
      `/x7k2/sub/${real.toLowerCase() === real ? real.toUpperCase() : real.toLowerCase()}`,
      `/x7k2/sub/${real.slice(0, 31)}`,
      `/x7k2/sub/${real}x`,
      `/x7k2/sub/${'A'.repeat(32)}`,
      `/x7k2/sub/${encodeURIComponent(`${real.slice(0, 16)}%`)}`,
      `/x7k2/dl/${real}`,
    ]) {
      const answer = await open(path, from);
      expect([path, answer.status, JSON.parse(answer.text)]).toEqual([path, 404, notFound]);
      expect(answer.headers.get('subscription-userinfo')).toBeNull();
    }
    // Paths that try to step out of /sub/ reach nothing of the API without credentials.
    for (const path of [
      `/x7k2/sub/${real}/../../api/clients`,
      `/x7k2/sub/..%2f..%2fapi%2fclients`,
      `/x7k2/sub/${real}/`,
      `/x7k2/sub/${real}/x`,
      `/sub/${real}`,
    ]) {
      const answer = await rawRequest(`${t.panel.origin}${path}`, { headers: { 'x-forwarded-for': from } });
      expect([path, answer.status]).toEqual([path, expect.any(Number)]);
      expect([path, answer.status === 200 && answer.text.includes('PrivateKey')]).toEqual([path, false]);
      expect([path, answer.text]).not.toEqual([path, expect.stringContaining('"items"')]);
    }
    const post = await rawRequest(`${t.panel.origin}${link.path}`, {
      method: 'POST',
      headers: { 'x-forwarded-for': from },
    });
    expect(post.status).toBe(404);
  });

  test('twenty-one unknown tokens from one address (the last sets the lockout), then 429 with Retry-After for every link from it, right ones included', async () => {
    const link = await linkOf(client.id);
    const from = freshAddress();
    for (let guess = 1; guess <= 21; guess++) {
      expect((await open(`/x7k2/sub/${randomUUID().replaceAll('-', '')}`, from)).status).toBe(404);
    }
    const tipping = await open(`/x7k2/sub/${'B'.repeat(32)}`, from);
    expect(tipping.status).toBe(429);
    const locked = await open(link.path, from);
    expect([locked.status, JSON.parse(locked.text)]).toEqual([
      429,
      { error: expect.stringMatching(/too many/), field: '' },
    ]);
    const retryAfter = Number(locked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(30);
    expect(locked.text).not.toContain('Sara');
    // One-time links from that address are refused too; another address is not affected.
    expect((await open(`/x7k2/dl/${'C'.repeat(32)}`, from)).status).toBe(429);
    expect((await open(link.path, freshAddress())).status).toBe(200);
  });

  test('parallel guesses from one address do not slip past the count', async () => {
    const from = freshAddress();
    const answers = await Promise.all(
      Array.from({ length: 30 }, () => open(`/x7k2/sub/${randomUUID().replaceAll('-', '')}`, from)),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 404)).toHaveLength(21);
    expect(statuses.filter((status) => status === 429)).toHaveLength(9);
  });
});

describe('settings and preview', () => {
  test('GET has defaults; PUT replaces and validates; viewers read but do not write', async () => {
    expect((await call('GET', 'subscription')).body).toEqual({
      title: 'VPN',
      supportContact: '',
      formats: ['conf', 'zip', 'json', 'base64'],
      language: 'auto',
    });
    expect((await t.call('GET', 'subscription', { token: viewer.token })).status).toBe(200);
    const next = {
      title: ' Acme VPN ',
      supportContact: 'https://t.me/acme',
      formats: ['conf', 'json'],
      language: 'fa',
    };
    expect((await t.call('PUT', 'subscription', { token: viewer.token, body: next })).status).toBe(403);
    const put = await call('PUT', 'subscription', next);
    expect(put.body).toEqual({ ...next, title: 'Acme VPN' });
    expect((await call('GET', 'subscription')).body).toEqual(put.body);
    const page = await open((await linkOf(client.id)).path, freshAddress());
    expect(page.text).toContain('<title>Acme VPN</title>');
    expect(page.text).toContain('href="https://t.me/acme"');
    expect(page.headers.get('profile-title')).toBe(`base64:${Buffer.from('Acme VPN').toString('base64')}`);
    const valid = { title: 'x', supportContact: '', formats: [], language: 'en' };
    for (const [body, field] of [
      [{ ...valid, formats: ['yaml'] }, 'formats'],
      [{ ...valid, formats: ['conf', 'conf'] }, 'formats'],
      [{ ...valid, language: 'de' }, 'language'],
      [{ ...valid, title: 'x'.repeat(65) }, 'title'],
      [{ ...valid, title: 'a\u0007b' }, 'title'],
      [{ ...valid, supportContact: 'y'.repeat(257) }, 'supportContact'],
      [{ ...valid, extra: 1 }, 'extra'],
      [{ title: 'x', supportContact: '', formats: [] }, 'language'],
    ] as const) {
      await expectRefused('PUT', 'subscription', body, 400, field);
    }
    expect((await call('GET', 'subscription')).body).toEqual(put.body);
    await call('PUT', 'subscription', {
      title: 'VPN',
      supportContact: '',
      formats: ['conf', 'zip', 'json', 'base64'],
      language: 'auto',
    });
  });

  test('preview renders unsaved settings for a sample customer, with the page’s own CSP', async () => {
    const before = (await call('GET', 'subscription')).body;
    const response = await fetch(`${t.api}/subscription/preview`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Preview <b>Title</b>', supportContact: '', formats: ['conf'], language: 'fa' }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toMatch(/^default-src 'none'/);
    const html = await response.text();
    expect(html).toContain('<html lang="fa" dir="rtl">');
    expect(html).toContain('Preview &lt;b&gt;Title&lt;/b&gt;');
    expect(html).not.toContain('Sara');
    expect((await call('GET', 'subscription')).body).toEqual(before);
    await expectRefused('POST', 'subscription/preview', { ...before, formats: 'conf' }, 400, 'formats');
    expect((await t.call('POST', 'subscription/preview', { token: viewer.token, body: before })).status).toBe(403);
  });
});

describe('one device’s profile', () => {
  test('the first config, or the one chosen by interface and host; JSON or the file', async () => {
    const second = await createInterface();
    const both = await createClient({ interfaceIds: [iface.id, second.id], deviceNames: ['tablet'] });
    const device = both.devices[0].id;
    const all = (await call('GET', `devices/${device}/profiles`)).body as { interfaceId: string; body: string }[];
    expect(all).toHaveLength(2);
    const first = await call('GET', `devices/${device}/profile`);
    expect([first.status, first.body]).toEqual([200, all[0]]);
    const chosen = await call('GET', `devices/${device}/profile?interfaceId=${all[1].interfaceId}`);
    expect(chosen.body).toEqual(all[1]);
    const file = await fetch(`${t.api}/devices/${device}/profile?format=conf`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect([file.status, file.headers.get('content-type'), await file.text()]).toEqual([
      200,
      'application/x-wireguard-config',
      all[0].body,
    ]);
    await expectRefused('GET', `devices/${randomUUID()}/profile`, undefined, 404, 'id');
    await expectRefused('GET', `devices/${device}/profile?interfaceId=${randomUUID()}`, undefined, 404, 'interfaceId');
    await expectRefused('GET', `devices/${device}/profile?hostId=${randomUUID()}`, undefined, 404, 'hostId');
    await expectRefused('GET', `devices/${device}/profile?interfaceId=nope`, undefined, 400, 'interfaceId');
    await expectRefused('GET', `devices/${device}/profile?format=zip`, undefined, 400, 'format');
    expect((await t.call('GET', `devices/${device}/profile`, { token: viewer.token })).status).toBe(403);
  });
});

describe('one-time links', () => {
  const mint = (deviceId: string, body: Record<string, unknown> = {}) =>
    call('POST', `devices/${deviceId}/profile/link`, body);

  test('work once, atomically, and hand out exactly the chosen config', async () => {
    const created = await mint(client.devices[1].id, { minutes: 5 });
    expect(created.status).toBe(201);
    expect(created.body.path).toMatch(/^\/x7k2\/dl\/[A-Za-z0-9_-]{32}$/);
    expect(Date.parse(created.body.expiresAt as string) - Date.now()).toBeGreaterThan(4 * 60_000);
    const profile = (await call('GET', `devices/${client.devices[1].id}/profile`)).body as {
      body: string;
      filename: string;
    };
    expect(created.body.filename).toBe(profile.filename);
    const from = freshAddress();
    const use = `${created.body.path as string}?download=1`;
    const answers = await Promise.all(Array.from({ length: 5 }, () => open(use, from)));
    const won = answers.filter((answer) => answer.status === 200);
    expect(won).toHaveLength(1);
    expect(won[0].text).toBe(profile.body);
    expect(won[0].headers.get('content-disposition')).toBe(`attachment; filename="${profile.filename}"`);
    expect(answers.filter((answer) => answer.status === 404)).toHaveLength(4);
    expect((await open(use, from)).status).toBe(404);
    expect((await open(created.body.path as string, from)).status).toBe(404);
    // Only the hash is stored.
    const token = (created.body.path as string).split('/').pop()!;
    expect(JSON.stringify(await t.query('select * from download_links'))).not.toContain(token);
  });

  test('expire after their minutes (the service clock moved, not waited for)', async () => {
    const { SubscriptionsService } = await import('../../apps/controller/src/subscriptions/subscriptions.service.js');
    const service = t.panel.app.get(SubscriptionsService);
    const created = await mint(client.devices[0].id, { minutes: 1 });
    const real = service.now;
    try {
      service.now = () => new Date(Date.now() + 61_000);
      expect((await open(created.body.path as string, freshAddress())).status).toBe(404);
      expect((await open(`${created.body.path as string}?download=1`, freshAddress())).status).toBe(404);
      service.now = () => new Date(Date.now() + 59_000);
      expect((await open(`${created.body.path as string}?download=1`, freshAddress())).status).toBe(200);
    } finally {
      service.now = real;
    }
  });

  test('open as a page with a button that spends nothing (a chat app previewing the message); the button spends it', async () => {
    const created = await mint(client.devices[0].id, { minutes: 10 });
    const path = created.body.path as string;
    const from = freshAddress();
    for (const agent of ['TelegramBot (like TwitterBot)', 'WhatsApp/2.23', 'Mozilla/5.0']) {
      const page = await open(path, from, { 'user-agent': agent });
      expect([agent, page.status, page.headers.get('content-type')]).toEqual([agent, 200, 'text/html; charset=utf-8']);
      expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(page.headers.get('cache-control')).toBe('no-store');
      expect(page.headers.get('referrer-policy')).toBe('no-referrer');
      expect(page.text).toContain('href="?download=1"');
      expect(page.text).not.toContain('PrivateKey');
    }
    const persian = await open(`${path}?lang=fa`, from);
    expect(persian.text).toContain('<html lang="fa" dir="rtl">');
    expect(persian.text).toContain('دریافت پیکربندی');
    const profile = (await call('GET', `devices/${client.devices[0].id}/profile`)).body as { body: string };
    const used = await open(`${path}?download=1`, from);
    expect([used.status, used.text]).toEqual([200, profile.body]);
    expect((await open(path, from)).status).toBe(404);
  });

  test('rotating a client’s subscription link revokes its unspent one-time links too, and no one else’s', async () => {
    const own = await createClient({ interfaceIds: [iface.id] });
    const other = await createClient({ interfaceIds: [iface.id] });
    const mine = (await mint(own.devices[0].id)).body.path as string;
    const theirs = (await mint(other.devices[0].id)).body.path as string;
    expect((await call('POST', `clients/${own.id}/subscription/rotate`)).status).toBe(200);
    expect((await open(mine, freshAddress())).status).toBe(404);
    expect((await open(`${mine}?download=1`, freshAddress())).status).toBe(404);
    expect((await open(`${theirs}?download=1`, freshAddress())).status).toBe(200);
    // A link made after the rotation works.
    const after = (await mint(own.devices[0].id)).body.path as string;
    expect((await open(`${after}?download=1`, freshAddress())).status).toBe(200);
  });

  test('refuse bad requests before anything is stored', async () => {
    const before = await t.query('select count(*)::int as n from download_links');
    await expectRefused('POST', `devices/${randomUUID()}/profile/link`, {}, 404, 'id');
    await expectRefused('POST', `devices/${client.devices[0].id}/profile/link`, { minutes: 0 }, 400, 'minutes');
    await expectRefused('POST', `devices/${client.devices[0].id}/profile/link`, { minutes: 1441 }, 400, 'minutes');
    await expectRefused(
      'POST',
      `devices/${client.devices[0].id}/profile/link`,
      { interfaceId: randomUUID() },
      404,
      'interfaceId',
    );
    await expectRefused('POST', `devices/${client.devices[0].id}/profile/link`, { hostId: 'x' }, 400, 'hostId');
    expect(
      (await t.call('POST', `devices/${client.devices[0].id}/profile/link`, { token: viewer.token, body: {} })).status,
    ).toBe(403);
    expect(await t.query('select count(*)::int as n from download_links')).toEqual(before);
  });

  test('a link of a deleted device is gone', async () => {
    const extra = await call('POST', `clients/${client.id}/devices`, { name: 'spare' });
    expect(extra.status).toBe(409); // the limit of two is reached; use a client of its own
    const own = await createClient({ interfaceIds: [iface.id] });
    const created = await mint(own.devices[0].id);
    expect((await call('DELETE', `devices/${own.devices[0].id}`)).status).toBe(200);
    expect((await open(created.body.path as string, freshAddress())).status).toBe(404);
  });
});
