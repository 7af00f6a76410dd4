import { randomUUID } from 'node:crypto';
import { userInfo } from 'node:os';
import { SystemHistoryMaintenance } from '../../apps/controller/src/system/history-maintenance.service.js';
import { fixtures, type TestUser } from '../support/fixtures.js';
import { concretePath, readEndpoints, routeKey, type Endpoint } from '../support/route-catalogue.js';
import { CLI_MAIN, runToEnd } from '../support/spawned-process.js';
import { OWNER, startTestPanel, type TestPanel } from '../support/test-panel.js';
import { waitFor } from '../support/wait-for.js';

/**
 * The audit log (docs/audit.md): every route that changes state writes exactly one entry per
 * request that passes the guard (its outcome says whether the change happened), reads and
 * requests the guard refuses write none; what an entry says (who, what, old → new, secrets as
 * changed, from where, outcome); GET /api/logs with its filters and cursor; retention and the
 * settling of abandoned entries; backups and restores; the command line.
 */

let t: TestPanel;
let ownerToken: string;
/** An API token of the owner's: entries made with it name it. */
let ownerApiToken: { id: string; name: string; token: string };
let viewer: TestUser;
let admin: TestUser;
let interfaceIds: string[];

const f = fixtures(() => ({ t, token: ownerToken }));

interface EntryRow {
  id: string;
  actor_id: string | null;
  actor_name: string | null;
  actor_role: string | null;
  via: string;
  credential_id: string | null;
  credential_name: string | null;
  action: string;
  method: string;
  route: string;
  target_type: string | null;
  target_id: string | null;
  target_name: string | null;
  changes: { field: string; old?: unknown; new?: unknown; secret?: true }[];
  outcome: string;
  status: number | null;
  error: string | null;
  error_code: string | null;
  address: string | null;
  user_agent: string | null;
  request_id: string | null;
  finished_at: Date | null;
}

const entriesOf = (requestId: string) =>
  t.query<EntryRow>('select * from audit_entries where request_id = $1', [requestId]);

/** One request with its own X-Request-Id; the entries it wrote. */
async function recorded(
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const requestId = `audit-${randomUUID()}`;
  const answer = await t.call(method, path, { ...options, headers: { ...options.headers, 'x-request-id': requestId } });
  return { answer, entries: await entriesOf(requestId) };
}

beforeAll(async () => {
  t = await startTestPanel();
  ownerToken = await t.login();
  const issued = await f.createToken({ name: 'audit-owner-token' });
  ownerApiToken = { id: issued.id, name: 'audit-owner-token', token: issued.token };
  viewer = await f.createUser('viewer');
  admin = await f.createUser('admin');
  interfaceIds = [(await f.createInterface()).id];
}, 60_000);
afterAll(async () => {
  await t?.stop();
});

