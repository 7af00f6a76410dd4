import { readEndpoints, routeKey, type Endpoint } from '../support/route-catalogue.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';

let t: TestPanel;
let endpoints: Endpoint[];
let ownerToken: string;

beforeAll(async () => {
  t = await startTestPanel();
  ownerToken = await t.login();
  endpoints = await readEndpoints(t, ownerToken);
});
afterAll(async () => {
  await t?.stop();
});

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

  test("only login, health, agent enrolment, what a new agent host downloads (the installer, the agent's package), the package an updating agent downloads (its node credential, checked by the handler) and what the sign-in page reads (meta, messages) are public", () => {
    const publicRoutes = endpoints
      .filter((endpoint) => !endpoint.auth)
      .map((endpoint) => `${endpoint.method} ${endpoint.path}`);
    expect(publicRoutes.sort()).toEqual([
      'GET /api/agent/install.sh',
      'GET /api/agent/package.tgz',
      'GET /api/agent/update/package.tgz',
      'GET /api/health',
      'GET /api/health/ready',
      'GET /api/i18n/{locale}',
      'GET /api/meta',
      'POST /api/agent/enrol',
      'POST /api/auth/login',
    ]);
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

  test('GET /api/docs describes exactly the query parameters the OpenAPI document declares', async () => {
    const docs = await t.call('GET', 'docs', { token: ownerToken });
    const described = new Map<string, string[]>(
      docs.body.groups.flatMap(
        (group: { endpoints: { method: string; path: string; query: Record<string, string> }[] }) =>
          group.endpoints.map((endpoint) => [routeKey(endpoint), Object.keys(endpoint.query).sort()]),
      ),
    );
    for (const endpoint of endpoints)
      expect([routeKey(endpoint), described.get(routeKey(endpoint))]).toEqual([
        routeKey(endpoint),
        endpoint.query.map((parameter) => parameter.name).sort(),
      ]);
  });
});

// Every credential against every route (no credentials, made-up, disabled, deleted, orphaned,
// expired; each role's token and session): authorization-matrix.spec.ts and its table.
describe('public routes', () => {
  test('public routes answer without credentials', async () => {
    expect((await t.call('GET', 'health')).status).toBe(200);
    expect((await t.call('POST', 'auth/login', { body: {} })).status).toBe(400);
    expect((await t.call('POST', 'agent/enrol', { body: {} })).status).toBe(400);
  });
});
