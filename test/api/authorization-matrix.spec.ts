import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { READ_ONLY_METHODS, type RouteGroup } from '#libs/contracts/route-groups.js';
import { USER_ROLES, type UserRole } from '#libs/contracts/user-roles.js';
import { RouteTableService, type RouteEntry } from '../../apps/controller/src/docs/route-table.service.js';
import { enrol } from '../support/agent-link-client.js';
import { openDatabaseFingerprint, type DatabaseFingerprint } from '../support/database-fingerprint.js';
import { fixtures } from '../support/fixtures.js';
import { isRefusal } from '../support/refusal.js';
import { concretePath, routeKey } from '../support/route-catalogue.js';
import { OWNER, startTestPanel, type TestPanel } from '../support/test-panel.js';

/**
 * The authorization matrix: every route of the route table called with every kind of credential.
 * What each cell must be is derived here, not taken from the panel's answers: from the roles each
 * route declares (its `@Route`, read from the route table: roles, method, group) and from what
 * this file states each credential is (`is`: the role it signs in as, or `unknown` for one the
 * panel must not know; `scope`: what a scoped API token was issued with).
 *
 * A cell: `401` (who are you?), `403` (not allowed), `ok` (past the guard: whatever the route
 * answers to a random id and its example body, as long as it is neither 401 nor 403, nor a 5xx),
 * or `public` (a public route: the credential changes nothing, the answer is the one without
 * credentials, and no 5xx). A refused request (401 or 403) answers `{error, field, errors?}` and changes no
 * row. Every run writes authorization-matrix.md, the report of the check, for a reviewer to read;
 * a cell the panel did not honour shows there as `got (expected want)`.
 */

const MATRIX_FILE = new URL('./authorization-matrix.md', import.meta.url);
const VOLATILE = [
  'system_samples',
  'login_throttles',
  'sessions',
  'api_tokens.last_used_at',
  'nodes.delivered_revision',
  'nodes.applied_revision',
];

interface Credential {
  column: string;
  /** What the credential is: a signed-in user of this role, or one the panel must not know. */
  is: UserRole | 'unknown';
  /** Its user still has a temporary password to change: only `beforePasswordChange` routes let it through. */
  temporary?: boolean;
  /** An API token narrower than its user (docs/roles.md, "Scoped tokens"), as the test issued it. */
  scope?: { readOnly?: boolean; routeGroups?: RouteGroup[] };
  /** An API token of a known user: refused on the routes declared `sessionOnly`. */
  token?: true;
  headers(method: string): Promise<Record<string, string>>;
}

let t: TestPanel;
let ownerToken: string;
let routes: readonly RouteEntry[];
let fingerprint: DatabaseFingerprint;
const credentials: Credential[] = [];

const f = fixtures(() => ({ t, token: ownerToken }));

