import { randomUUID } from 'node:crypto';
import { hashPassword } from '../../apps/controller/src/auth/password.js';
import { fixtures } from '../support/fixtures.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';

interface Endpoint {
  method: string;
  path: string;
  auth: boolean;
  example: unknown;
  curl: string;
}

let t: TestPanel;
let endpoints: Endpoint[];
let ownerToken: string;

beforeAll(async () => {
  t = await startTestPanel();
  ownerToken = await t.login();
  const docs = await t.call('GET', 'docs', { token: ownerToken });
  expect(docs.status).toBe(200);
  endpoints = docs.body.groups.flatMap((group: { endpoints: Endpoint[] }) => group.endpoints);
});
afterAll(async () => {
  await t?.stop();
});

/** The served path with concrete ids, relative to /api. */
function concrete(path: string): string {
  return path.replace(/^\/api\//, '').replace(/\{[^}]+\}/g, randomUUID());
}

const { createToken } = fixtures(() => ({ t, token: ownerToken }));

describe('route table', () => {
  test('GET /api/docs lists exactly the routes the router serves', () => {
    const served = t.panel.servedRoutes
      .filter((route) => route.method !== 'HEAD' && route.method !== 'OPTIONS')
      .map((route) => `${route.method} ${route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`)
      .sort();
    const listed = endpoints.map((endpoint) => `${endpoint.method} ${endpoint.path}`).sort();
    expect(listed).toEqual(served);
    expect(new Set(listed).size).toBe(listed.length);
  });

  test('only login, health and agent enrolment are public', () => {
    const publicRoutes = endpoints.filter((endpoint) => !endpoint.auth).map((endpoint) => `${endpoint.method} ${endpoint.path}`);
    expect(publicRoutes.sort()).toEqual(['GET /api/health', 'POST /api/agent/enrol', 'POST /api/auth/login']);
  });

  test('every entry carries a curl command built from the address the request reached', () => {
    for (const endpoint of endpoints) {
      expect(endpoint.curl).toContain(`'${t.panel.origin}${endpoint.path}'`);
      if (endpoint.auth) expect(endpoint.curl).toContain('Authorization: Bearer');
      if (endpoint.example !== null) expect(endpoint.curl).toContain(JSON.stringify(endpoint.example));
    }
  });

  test('the OpenAPI document has the same operations', async () => {
    const openapi = await t.call('GET', 'openapi.json', { token: ownerToken });
    expect(openapi.status).toBe(200);
    expect(openapi.body.openapi).toMatch(/^3\./);
    const operations = Object.entries(openapi.body.paths as Record<string, Record<string, unknown>>)
      .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();
    expect(operations).toEqual(endpoints.map((endpoint) => `${endpoint.method} ${endpoint.path}`).sort());
  });
});

describe('every non-public route refuses', () => {
  let revoked: string;
  let deleted: string;
  let orphaned: string;

  beforeAll(async () => {
    revoked = (await createToken({ name: 'to-revoke' })).token;
    const revokedId = (await t.call('GET', 'tokens', { token: ownerToken })).body.find((row: { name: string }) => row.name === 'to-revoke').id;
    expect((await t.call('GET', 'auth/me', { token: revoked })).status).toBe(200);
    expect((await t.call('PATCH', `tokens/${revokedId}`, { token: ownerToken, body: { enabled: false } })).status).toBe(200);

    const toDelete = await createToken({ name: 'to-delete' });
    deleted = toDelete.token;
    expect((await t.call('DELETE', `tokens/${toDelete.id}`, { token: ownerToken })).status).toBe(200);

    // A token whose user is then deleted must stop working with the user.
    const userId = randomUUID();
    await t.query(
      `insert into users (id, username, password_hash, role, created_at, updated_at) values ($1, 'leaver', $2, 'admin', now(), now())`,
      [userId, await hashPassword('leaver-password')],
    );
    const session = await t.call('POST', 'auth/login', { body: { username: 'leaver', password: 'leaver-password' } });
    orphaned = (await createToken({ name: 'leaver-token' }, session.body.token)).token;
    expect((await t.call('GET', 'auth/me', { token: orphaned })).status).toBe(200);
    await t.query('delete from users where id = $1', [userId]);
  });

  const credentials: [string, () => Record<string, string>][] = [
    ['no credentials', () => ({})],
    ['a disabled token', () => ({ authorization: `Bearer ${revoked}` })],
    ['a deleted token', () => ({ authorization: `Bearer ${deleted}` })],
    ['a token of a deleted user', () => ({ authorization: `Bearer ${orphaned}` })],
    ['a malformed token', () => ({ authorization: 'Bearer wrn_not-a-real-token' })],
    ['a made-up session cookie', () => ({ cookie: 'warren_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' })],
  ];

  test.each(credentials)('with %s: 401 and {error, field}, nothing changed', async (_, headers) => {
    const private_ = endpoints.filter((endpoint) => endpoint.auth);
    expect(private_.length).toBeGreaterThan(5);
    const tokensBefore = await t.query('select id, name, enabled from api_tokens order by id');
    for (const endpoint of private_) {
      const response = await t.call(endpoint.method, concrete(endpoint.path), {
        headers: headers(),
        body: endpoint.example ?? undefined,
      });
      expect({ route: `${endpoint.method} ${endpoint.path}`, status: response.status }).toEqual({
        route: `${endpoint.method} ${endpoint.path}`,
        status: 401,
      });
      expect(Object.keys(response.body).sort()).toEqual(['error', 'field']);
      expect(response.body.field).toBe('');
    }
    expect(await t.query('select id, name, enabled from api_tokens order by id')).toEqual(tokensBefore);
  });

  test('public routes answer without credentials', async () => {
    expect((await t.call('GET', 'health')).status).toBe(200);
    expect((await t.call('POST', 'auth/login', { body: {} })).status).toBe(400);
    expect((await t.call('POST', 'agent/enrol', { body: {} })).status).toBe(400);
  });
});
