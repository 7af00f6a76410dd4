import { fixtures } from '../support/fixtures.js';
import { rawRequest } from '../support/raw-http.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';

/** What a Host of the caller's choosing does to what the panel prints (rawRequest: fetch will not send a Host). */
const HOSTILE_HOST = 'evil;id;#';

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
    const paths = docs.body.groups.flatMap((group: { endpoints: { path: string }[] }) =>
      group.endpoints.map((e) => e.path),
    );
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

  test('a Host that is not host[:port] is a 400 where the panel prints its address, and nothing is created', async () => {
    const { count, createNode } = fixtures(() => ({ t, token }));
    const node = await createNode();
    const nodesBefore = await count('nodes');
    const [enrolmentBefore] = await t.query('select enrolment_hash from node_agents where node_id = $1', [node.id]);
    const as = (method: string, path: string, body?: unknown) =>
      rawRequest(`${t.api}/${path}`, {
        method,
        headers: {
          host: HOSTILE_HOST,
          authorization: `Bearer ${token}`,
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        body: body ? JSON.stringify(body) : undefined,
      });
    for (const [method, path, body] of [
      ['GET', 'docs'],
      ['GET', 'openapi.json'],
      ['POST', 'nodes', { name: 'hostile-host', address: '192.0.2.40' }],
      ['POST', `nodes/${node.id}/enrolment`],
    ] as const) {
      const response = await as(method, path, body);
      expect({ path, status: response.status, field: response.body?.field }).toEqual({ path, status: 400, field: '' });
      expect(response.text).not.toContain(HOSTILE_HOST);
    }
    expect(await count('nodes')).toBe(nodesBefore);
    expect(await t.query('select enrolment_hash from node_agents where node_id = $1', [node.id])).toEqual([
      enrolmentBefore,
    ]);
  });

  test('a valid Host is printed as reached, every value of the enrolment command shell-quoted', async () => {
    const response = await rawRequest(`${t.api}/nodes`, {
      method: 'POST',
      headers: { host: 'panel.example:8443', authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'quoted-command', address: '192.0.2.41' }),
    });
    expect(response.status).toBe(201);
    const { secret, command, agentCommand } = response.body.enrolment;
    expect(agentCommand).toBe(
      `WARREN_ENROL_SECRET='${secret}' warren-agent --controller 'http://panel.example:8443/x7k2'`,
    );
    // Plain http: no installer piped into bash, the agent's own command.
    expect(command).toBe(agentCommand);
  });

  test('the session cookie is scoped to the base path', async () => {
    const login = await t.call('POST', 'auth/login', { body: { username: 'owner', password: 'owner-password-123' } });
    expect(login.headers.get('set-cookie')).toMatch(/Path=\/x7k2/);
  });

  test('the panel’s origin for cookie requests is scheme, host and port: the base path is no part of it', async () => {
    const cookie = `warren_session=${token}`;
    const fromPanel = await t.call('POST', 'tokens', {
      headers: { cookie, origin: t.panel.origin },
      body: { name: 'under-base-path' },
    });
    expect(fromPanel.status).toBe(201);
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

  test('what it forwards is checked like a Host: not http(s)://host[:port] is a 400', async () => {
    for (const headers of [
      { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'panel.example.net;id' },
      { 'x-forwarded-proto': 'https', 'x-forwarded-host': "panel.example.net'$(id)'" },
      { 'x-forwarded-proto': 'javascript', 'x-forwarded-host': 'panel.example.net' },
    ]) {
      const docs = await t.call('GET', 'docs', { token, headers });
      expect({ headers, status: docs.status, field: docs.body.field }).toEqual({ headers, status: 400, field: '' });
    }
  });

  test('cookie requests must come from the origin the proxy says the browser used', async () => {
    const headers = {
      cookie: `warren_session=${token}`,
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'panel.example.net',
    };
    const fromPublic = await t.call('POST', 'tokens', {
      headers: { ...headers, origin: 'https://panel.example.net' },
      body: { name: 'via-proxy' },
    });
    expect(fromPublic.status).toBe(201);
    const fromInside = await t.call('POST', 'tokens', {
      headers: { ...headers, origin: t.panel.origin },
      body: { name: 'inside' },
    });
    expect([fromInside.status, fromInside.body.field]).toEqual([403, 'origin']);
  });
});

describe('WARREN_PUBLIC_URL', () => {
  let t: TestPanel;
  let token: string;

  beforeAll(async () => {
    t = await startTestPanel({ WARREN_PUBLIC_URL: 'https://panel.example.net:9443/', WARREN_BASE_PATH: '/x7k2' });
    token = await t.login();
  });
  afterAll(async () => {
    await t?.stop();
  });

  test('is what the panel prints, whatever Host a request carries', async () => {
    const headers = { host: HOSTILE_HOST, authorization: `Bearer ${token}` };
    const docs = await rawRequest(`${t.api}/docs`, { headers });
    expect(docs.status).toBe(200);
    expect(docs.body.baseUrl).toBe('https://panel.example.net:9443/x7k2');
    expect(docs.body.groups[0].endpoints[0].curl).toContain("'https://panel.example.net:9443/x7k2/api/");
    expect(docs.text).not.toContain(HOSTILE_HOST);
    const openApi = await rawRequest(`${t.api}/openapi.json`, { headers });
    expect(openApi.body.servers).toEqual([{ url: 'https://panel.example.net:9443/x7k2' }]);
    const node = await rawRequest(`${t.api}/nodes`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'public-url', address: '192.0.2.42' }),
    });
    expect(node.status).toBe(201);
    expect(node.body.enrolment.agentCommand).toBe(
      `WARREN_ENROL_SECRET='${node.body.enrolment.secret}' warren-agent --controller 'https://panel.example.net:9443/x7k2'`,
    );
    // No pins: this panel serves plain HTTP behind its public address (a proxy's certificate).
    expect(node.body.enrolment.command).toBe(
      `(script=$(curl -fsSL 'https://panel.example.net:9443/x7k2/api/agent/install.sh') && WARREN_ENROL_SECRET='${node.body.enrolment.secret}' bash -c "$script" install-agent.sh --controller 'https://panel.example.net:9443/x7k2')`,
    );
  });

  test("is the panel's origin for cookie requests too (as is the address reached)", async () => {
    const cookie = `warren_session=${token}`;
    const fromPublic = await t.call('POST', 'tokens', {
      headers: { cookie, origin: 'https://panel.example.net:9443' },
      body: { name: 'public-origin' },
    });
    expect(fromPublic.status).toBe(201);
    const fromReached = await t.call('POST', 'tokens', {
      headers: { cookie, origin: t.panel.origin },
      body: { name: 'reached-origin' },
    });
    expect(fromReached.status).toBe(201);
    const fromElsewhere = await t.call('POST', 'tokens', {
      headers: { cookie, origin: 'https://panel.example.net:9444' },
      body: { name: 'other-port' },
    });
    expect([fromElsewhere.status, fromElsewhere.body.field]).toEqual([403, 'origin']);
  });
});