describe('the route table', () => {
  let endpoints: Endpoint[];
  beforeAll(async () => {
    endpoints = await readEndpoints(t, ownerToken);
  });

  test('every route that changes state writes exactly one entry per request past the guard; reads write none', async () => {
    const wrong: string[] = [];
    let changing = 0;
    for (const endpoint of endpoints) {
      const key = routeKey(endpoint);
      // A fresh session for sign-out (it ends the session it is called with); a session for the
      // routes that change how one signs in (tokens are refused there); the owner's token else.
      const sessionOnly = endpoint.operation['x-session-only'] === true;
      const token = endpoint.path.endsWith('/auth/logout')
        ? await t.login()
        : sessionOnly
          ? ownerToken
          : ownerApiToken.token;
      const path = concretePath(endpoint.path, () => randomUUID());
      const upload = endpoint.path.endsWith('/backups/upload');
      const { answer, entries } = await recorded(endpoint.method, path, {
        token: endpoint.auth ? token : undefined,
        // The upload takes a raw archive: a few bytes that are not one (refused as such, past the guard).
        ...(upload
          ? { body: 'not an archive', headers: { 'content-type': 'application/gzip' } }
          : { body: endpoint.example ?? undefined }),
      });
      if (answer.status >= 500) wrong.push(`${key}: answered ${answer.status}`);
      if (endpoint.method === 'GET' || endpoint.operation['x-changes-nothing'] === true) {
        if (entries.length !== 0) wrong.push(`${key}: a read wrote ${entries.length} entries`);
        continue;
      }
      changing += 1;
      if (entries.length !== 1) {
        wrong.push(`${key}: ${entries.length} entries (answered ${answer.status})`);
        continue;
      }
      const [entry] = entries;
      const outcome =
        answer.status === 202
          ? 'accepted'
          : answer.status < 400
            ? 'success'
            : answer.status < 500
              ? 'refused'
              : 'failed';
      const expected = {
        route: endpoint.path,
        method: endpoint.method,
        outcome,
        status: answer.status,
        finished: true,
      };
      const actual = {
        route: entry.route,
        method: entry.method,
        outcome: entry.outcome,
        status: entry.status,
        finished: entry.finished_at !== null,
      };
      if (JSON.stringify(actual) !== JSON.stringify(expected))
        wrong.push(`${key}: ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`);
      const credentialName = sessionOnly ? null : ownerApiToken.name;
      if (endpoint.auth && (entry.actor_name !== OWNER.username || entry.credential_name !== credentialName)) {
        if (!endpoint.path.endsWith('/auth/logout'))
          wrong.push(`${key}: actor ${entry.actor_name} via ${entry.credential_name}`);
      }
    }
    expect(wrong).toEqual([]);
    // The routes that change state are most of the table: the loop above did not skip them.
    expect(changing).toBeGreaterThan(30);
    // DELETE /api/auth/sessions through a token ended every session of the owner, the one the
    // later tests hold among them: a new one for them.
    ownerToken = await t.login();
  }, 300_000);

  test('a request the guard refuses (no credentials, or a role the route does not grant) writes nothing', async () => {
    const wrong: string[] = [];
    for (const endpoint of endpoints.filter((e) => e.method !== 'GET' && e.auth)) {
      const key = routeKey(endpoint);
      const path = concretePath(endpoint.path, () => randomUUID());
      const body = endpoint.example ?? undefined;
      const none = await recorded(endpoint.method, path, { body });
      if (none.answer.status !== 401 || none.entries.length !== 0)
        wrong.push(`${key} without credentials: ${none.answer.status}, ${none.entries.length} entries`);
      const roles = endpoint.operation['x-roles'] as string[];
      if (roles.includes('viewer')) continue;
      const refused = await recorded(endpoint.method, path, { token: viewer.token, body });
      if (refused.answer.status !== 403 || refused.entries.length !== 0)
        wrong.push(`${key} as a viewer: ${refused.answer.status}, ${refused.entries.length} entries`);
    }
    expect(wrong).toEqual([]);
  }, 300_000);
});

