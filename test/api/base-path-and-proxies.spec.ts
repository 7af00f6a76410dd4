import { startTestPanel, type TestPanel } from '../support/test-panel.js';

describe('WARREN_BASE_PATH and forwarded headers', () => {
  let t: TestPanel;
  let token: string;

  beforeAll(async () => {
    t = await startTestPanel({ WARREN_BASE_PATH: '/x7k2/', WARREN_TRUSTED_PROXIES: '10.9.9.9' });
    token = await t.login();
  });
  afterAll(async () => {
    await t?.stop();
  });

  test('every route lives under the base path and nowhere else', async () => {
    expect(t.api).toBe(`${t.panel.origin}/x7k2/api`);
    expect((await t.call('GET', 'health')).status).toBe(200);
    const outside = await fetch(`${t.panel.origin}/api/health`);
    expect(outside.status).toBe(404);
    expect(await outside.json()).toEqual({ error: 'not found', field: '' });
  });

  test('docs paths and curl commands carry the base path', async () => {
    const docs = await t.call('GET', 'docs', { token });
    const paths = docs.body.groups.flatMap((group: { endpoints: { path: string }[] }) => group.endpoints.map((e) => e.path));
    expect(paths).toContain('/x7k2/api/docs');
    expect(paths.every((path: string) => path.startsWith('/x7k2/api/'))).toBe(true);
    expect(docs.body.baseUrl).toBe(`${t.panel.origin}/x7k2`);
  });

  test('forwarded headers from an untrusted peer are ignored', async () => {
    const docs = await t.call('GET', 'docs', {
      token,
      headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' },
    });
    expect(docs.body.baseUrl).toBe(`${t.panel.origin}/x7k2`);
    expect(JSON.stringify(docs.body)).not.toContain('evil.example');
  });

  test('the session cookie is scoped to the base path', async () => {
    const login = await t.call('POST', 'auth/login', { body: { username: 'owner', password: 'owner-password-123' } });
    expect(login.headers.get('set-cookie')).toMatch(/Path=\/x7k2/);
  });
});

describe('a trusted proxy', () => {
  let t: TestPanel;
  let token: string;

  beforeAll(async () => {
    t = await startTestPanel({ WARREN_TRUSTED_PROXIES: '127.0.0.1' });
    token = await t.login();
  });
  afterAll(async () => {
    await t?.stop();
  });

  test('its X-Forwarded-Proto and X-Forwarded-Host shape the curl commands', async () => {
    const docs = await t.call('GET', 'docs', {
      token,
      headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'panel.example.net' },
    });
    expect(docs.body.baseUrl).toBe('https://panel.example.net');
    const curl = docs.body.groups[0].endpoints[0].curl as string;
    expect(curl).toContain("'https://panel.example.net/api/");
  });
});