async function signIn(username: string, password: string): Promise<string> {
  const response = await t.call('POST', 'auth/login', { body: { username, password } });
  if (response.status !== 200)
    throw new Error(`sign-in of ${username}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.token;
}

/**
 * A session cookie as a browser on the panel's own page sends it. It signs in again when the
 * session ended (a route such as logout ends the session it was called with).
 */
function sessionOf(user: { username: string; password: string }): Credential['headers'] {
  let session: string | undefined;
  return async (method) => {
    if (
      !session ||
      (await t.call('GET', 'auth/me', { headers: { cookie: `warren_session=${session}` } })).status !== 200
    ) {
      session = await signIn(user.username, user.password);
    }
    const browser: Record<string, string> =
      method === 'GET' ? {} : { origin: t.panel.origin, 'sec-fetch-site': 'same-origin' };
    return { cookie: `warren_session=${session}`, ...browser };
  };
}

beforeAll(async () => {
  t = await startTestPanel();
  ownerToken = await t.login();
  // No agent answers probes here: POST /api/outbounds/check waits out every hop's probe timeout
  // (the hop the example body of POST /api/outbounds makes), once per credential let through.
  const probes = await t.call('PATCH', 'settings', { token: ownerToken, body: { probeTimeoutMs: 500 } });
  expect(probes.status).toBe(200);
  // The declaration, not an answer: the route table the @Route decorators made.
  routes = t.panel.app.get(RouteTableService).all();
  fingerprint = await openDatabaseFingerprint(t, VOLATILE);
  const bearer = (token: string) => async () => ({ authorization: `Bearer ${token}` });

  const disabled = await f.createToken({ name: 'disabled' });
  expect((await t.call('PATCH', `tokens/${disabled.id}`, { token: ownerToken, body: { enabled: false } })).status).toBe(
    200,
  );
  const deleted = await f.createToken({ name: 'deleted' });
  expect((await t.call('DELETE', `tokens/${deleted.id}`, { token: ownerToken })).status).toBe(200);
  const expired = await signIn(OWNER.username, OWNER.password);
  await t.query(
    `update sessions set expires_at = now() - interval '1 second' where created_at = (select max(created_at) from sessions)`,
  );
  expect((await t.call('GET', 'auth/me', { token: expired })).status).toBe(401);
  const leaver = await f.createUser('admin');
  const orphaned = await f.createToken({ name: 'orphaned' }, leaver.token);
  await t.query('delete from users where id = $1', [leaver.id]);

  // A disabled user's session and token (PATCH /api/admins/{id} {"enabled": false}).
  const disabledUser = await f.createUser('admin');
  const disabledUsersToken = await f.createToken({ name: 'of-a-disabled-user' }, disabledUser.token);
  const disabling = await t.call('PATCH', `admins/${disabledUser.id}`, { token: ownerToken, body: { enabled: false } });
  expect(disabling.status).toBe(200);
  // A user with a temporary password the owner set, not changed yet; their token was issued before.
  const temporaryUser = await f.createUser('viewer');
  const temporaryUsersToken = await f.createToken({ name: 'of-a-temporary-password' }, temporaryUser.token);
  const temporaryPassword = 'temporary-matrix-password';
  expect(
    (await t.call('PATCH', `admins/${temporaryUser.id}`, { token: ownerToken, body: { password: temporaryPassword } }))
      .status,
  ).toBe(200);

  // A signed-out session, and an agent's credential (a node's, for the agent link only).
  const signedOut = await signIn(OWNER.username, OWNER.password);
  expect((await t.call('POST', 'auth/logout', { token: signedOut })).status).toBe(200);
  const node = await f.createNode();
  const agent = await enrol(t, node.enrolment!.secret);

  credentials.push(
    { column: 'none', is: 'unknown', headers: async () => ({}) },
    { column: 'made-up token', is: 'unknown', headers: async () => ({ authorization: 'Bearer wrn_not-a-real-token' }) },
    {
      column: 'made-up cookie',
      is: 'unknown',
      headers: async () => ({ cookie: `warren_session=${'A'.repeat(43)}` }),
    },
    { column: 'disabled token', is: 'unknown', headers: bearer(disabled.token) },
    { column: 'deleted token', is: 'unknown', headers: bearer(deleted.token) },
    { column: 'token of a deleted user', is: 'unknown', headers: bearer(orphaned.token) },
    { column: 'expired session', is: 'unknown', headers: async () => ({ cookie: `warren_session=${expired}` }) },
    { column: 'signed-out session', is: 'unknown', headers: async () => ({ cookie: `warren_session=${signedOut}` }) },
    { column: 'agent credential', is: 'unknown', headers: bearer(agent.credential) },
    { column: 'disabled user token', is: 'unknown', headers: bearer(disabledUsersToken.token) },
    {
      column: 'disabled user session',
      is: 'unknown',
      headers: async () => ({ cookie: `warren_session=${disabledUser.token}` }),
    },
    {
      column: 'temporary-password token',
      is: 'viewer',
      temporary: true,
      token: true,
      headers: bearer(temporaryUsersToken.token),
    },
    {
      column: 'temporary-password session',
      is: 'viewer',
      temporary: true,
      headers: sessionOf({ username: temporaryUser.username, password: temporaryPassword }),
    },
  );
  // Every role the panel knows (libs/contracts/user-roles.ts): a role added there gets its columns here.
  for (const role of USER_ROLES) {
    const user = role === 'owner' ? { ...OWNER, token: ownerToken } : await f.createUser(role);
    const token = (await f.createToken({ name: `${role}-token` }, user.token)).token;
    credentials.push(
      { column: `${role} token`, is: role, token: true, headers: bearer(token) },
      { column: `${role} session`, is: role, headers: sessionOf(user) },
    );
  }
  // Scoped tokens: the cells follow from the role, the route's method and group, and the scope.
  const readOnly = { readOnly: true };
  const clientsOnly: { routeGroups: RouteGroup[] } = { routeGroups: ['clients', 'devices'] };
  const scopedAdmin = await f.createUser('admin');
  const scopedReseller = await f.createUser('reseller');
  const expiring = await f.createToken({ name: 'expiring', expiresAt: new Date(Date.now() + 3600_000).toISOString() });
  await t.query(`update api_tokens set expires_at = now() - interval '1 second' where id = $1`, [expiring.id]);
  credentials.push(
    { column: 'expired token', is: 'unknown', headers: bearer(expiring.token) },
    {
      column: 'owner read-only token',
      is: 'owner',
      scope: readOnly,
      token: true,
      headers: bearer((await f.createToken({ name: 'owner-read-only', ...readOnly })).token),
    },
    {
      column: 'reseller read-only token',
      is: 'reseller',
      scope: readOnly,
      headers: bearer((await f.createToken({ name: 'reseller-read-only', ...readOnly }, scopedReseller.token)).token),
    },
    {
      column: 'admin token for clients, devices',
      is: 'admin',
      scope: clientsOnly,
      token: true,
      headers: bearer((await f.createToken({ name: 'admin-clients', ...clientsOnly }, scopedAdmin.token)).token),
    },
  );
}, 60_000);

afterAll(async () => {
  await fingerprint?.close();
  await t?.stop();
});

const routeKeyOf = (route: RouteEntry) => routeKey({ method: route.method, path: route.fullPath });

/** What the cell must be: from the route's declared roles and group, and what the credential is (role and scope). */
/**
 * Public to the route table, yet opened by a node credential checked in its handler: the package
 * an updating agent downloads (401 without one, 200 with it).
 */
const AGENT_ONLY = 'GET /api/agent/update/package.tgz';

function expectedCell(route: RouteEntry, credential: Credential): string {
  if (routeKeyOf(route) === AGENT_ONLY && credential.column === 'agent credential')
    return '200 (not 401 as without credentials)';
  if (route.public) return 'public';
  if (credential.is === 'unknown') return '401';
  if (!route.roles.includes(credential.is)) return '403';
  if (credential.token && route.sessionOnly) return '403';
  if (credential.temporary && !route.beforePasswordChange) return '403';
  if (credential.scope?.readOnly && !READ_ONLY_METHODS.includes(route.method)) return '403';
  if (credential.scope?.routeGroups && !credential.scope.routeGroups.includes(route.group)) return '403';
  return 'ok';
}

/**
 * What the panel's answer makes of the cell; `none` is the same route's answer without credentials.
 * A 403 naming a field is the route's own rule past the guard (PATCH /api/settings: fields only
 * the owner may change), so `ok`; the guard's refusal names none.
 */
function actualCell(route: RouteEntry, answer: { status: number; body: unknown }, none: number): string {
  const { status } = answer;
  if (status >= 500) return `${status}!`;
  if (route.public) return status === none ? 'public' : `${status} (not ${none} as without credentials)`;
  const field = (answer.body as { field?: unknown } | null)?.field;
  // The guard's refusal of a temporary password still to change names `mustChangePassword`.
  if (status === 403 && typeof field === 'string' && field !== '' && field !== 'mustChangePassword') return 'ok';
  return status === 401 || status === 403 ? String(status) : 'ok';
}

const REPORT_INTRO = `# Authorization matrix

Who may call what: every route of the route table against every kind of credential, as
\`test/api/authorization-matrix.spec.ts\` checks it on every run, which writes this file. The
expected cells come from each route's declared roles (its \`@Route\`) and from what the test
states each credential is; the panel's answers are compared with them. A cell the panel did not
honour reads \`got (expected want)\` and fails the test.

Cells: \`401\` the caller is not known (no credential, a made-up, disabled or deleted one, an
expired or signed-out session, an expired token, a token whose user is gone, a disabled user's
token or session, an agent's credential, which is for the agent link only); \`403\` known but not
allowed (by role; the temporary-password columns: every route but the few declared
\`beforePasswordChange\`; every API token on the routes declared \`sessionOnly\`, which change how one
signs in; or by a scoped token's scope: a read-only token on a route that is not
GET, a token limited to route groups on a route of another group); \`ok\` past the guard (the route
then answers whatever it answers to a random id and its example body, never 401, a 5xx or a 403 but
one its own rules give about a field: \`PATCH /api/settings\` refuses owner-only fields to an
admin); \`public\` a
public route (the credential changes nothing: the same answer as without one, never a 5xx).
Session columns send the cookie as the panel's own page does (with \`Origin\` and
\`Sec-Fetch-Site: same-origin\` on unsafe methods).`;

function writeReport(rows: { route: string; cells: { actual: string; expected: string }[] }[]): void {
  const columns = credentials.map((credential) => credential.column);
  const lines = rows.map(
    ({ route, cells }) =>
      `| \`${route}\` | ${cells
        .map(({ actual, expected }) => (actual === expected ? actual : `${actual} (expected ${expected})`))
        .join(' | ')} |`,
  );
  writeFileSync(
    MATRIX_FILE,
    `${REPORT_INTRO}\n\n| route | ${columns.join(' | ')} |\n| --- | ${columns.map(() => '---').join(' | ')} |\n${lines.join('\n')}\n`,
  );
}

test('every route with every credential answers as its declared roles and the credential say', async () => {
  const rows: { route: string; cells: { actual: string; expected: string }[] }[] = [];
  const refusals: string[] = [];
  const sorted = [...routes].sort((a, b) => routeKeyOf(a).localeCompare(routeKeyOf(b)));
  for (const route of sorted) {
    const cells: { actual: string; expected: string }[] = [];
    let none = 0;
    for (const credential of credentials) {
      // Sign-in failures of earlier columns must not decide this one's answer (the throttle).
      if (route.public) await t.query('delete from login_throttles');
      const before = await fingerprint.read();
      const path = concretePath(route.fullPath, () => randomUUID());
      const answer = await t.call(route.method, path, {
        headers: await credential.headers(route.method),
        body: route.example ?? undefined,
      });
      if (credential.column === 'none') none = answer.status;
      cells.push({ actual: actualCell(route, answer, none), expected: expectedCell(route, credential) });
      if (!route.public && (answer.status === 401 || answer.status === 403)) {
        const where = `${routeKeyOf(route)} with ${credential.column}`;
        if (!isRefusal(answer.body)) refusals.push(`${where}: body ${JSON.stringify(answer.body)}`);
        const after = await fingerprint.read();
        const changed = Object.keys(after).filter((table) => after[table] !== before[table]);
        if (changed.length > 0) refusals.push(`${where}: changed ${changed.join(', ')}`);
      }
    }
    rows.push({ route: routeKeyOf(route), cells });
  }
  writeReport(rows);
  const mismatches = rows.flatMap(({ route, cells }) =>
    cells
      .map((cell, i) => ({ route, credential: credentials[i].column, ...cell }))
      .filter((cell) => cell.actual !== cell.expected),
  );
  expect(mismatches).toEqual([]);
  expect(refusals).toEqual([]);
  // Every route of the table was called, and the table is the one GET /api/docs lists.
  // A fresh session: DELETE /api/auth/sessions through the owner's token ended every owner session.
  const docs = await t.call('GET', 'docs', { token: await t.login() });
  const listed = docs.body.groups.flatMap((group: { endpoints: { method: string; path: string }[] }) =>
    group.endpoints.map(routeKey),
  );
  expect(rows.map((row) => row.route)).toEqual([...listed].sort((a: string, b: string) => a.localeCompare(b)));
}, 300_000);