describe('what an entry says', () => {
  test('a change: who (user, role, token), what (action, target, old → new), from where, the outcome', async () => {
    const client = await f.createClient({ name: 'audit-alice', note: 'first note', quotaBytes: 1000, interfaceIds });
    const { answer, entries } = await recorded('PATCH', `clients/${client.id}`, {
      token: ownerApiToken.token,
      body: { name: 'audit-alice-2', note: 'first note', quotaBytes: 2000 },
      headers: { 'user-agent': 'audit-test/1.0' },
    });
    expect(answer.status).toBe(200);
    expect(entries).toHaveLength(1);
    const owner = (await t.call('GET', 'auth/me', { token: ownerToken })).body.user;
    expect(entries[0]).toMatchObject({
      actor_id: owner.id,
      actor_name: OWNER.username,
      actor_role: 'owner',
      via: 'token',
      credential_id: ownerApiToken.id,
      credential_name: ownerApiToken.name,
      action: 'clients.update',
      method: 'PATCH',
      route: '/api/clients/{id}',
      target_type: 'clients',
      target_id: client.id,
      target_name: 'audit-alice',
      outcome: 'success',
      status: 200,
      error: null,
      address: '127.0.0.1',
      user_agent: 'audit-test/1.0',
    });
    // The note did not change: only what did is listed.
    expect(entries[0].changes).toEqual([
      { field: 'name', old: 'audit-alice', new: 'audit-alice-2' },
      { field: 'quotaBytes', old: 1000, new: 2000 },
    ]);

    const created = await recorded('POST', 'clients', {
      token: ownerToken,
      body: { name: 'audit-bob', note: 'n', interfaceIds },
    });
    expect(created.entries[0]).toMatchObject({
      action: 'clients.create',
      via: 'session',
      credential_name: null,
      target_type: 'clients',
      target_id: created.answer.body.id,
      target_name: 'audit-bob',
      changes: [
        { field: 'interfaceIds', new: interfaceIds },
        { field: 'name', new: 'audit-bob' },
        { field: 'note', new: 'n' },
      ],
    });

    const removed = await recorded('DELETE', `clients/${client.id}`, { token: ownerToken });
    expect(removed.entries[0]).toMatchObject({ action: 'clients.delete', target_id: client.id, outcome: 'success' });
    expect(removed.entries[0].changes).toEqual(
      expect.arrayContaining([
        { field: 'name', old: 'audit-alice-2' },
        { field: 'quotaBytes', old: 2000 },
      ]),
    );
  });

  test('a refusal past the guard is recorded as refused, with what the caller was told', async () => {
    const { answer, entries } = await recorded('POST', 'clients', { token: ownerToken, body: { name: '' } });
    expect(answer.status).toBe(400);
    expect(entries[0]).toMatchObject({ action: 'clients.create', outcome: 'refused', status: 400 });
    expect(entries[0].error).toBe(answer.body.error);
    const unknown = randomUUID();
    const missing = await recorded('PATCH', `clients/${unknown}`, { token: ownerToken, body: { note: 'x' } });
    expect(missing.entries[0]).toMatchObject({ outcome: 'refused', status: 404, target_id: unknown });
  });

  test('a refusal keeps its stable code beside the sentence: the first field’s code, else one by status; the log returns it', async () => {
    const cases: [string, string, unknown, number, string][] = [
      // A field's own code, as the answer's errors[0].code gives it.
      ['POST', 'clients', { name: 'x'.repeat(300) }, 400, 'tooLong'],
      ['POST', 'clients', { name: 'coded', quotaBytes: -1, interfaceIds: [randomUUID()] }, 400, 'tooSmall'],
      // By status when no field's code says more.
      ['PATCH', `clients/${randomUUID()}`, { note: 'x' }, 404, 'notFound'],
    ];
    for (const [method, path, body, status, code] of cases) {
      const { answer, entries } = await recorded(method, path, { token: ownerToken, body });
      expect([path, answer.status]).toEqual([path, status]);
      expect([path, entries[0].error_code]).toEqual([path, code]);
      if (answer.body.errors) expect(answer.body.errors[0].code).toBe(code);
    }
    // Through the log's own route: the code beside the sentence; a success has none.
    const page = await t.call('GET', 'logs?outcome=refused&perPage=100', { token: ownerToken });
    const refused = (page.body.items as { errorCode: string | null; error: string | null }[]).filter(
      (item) => item.errorCode !== null,
    );
    expect(refused.map((item) => item.errorCode)).toEqual(expect.arrayContaining(['tooLong', 'tooSmall', 'notFound']));
    const ok = await t.call('GET', 'logs?outcome=success&perPage=5', { token: ownerToken });
    for (const item of ok.body.items as { errorCode: string | null }[]) expect(item.errorCode).toBeNull();
  });

  test("a client change is written once, in the change's own transaction (docs/audit.md, one write)", async () => {
    // xmin is the transaction that wrote a row version: the same for the client and its entry
    // means both committed together; an entry updated after its insert would carry a later one.
    const xminOf = async (table: string, column: string, id: string) =>
      (await t.query<{ xmin: string }>(`select xmin::text from ${table} where ${column} = $1`, [id]))[0]?.xmin;
    const created = await recorded('POST', 'clients', {
      token: ownerApiToken.token,
      body: { name: 'one-write', interfaceIds },
    });
    expect(created.answer.status).toBe(201);
    expect(created.entries).toHaveLength(1);
    expect(created.entries[0]).toMatchObject({ outcome: 'success', status: 201, target_id: created.answer.body.id });
    expect(created.entries[0].finished_at).not.toBeNull();
    expect(await xminOf('audit_entries', 'id', created.entries[0].id)).toBe(
      await xminOf('clients', 'id', created.answer.body.id),
    );
    const changed = await recorded('PATCH', `clients/${created.answer.body.id}`, {
      token: ownerToken,
      body: { quotaBytes: 5000 },
    });
    expect(changed.entries).toHaveLength(1);
    expect(changed.entries[0]).toMatchObject({
      outcome: 'success',
      changes: [{ field: 'quotaBytes', old: 0, new: 5000 }],
    });
    expect(await xminOf('audit_entries', 'id', changed.entries[0].id)).toBe(
      await xminOf('clients', 'id', created.answer.body.id),
    );
    // A change refused inside its transaction (an unknown interface) rolls back with its entry:
    // the refusal is then written once, after the answer.
    const refused = await recorded('POST', 'clients', {
      token: ownerToken,
      body: { name: 'one-write-refused', interfaceIds: [randomUUID()] },
    });
    expect(refused.answer.status).toBe(404);
    expect(refused.entries).toHaveLength(1);
    expect(refused.entries[0]).toMatchObject({ outcome: 'refused', status: 404, target_id: null });
    expect(await t.query(`select 1 from clients where name = 'one-write-refused'`)).toHaveLength(0);
  });

  test('a device addition is written once, in its own transaction, naming its client (docs/audit.md, one write)', async () => {
    const client = await t.call('POST', 'clients', {
      token: ownerToken,
      body: { name: 'one-write-devices', interfaceIds, deviceLimit: 2 },
    });
    expect(client.status).toBe(201);
    const added = await recorded('POST', `clients/${client.body.id}/devices`, {
      token: ownerToken,
      body: { name: 'tablet' },
    });
    expect(added.answer.status).toBe(201);
    expect(added.entries).toHaveLength(1);
    expect(added.entries[0]).toMatchObject({
      action: 'devices.create',
      outcome: 'success',
      status: 201,
      target_type: 'clients',
      target_id: client.body.id,
      target_name: 'one-write-devices',
      changes: [{ field: 'name', new: 'tablet' }],
    });
    // The device's row and its entry committed together, and the entry was not updated after.
    const [device] = await t.query<{ xmin: string }>(`select xmin::text from devices where id = $1`, [
      added.answer.body.id,
    ]);
    const [entry] = await t.query<{ xmin: string }>(`select xmin::text from audit_entries where id = $1`, [
      added.entries[0].id,
    ]);
    expect(entry.xmin).toBe(device.xmin);
    // Refused inside the transaction (over the device limit): rolled back, then written once.
    const refused = await recorded('POST', `clients/${client.body.id}/devices`, {
      token: ownerToken,
      body: { name: 'phone-2' },
    });
    expect(refused.answer.status).toBe(409);
    expect(refused.entries).toHaveLength(1);
    expect(refused.entries[0]).toMatchObject({ outcome: 'refused', status: 409, target_name: 'one-write-devices' });
  });

  test('secrets are recorded as changed, never their values, anywhere in the table', async () => {
    const session = await t.call('POST', 'auth/login', {
      body: { username: admin.username, password: admin.password },
    });
    const newPassword = `audit-new-${randomUUID()}`;
    const changed = await recorded('PATCH', 'auth/me', {
      token: session.body.token,
      body: { currentPassword: admin.password, newPassword },
    });
    expect(changed.answer.status).toBe(200);
    expect(changed.entries[0]).toMatchObject({
      action: 'auth.password',
      actor_name: admin.username,
      actor_role: 'admin',
      target_type: 'users',
      target_id: admin.id,
      changes: [
        { field: 'currentPassword', secret: true },
        { field: 'newPassword', secret: true },
      ],
    });
    const wrong = await recorded('PATCH', 'auth/me', {
      token: session.body.token,
      body: { currentPassword: 'not-the-password', newPassword: 'another-long-one' },
    });
    expect(wrong.entries[0]).toMatchObject({ outcome: 'refused', status: 400 });
    await t.call('PATCH', 'auth/me', {
      token: session.body.token,
      body: { currentPassword: newPassword, newPassword: admin.password },
    });
    // The change ended the admin's other sessions; this one stays.
    admin.token = session.body.token;

    const hopPassword = `hop-${randomUUID()}`;
    const node = await f.createNode();
    const hop = await recorded('POST', 'outbounds', {
      token: ownerToken,
      body: {
        nodeId: node.id,
        kind: 'socks',
        tag: `audit-hop-${randomUUID().slice(0, 8)}`,
        address: '192.0.2.44:1080',
        username: 'hopuser',
        password: hopPassword,
      },
    });
    expect(hop.answer.status).toBe(201);
    expect(hop.entries[0].changes).toEqual(expect.arrayContaining([{ field: 'password', secret: true }]));
    const issued = await recorded('POST', 'tokens', { token: ownerToken, body: { name: 'audit-secret-token' } });

    const table = JSON.stringify(await t.query('select * from audit_entries'));
    for (const secret of [newPassword, admin.password, hopPassword, issued.answer.body.token, ownerApiToken.token])
      expect(table).not.toContain(secret);
    const sessions = await t.query<{ token_hash: string }>('select token_hash from sessions');
    for (const { token_hash } of sessions) expect(table).not.toContain(token_hash);
  });

  test('sign-ins, failed and successful, name who tried; sign-out too', async () => {
    const failed = await recorded('POST', 'auth/login', { body: { username: viewer.username, password: 'wrong-one' } });
    expect(failed.answer.status).toBe(401);
    expect(failed.entries[0]).toMatchObject({
      action: 'auth.login',
      via: 'public',
      actor_id: null,
      actor_name: viewer.username,
      outcome: 'refused',
      status: 401,
      changes: [],
    });
    const nobody = await recorded('POST', 'auth/login', { body: { username: 'no-such-user', password: 'whatever' } });
    expect(nobody.entries[0]).toMatchObject({ actor_name: 'no-such-user', actor_id: null, outcome: 'refused' });

    const signedIn = await recorded('POST', 'auth/login', {
      body: { username: viewer.username, password: viewer.password },
    });
    expect(signedIn.entries[0]).toMatchObject({
      action: 'auth.login',
      actor_id: viewer.id,
      actor_name: viewer.username,
      actor_role: 'viewer',
      target_type: 'users',
      target_id: viewer.id,
      outcome: 'success',
    });
    const out = await recorded('POST', 'auth/logout', { token: signedIn.answer.body.token });
    expect(out.entries[0]).toMatchObject({ action: 'auth.logout', actor_id: viewer.id, target_id: viewer.id });
  });
});

