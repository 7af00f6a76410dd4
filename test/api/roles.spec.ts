import { randomUUID } from 'node:crypto';
import { USER_ROLES } from '#libs/contracts/user-roles.js';
import { answer, fixtures, type TestUser } from '../support/fixtures.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';
import { refusal } from '../support/refusal.js';

interface Endpoint {
  method: string;
  path: string;
  auth: boolean;
  roles: string[];
  example: unknown;
}

let t: TestPanel;
let ownerToken: string;
let endpoints: Endpoint[];
let admin: TestUser;
let viewer: TestUser;

const { createToken, createUser, createInterface, count } = fixtures(() => ({ t, token: ownerToken }));

beforeAll(async () => {
  t = await startTestPanel();
  ownerToken = await t.login();
  admin = await createUser('admin');
  viewer = await createUser('viewer');
  const docs = await t.call('GET', 'docs', { token: viewer.token });
  expect(docs.status).toBe(200);
  endpoints = docs.body.groups.flatMap((group: { endpoints: Endpoint[] }) => group.endpoints);
});
afterAll(async () => {
  await t?.stop();
});

/** The served path with made-up ids, relative to /api. */
const concrete = (path: string) => path.replace(/^\/api\//, '').replace(/\{[^}]+\}/g, randomUUID());

describe('the route table names the roles of every route', () => {
  test('every private route lists at least one known role; public routes none', () => {
    for (const endpoint of endpoints) {
      const route = `${endpoint.method} ${endpoint.path}`;
      if (endpoint.auth) expect({ route, roles: endpoint.roles.length > 0 }).toEqual({ route, roles: true });
      else expect({ route, roles: endpoint.roles }).toEqual({ route, roles: [] });
      for (const role of endpoint.roles) expect(USER_ROLES).toContain(role);
    }
  });

  test('the OpenAPI document carries the same roles as x-roles on each operation, and says them in its description', async () => {
    const openapi = await t.call('GET', 'openapi.json', { token: viewer.token });
    for (const endpoint of endpoints) {
      const operation = openapi.body.paths[endpoint.path][endpoint.method.toLowerCase()];
      expect({ route: `${endpoint.method} ${endpoint.path}`, roles: operation['x-roles'] }).toEqual({
        route: `${endpoint.method} ${endpoint.path}`,
        roles: endpoint.roles,
      });
      expect(operation.description).toContain(endpoint.auth ? `Roles: ${endpoint.roles.join(', ')}` : 'Public');
    }
  });
});

describe('the guard enforces the route table', () => {
  test.each(['viewer', 'admin'] as const)(
    'a %s (session and API token alike) gets 403 {error, field} exactly on the routes not granted to it, changing nothing',
    async (role) => {
      const user = role === 'viewer' ? viewer : admin;
      const apiToken = (await createToken({ name: `${role}-token` }, user.token)).token;
      const tables = ['nodes', 'interfaces', 'hosts', 'clients', 'devices', 'api_tokens', 'sessions'];
      const before = await Promise.all(tables.map(count));
      for (const token of [user.token, apiToken]) {
        for (const endpoint of endpoints.filter((entry) => entry.auth && !entry.roles.includes(role))) {
          // The logout and password routes are granted to every role, so none of these ends the session.
          const response = await t.call(endpoint.method, concrete(endpoint.path), {
            token,
            body: endpoint.example ?? undefined,
          });
          const route = `${endpoint.method} ${endpoint.path}`;
          expect({ route, status: response.status, body: response.body }).toEqual({
            route,
            status: 403,
            body: { error: `the ${role} role may not call this route`, field: '' },
          });
        }
      }
      expect(await Promise.all(tables.map(count))).toEqual(before);
    },
  );

  test('routes granted to a role answer it: a viewer reads, an admin changes', async () => {
    const iface = await createInterface();
    expect((await answer(t.client(viewer.token).GET('/api/interfaces'))).status).toBe(200);
    expect((await answer(t.client(viewer.token).GET('/api/clients'))).status).toBe(200);
    const created = await answer(
      t.client(admin.token).POST('/api/clients', { body: { name: 'by-admin', interfaceIds: [iface.id] } }),
    );
    expect(created.status).toBe(201);
    expect(
      (
        await answer(
          t.client(admin.token).GET('/api/clients/{id}/configs', { params: { path: { id: created.body.id } } }),
        )
      ).status,
    ).toBe(200);
    // A viewer sees the client but not its private keys.
    expect(
      (await answer(t.client(viewer.token).GET('/api/clients/{id}', { params: { path: { id: created.body.id } } })))
        .status,
    ).toBe(200);
    const configs = await t.call('GET', `clients/${created.body.id}/configs`, { token: viewer.token });
    expect([configs.status, configs.body.field]).toEqual([403, '']);
  });
});

describe('API tokens belong to their user; only the owner reaches other users’ tokens', () => {
  test('a non-owner lists only their own tokens and cannot change or delete the owner’s (404, unchanged)', async () => {
    const ownersToken = await createToken({ name: 'owners' });
    const adminsToken = await createToken({ name: 'admins' }, admin.token);

    const listed = await answer(t.client(admin.token).GET('/api/tokens'));
    expect(listed.status).toBe(200);
    expect(listed.body.map((token) => token.owner)).toEqual(listed.body.map(() => admin.username));
    expect(listed.body.map((token) => token.id)).toContain(adminsToken.id);

    for (const [method, body] of [
      ['PATCH', { enabled: false }],
      ['DELETE', undefined],
    ] as const) {
      const refused = await t.call(method, `tokens/${ownersToken.id}`, { token: admin.token, body });
      expect([refused.status, refused.body]).toEqual([404, refusal('id', 'token not found')]);
    }
    expect((await t.call('GET', 'auth/me', { token: ownersToken.token })).status).toBe(200);
    expect(await t.query('select enabled from api_tokens where id = $1', [ownersToken.id])).toEqual([
      { enabled: true },
    ]);
  });

  test('the owner lists every user’s tokens and can disable another user’s', async () => {
    const viewersToken = await createToken({ name: 'viewers' }, viewer.token);
    const listed = await answer(t.client(ownerToken).GET('/api/tokens'));
    expect(listed.body.find((token) => token.id === viewersToken.id)).toMatchObject({ owner: viewer.username });
    const disabled = await answer(
      t
        .client(ownerToken)
        .PATCH('/api/tokens/{id}', { params: { path: { id: viewersToken.id } }, body: { enabled: false } }),
    );
    expect(disabled.status).toBe(200);
    expect((await t.call('GET', 'auth/me', { token: viewersToken.token })).status).toBe(401);
  });

  test('an API token acts with its user’s role', async () => {
    const viewersToken = await createToken({ name: 'viewer-acts' }, viewer.token);
    const me = await answer(t.client(viewersToken.token).GET('/api/auth/me'));
    expect(me.body).toMatchObject({ user: { role: 'viewer' }, via: 'token' });
    const refused = await t.call('POST', 'nodes', {
      token: viewersToken.token,
      body: { name: 'nope', address: '192.0.2.1' },
    });
    expect(refused.status).toBe(403);
  });
});
