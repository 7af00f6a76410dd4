import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { USER_ROLES } from '#libs/contracts/user-roles.js';
import { openDatabaseFingerprint, type DatabaseFingerprint } from '../support/database-fingerprint.js';
import { fixtures } from '../support/fixtures.js';
import { concretePath, readEndpoints, routeKey, type Endpoint } from '../support/route-catalogue.js';
import { OWNER, startTestPanel, type TestPanel } from '../support/test-panel.js';

/**
 * The authorization matrix: every route of the route table (read from the panel, so a new route
 * appears here the day it is added) called with every kind of credential, compared with the
 * table kept in authorization-matrix.md, which a reviewer reads. A cell says what must come:
 * `401` (who are you?), `403` (not allowed), `ok` (past the guard: whatever the route answers to
 * a random id and its example body, as long as it is neither 401 nor 403, nor a 5xx), or `public`
 * (a public route: its own rules decide, only no 5xx).
 *
 * A refused request (401 or 403) answers `{error, field}` and changes no row.
 * UPDATE_MATRIX=1 rewrites the file from what the panel does (then read the diff).
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
  headers(method: string): Promise<Record<string, string>>;
}

let t: TestPanel;
let ownerToken: string;
let endpoints: Endpoint[];
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
  endpoints = await readEndpoints(t, ownerToken);
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

  credentials.push(
    { column: 'none', headers: async () => ({}) },
    { column: 'made-up token', headers: async () => ({ authorization: 'Bearer wrn_not-a-real-token' }) },
    { column: 'made-up cookie', headers: async () => ({ cookie: `warren_session=${'A'.repeat(43)}` }) },
    { column: 'disabled token', headers: bearer(disabled.token) },
    { column: 'deleted token', headers: bearer(deleted.token) },
    { column: 'token of a deleted user', headers: bearer(orphaned.token) },
    { column: 'expired session', headers: async () => ({ cookie: `warren_session=${expired}` }) },
  );
  // Every role the panel knows (libs/contracts/user-roles.ts): a role added there gets its columns here.
  for (const role of USER_ROLES) {
    const user = role === 'owner' ? { ...OWNER, token: ownerToken } : await f.createUser(role);
    const token = (await f.createToken({ name: `${role}-token` }, user.token)).token;
    credentials.push(
      { column: `${role} token`, headers: bearer(token) },
      { column: `${role} session`, headers: sessionOf(user) },
    );
  }
}, 60_000);

afterAll(async () => {
  await fingerprint?.close();
  await t?.stop();
});

/** The matrix file's table: route key → column → cell. */
function readMatrix(): Map<string, Map<string, string>> {
  const lines = readFileSync(MATRIX_FILE, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('| '));
  const [header, , ...rows] = lines.map((line) =>
    line
      .slice(2, -2)
      .split(' | ')
      .map((cell) => cell.trim()),
  );
  return new Map(
    rows.map((row) => [row[0].replace(/`/g, ''), new Map(header.slice(1).map((column, i) => [column, row[i + 1]]))]),
  );
}

function writeMatrix(actual: Map<string, Map<string, string>>): void {
  const columns = credentials.map((credential) => credential.column);
  const intro = readFileSync(MATRIX_FILE, 'utf8').split('\n| ')[0].trimEnd();
  const rows = [...actual].map(
    ([route, cells]) => `| \`${route}\` | ${columns.map((column) => cells.get(column)).join(' | ')} |`,
  );
  writeFileSync(
    MATRIX_FILE,
    `${intro}\n\n| route | ${columns.join(' | ')} |\n| --- | ${columns.map(() => '---').join(' | ')} |\n${rows.join('\n')}\n`,
  );
}

function cell(endpoint: Endpoint, status: number): string {
  if (status >= 500) return `${status}!`;
  if (!endpoint.auth) return 'public';
  return status === 401 || status === 403 ? String(status) : 'ok';
}

test('every route with every credential answers as the matrix says', async () => {
  const actual = new Map<string, Map<string, string>>();
  const refusals: string[] = [];
  for (const endpoint of endpoints) {
    const cells = new Map<string, string>();
    // A public route is called once, without credentials: its own rules decide (and calling login
    // with a wrong example password per column would only feed the sign-in throttle).
    for (const credential of endpoint.auth ? credentials : credentials.slice(0, 1)) {
      const before = await fingerprint.read();
      const path = concretePath(endpoint.path, () => randomUUID());
      const answer = await t.call(endpoint.method, path, {
        headers: await credential.headers(endpoint.method),
        body: endpoint.example ?? undefined,
      });
      cells.set(credential.column, cell(endpoint, answer.status));
      if (endpoint.auth && (answer.status === 401 || answer.status === 403)) {
        const where = `${routeKey(endpoint)} with ${credential.column}`;
        if (
          Object.keys(answer.body ?? {})
            .sort()
            .join() !== 'error,field'
        )
          refusals.push(`${where}: body ${JSON.stringify(answer.body)}`);
        const after = await fingerprint.read();
        const changed = Object.keys(after).filter((table) => after[table] !== before[table]);
        if (changed.length > 0) refusals.push(`${where}: changed ${changed.join(', ')}`);
      }
    }
    if (!endpoint.auth)
      for (const { column } of credentials)
        cells.set(column, cells.get('none') === 'public' ? 'public' : cells.get('none')!);
    actual.set(routeKey(endpoint), cells);
  }
  if (process.env.UPDATE_MATRIX) writeMatrix(actual);
  const expected = readMatrix();
  const table = (matrix: Map<string, Map<string, string>>) =>
    Object.fromEntries(
      [...matrix]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([route, cells]) => [
          route,
          Object.fromEntries(credentials.map(({ column }) => [column, cells.get(column)])),
        ]),
    );
  expect(table(actual)).toEqual(table(expected));
  expect(refusals).toEqual([]);
}, 300_000);