describe('GET /api/logs', () => {
  const marker = `audit-list-${randomUUID().slice(0, 8)}`;
  const made: string[] = [];
  let from: string;

  beforeAll(async () => {
    from = new Date(Date.now() - 1000).toISOString();
    for (let i = 0; i < 7; i++) made.push((await f.createClient({ name: `${marker}-${i}`, interfaceIds })).id);
    await t.call('PATCH', `clients/${made[2]}`, { token: admin.token, body: { note: marker } });
  });

  const list = async (query: Record<string, string | number>, token = ownerToken) => {
    const search = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
    return t.call('GET', `logs?${search}`, { token });
  };

  test('newest first, a page at a time by cursor, with every entry once', async () => {
    const seen: { id: string; at: string; target: { id: string | null } }[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await list({ action: 'clients.create', from, perPage: 3, ...(cursor ? { cursor } : {}) });
      expect(page.status).toBe(200);
      expect(page.body.items.length).toBeLessThanOrEqual(3);
      seen.push(...page.body.items);
      cursor = page.body.nextCursor;
      pages += 1;
    } while (cursor);
    const ours = seen.filter((entry) => made.includes(entry.target.id!));
    expect(ours.map((entry) => entry.target.id)).toEqual([...made].reverse());
    expect(new Set(seen.map((entry) => entry.id)).size).toBe(seen.length);
    expect(pages).toBeGreaterThanOrEqual(3);
    const times = seen.map((entry) => entry.at);
    expect([...times].sort().reverse()).toEqual(times);
  });

  test('filters: actor (name or id), target, action, outcome, time range', async () => {
    const byAdmin = await list({ actor: admin.username.toUpperCase(), action: 'clients.update' });
    expect(byAdmin.body.items).toHaveLength(1);
    expect(byAdmin.body.items[0]).toMatchObject({
      actor: { id: admin.id, name: admin.username, role: 'admin', via: 'session' },
      target: { type: 'clients', id: made[2], name: `${marker}-2` },
      changes: [{ field: 'note', old: '', new: marker }],
      outcome: 'success',
    });
    expect((await list({ actor: admin.id, action: 'clients.update' })).body.items).toHaveLength(1);
    const target = await list({ targetType: 'clients', targetId: made[2] });
    expect(target.body.items.map((entry: { action: string }) => entry.action)).toEqual([
      'clients.update',
      'clients.create',
    ]);
    const later = await list({ from: new Date(Date.now() + 60_000).toISOString() });
    expect(later.body.items).toEqual([]);
    const before = await list({ to: from, action: 'clients.create', targetId: made[0] });
    expect(before.body.items).toEqual([]);
    const refused = await list({ outcome: 'refused', action: 'auth.login' });
    expect(refused.body.items.every((entry: { outcome: string }) => entry.outcome === 'refused')).toBe(true);
  });

  test('bad filters and forged cursors are 400s naming the field; only the owner reads the log', async () => {
    for (const [query, field] of [
      [{ outcome: 'maybe' }, 'outcome'],
      [{ from: 'yesterday' }, 'from'],
      [{ perPage: 0 }, 'perPage'],
      [{ perPage: 201 }, 'perPage'],
      [{ cursor: 'not-a-cursor' }, 'cursor'],
      [{ cursor: Buffer.from('["x","y"]').toString('base64url') }, 'cursor'],
      [{ action: 'a b' }, 'action'],
      [{ from: '2026-01-02T00:00:00Z', to: '2026-01-01T00:00:00Z' }, 'from'],
    ] as const) {
      const answer = await list(query);
      expect([answer.status, answer.body.field]).toEqual([400, field]);
    }
    expect((await list({}, admin.token)).status).toBe(403);
    expect((await list({}, viewer.token)).status).toBe(403);
    expect((await list({}, ownerApiToken.token)).status).toBe(200);
  });
});

describe('upkeep', () => {
  test('retention is a setting only the owner changes; maintenance deletes what is older, and settles abandoned entries as unknown', async () => {
    const refused = await t.call('PATCH', 'settings', { token: admin.token, body: { auditRetentionDays: 1 } });
    expect([refused.status, refused.body.field]).toEqual([403, 'auditRetentionDays']);
    expect(
      (await t.call('PATCH', 'settings', { token: ownerToken, body: { auditRetentionDays: 30 } })).body,
    ).toMatchObject({ auditRetentionDays: 30 });
    const old = randomUUID();
    const kept = randomUUID();
    const abandoned = randomUUID();
    const insert = `insert into audit_entries (id, at, via, action, method, route, changes, outcome)
                    values ($1, now() - $2::interval, 'session', 'clients.create', 'POST', '/api/clients', '[]', $3)`;
    await t.query(insert, [old, '31 days', 'success']);
    await t.query(insert, [kept, '29 days', 'success']);
    await t.query(insert, [abandoned, '2 hours', 'pending']);
    await t.panel.app.get(SystemHistoryMaintenance).run();
    const rows = await t.query<{ id: string; outcome: string }>(
      'select id, outcome from audit_entries where id = any($1::uuid[])',
      [[old, kept, abandoned]],
    );
    expect(Object.fromEntries(rows.map((row) => [row.id, row.outcome]))).toEqual({
      [kept]: 'success',
      [abandoned]: 'unknown',
    });
    await t.call('PATCH', 'settings', { token: ownerToken, body: { auditRetentionDays: 365 } });
  });

  test('a backup holds the log; a restore adds its entries to the log instead of replacing it, and is recorded', async () => {
    const before = randomUUID();
    await t.query(
      `insert into audit_entries (id, at, via, action, method, route, changes, outcome)
       values ($1, now(), 'session', 'before.backup', 'POST', '/api/x', '[]', 'success')`,
      [before],
    );
    const made = await t.call('POST', 'backups', { token: ownerToken });
    expect(made.status).toBe(201);
    // Gone from the log after the backup (as retention would do), and a new entry since.
    await t.query('delete from audit_entries where id = $1', [before]);
    const since = await f.createClient({ name: 'audit-after-backup', interfaceIds });
    const restored = await recorded('POST', `backups/${made.body.name}/restore`, { token: ownerToken });
    expect([restored.answer.status, restored.answer.status === 200 ? null : restored.answer.body]).toEqual([200, null]);
    const ids = (await t.query<{ id: string }>('select id from audit_entries')).map((row) => row.id);
    expect(ids).toContain(before);
    const after = await t.query<EntryRow>(
      `select * from audit_entries where action = 'clients.create' and target_id = $1`,
      [since.id],
    );
    expect(after).toHaveLength(1);
    expect(restored.entries[0]).toMatchObject({
      action: 'backups.restore',
      target_type: 'backups',
      target_id: made.body.name,
      outcome: 'success',
      status: 200,
    });
  }, 120_000);

  test('the command line records what it changes, as the host account', async () => {
    const result = await runToEnd(CLI_MAIN, ['token', 'issue', '--name', 'audit-cli', '--quiet'], {
      ...process.env,
      DATABASE_URL: t.database.url,
      WARREN_LOG_LEVEL: 'error',
    });
    expect(result.code).toBe(0);
    const revoked = await runToEnd(CLI_MAIN, ['token', 'revoke', 'no-such-token'], {
      ...process.env,
      DATABASE_URL: t.database.url,
      WARREN_LOG_LEVEL: 'error',
    });
    expect(revoked.code).toBe(1);
    const rows = await waitFor('the CLI entries', async () => {
      const found = await t.query<EntryRow>(`select * from audit_entries where via = 'cli' order by at`);
      return found.length === 2 ? found : undefined;
    });
    expect(rows[0]).toMatchObject({
      action: 'cli.token.issue',
      route: 'warren token issue',
      method: 'CLI',
      actor_name: userInfo().username,
      target_type: 'tokens',
      changes: [{ field: 'name', new: 'audit-cli' }],
      outcome: 'success',
      status: 0,
    });
    expect(rows[1]).toMatchObject({
      action: 'cli.token.revoke',
      target_id: 'no-such-token',
      outcome: 'refused',
      status: 1,
    });
    expect(rows[1].error).toMatch(/no API token/);
    expect(JSON.stringify(rows)).not.toContain(result.stdout.trim());
  }, 60_000);
});
