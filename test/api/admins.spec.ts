import { randomUUID } from 'node:crypto';
import { SIGNED_IN } from '#libs/contracts/user-roles.js';
import { RouteTableService } from '../../apps/controller/src/docs/route-table.service.js';
import { answer, fixtures, type TestUser } from '../support/fixtures.js';
import { randomSuffix } from '../support/random-suffix.js';
import { refusal } from '../support/refusal.js';
import { concretePath } from '../support/route-catalogue.js';
import { CLI_MAIN, runToEnd } from '../support/spawned-process.js';
import { OWNER, startTestPanel, type TestPanel } from '../support/test-panel.js';

let t: TestPanel;
let ownerToken: string;
let ownerId: string;

const f = fixtures(() => ({ t, token: ownerToken }));

beforeAll(async () => {
  t = await startTestPanel();
  ownerToken = await t.login();
  ownerId = (await t.call('GET', 'auth/me', { token: ownerToken })).body.user.id;
});
afterAll(async () => {
  await t?.stop();
});

const signIn = (username: string, password: string) => t.call('POST', 'auth/login', { body: { username, password } });
const me = (token: string) => t.call('GET', 'auth/me', { token });
const usersTable = () =>
  t.query('select id, username, role, enabled, must_change_password, password_hash from users order by id');
const owner = () => t.client(ownerToken);

/** A user made through POST /api/admins (a temporary password), then signed in and past the change. */
async function operator(role: 'owner' | 'admin' | 'viewer'): Promise<TestUser> {
  const username = `${role}-${randomSuffix(8)}`;
  const temporary = `temporary-${randomSuffix(12)}`;
  const created = await answer(owner().POST('/api/admins', { body: { username, password: temporary, role } }));
  expect(created.status).toBe(201);
  const first = (await signIn(username, temporary)).body.token as string;
  const password = `chosen-${randomSuffix(12)}`;
  const changed = await t.call('POST', 'auth/password', {
    token: first,
    body: { currentPassword: temporary, newPassword: password },
  });
  expect(changed.status).toBe(200);
  return { id: created.body.id, username, password, role, token: first };
}

describe('the owner manages operators', () => {
  test('creates a user with a temporary password: the sign-in says so and every route but the change refuses until then', async () => {
    const username = `colleague-${randomSuffix(6)}`;
    const created = await answer(
      owner().POST('/api/admins', { body: { username, password: 'temporary-pass-1', role: 'admin' } }),
    );
    expect([created.status, created.body]).toEqual([
      201,
      {
        id: expect.any(String),
        username,
        role: 'admin',
        enabled: true,
        mustChangePassword: true,
        sessions: 0,
        lastSeenAt: null,
        reseller: null,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
    ]);

    const signedIn = await signIn(username, 'temporary-pass-1');
    expect([signedIn.status, signedIn.body.mustChangePassword]).toEqual([200, true]);
    const session = signedIn.body.token as string;
    const blocked = await t.call('GET', 'clients', { token: session });
    expect([blocked.status, blocked.body]).toEqual([
      403,
      refusal('mustChangePassword', expect.stringMatching(/POST \/api\/auth\/password/)),
    ]);
    expect((await t.call('GET', 'auth/sessions', { token: session })).status).toBe(403);
    expect((await t.call('POST', 'tokens', { token: session, body: { name: 'early' } })).status).toBe(403);
    const who = await me(session);
    expect([who.status, who.body.mustChangePassword]).toEqual([200, true]);

    const changed = await t.call('POST', 'auth/password', {
      token: session,
      body: { currentPassword: 'temporary-pass-1', newPassword: 'my-own-passphrase' },
    });
    expect([changed.status, changed.body.sessionsEnded]).toEqual([200, 0]);
    expect((await t.call('GET', 'clients', { token: session })).status).toBe(200);
    expect((await me(session)).body.mustChangePassword).toBe(false);
    const again = await signIn(username, 'my-own-passphrase');
    expect([again.status, again.body.mustChangePassword]).toEqual([200, false]);
    const listed = await answer(owner().GET('/api/admins/{id}', { params: { path: { id: created.body.id } } }));
    expect(listed.body).toMatchObject({ mustChangePassword: false, sessions: 2, lastSeenAt: expect.any(String) });
  });

  test('a user under a temporary password may still sign out', async () => {
    const username = `leaver-${randomSuffix(6)}`;
    await answer(owner().POST('/api/admins', { body: { username, password: 'temporary-pass-2', role: 'viewer' } }));
    const session = (await signIn(username, 'temporary-pass-2')).body.token as string;
    expect((await t.call('POST', 'auth/logout', { token: session })).status).toBe(200);
    expect((await me(session)).status).toBe(401);
  });

  test('lists users and never shows a password or its hash', async () => {
    await operator('viewer');
    const listed = await answer(owner().GET('/api/admins'));
    expect(listed.status).toBe(200);
    expect(listed.body.map((user) => user.username)).toContain(OWNER.username);
    const text = JSON.stringify(listed.body);
    expect(text).not.toMatch(/scrypt\$|password_?hash|"password"/i);
    for (const user of listed.body)
      expect(Object.keys(user).sort()).toEqual([
        'createdAt',
        'enabled',
        'id',
        'lastSeenAt',
        'mustChangePassword',
        'reseller',
        'role',
        'sessions',
        'updatedAt',
        'username',
      ]);
  });

  test('refuses bad input naming the field, and changes nothing', async () => {
    const before = await usersTable();
    const taken = { username: OWNER.username, password: 'long-enough-1', role: 'viewer' };
    const cases: [unknown, number, string][] = [
      [taken, 409, 'username'],
      [{ username: 'x y', password: 'long-enough-1', role: 'viewer' }, 400, 'username'],
      [{ username: 'new-one', password: 'short', role: 'viewer' }, 400, 'password'],
      [{ username: 'new-one', password: 'long-enough-1', role: 'seller' }, 400, 'role'],
      // Ceilings belong to resellers only (docs/operators.md, "Ceilings").
      [{ username: 'new-one', password: 'long-enough-1', role: 'viewer', limits: { maxClients: 1 } }, 409, 'limits'],
      [{ username: 'new-one', password: 'long-enough-1', role: 'viewer', isAdmin: true }, 400, 'isAdmin'],
      [
        { username: 'new-one', password: 'long-enough-1', role: 'viewer', passwordHash: 'scrypt$1$1$1$a$b' },
        400,
        'passwordHash',
      ],
    ];
    for (const [body, status, field] of cases) {
      const refused = await t.call('POST', 'admins', { token: ownerToken, body });
      expect([refused.status, refused.body]).toEqual([status, refusal(field)]);
    }
    expect(await usersTable()).toEqual(before);
    const unknown = randomUUID();
    for (const [method, path, body] of [
      ['GET', `admins/${unknown}`, undefined],
      ['PATCH', `admins/${unknown}`, { enabled: false }],
      ['DELETE', `admins/${unknown}`, undefined],
      ['POST', `admins/${unknown}/reset-usage`, undefined],
      ['GET', 'admins/not-an-id', undefined],
    ] as const) {
      const refused = await t.call(method, path, { token: ownerToken, body });
      expect([refused.status, refused.body]).toEqual([404, refusal('id')]);
    }
  });

  test('renames a user; a taken name is 409', async () => {
    const user = await operator('viewer');
    const renamed = `renamed-${randomSuffix(6)}`;
    const changed = await answer(
      owner().PATCH('/api/admins/{id}', { params: { path: { id: user.id } }, body: { username: renamed } }),
    );
    expect([changed.status, changed.body.username]).toEqual([200, renamed]);
    expect((await signIn(renamed, user.password)).status).toBe(200);
    const taken = await t.call('PATCH', `admins/${user.id}`, { token: ownerToken, body: { username: OWNER.username } });
    expect([taken.status, taken.body]).toEqual([409, refusal('username')]);
  });

  test('changes another user’s role, which takes effect on their next request', async () => {
    const user = await operator('viewer');
    expect((await t.call('POST', 'interfaces', { token: user.token, body: {} })).status).toBe(403);
    const promoted = await answer(
      owner().PATCH('/api/admins/{id}', { params: { path: { id: user.id } }, body: { role: 'admin' } }),
    );
    expect([promoted.status, promoted.body.role]).toEqual([200, 'admin']);
    expect((await me(user.token)).body.user.role).toBe('admin');
    expect((await t.call('POST', 'interfaces', { token: user.token, body: {} })).status).toBe(400);
  });

  test('nobody changes their own role, disables, deletes or sets a password for themselves here', async () => {
    const before = await usersTable();
    const cases: [string, string, unknown, number, string][] = [
      ['PATCH', `admins/${ownerId}`, { role: 'viewer' }, 403, 'role'],
      ['PATCH', `admins/${ownerId}`, { enabled: false }, 409, 'enabled'],
      ['PATCH', `admins/${ownerId}`, { password: 'set-without-the-current' }, 403, 'password'],
      ['DELETE', `admins/${ownerId}`, undefined, 409, 'id'],
      ['POST', 'admins/bulk', { ids: [ownerId], action: 'disable' }, 409, 'ids[0]'],
      ['POST', 'admins/bulk', { ids: [ownerId], action: 'delete' }, 409, 'ids[0]'],
    ];
    for (const [method, path, body, status, field] of cases) {
      const refused = await t.call(method, path, { token: ownerToken, body });
      expect([method, path, refused.status, refused.body]).toEqual([method, path, status, refusal(field)]);
    }
    // The same role again is no change, so no refusal.
    expect((await t.call('PATCH', `admins/${ownerId}`, { token: ownerToken, body: { role: 'owner' } })).status).toBe(
      200,
    );
    expect(await usersTable()).toEqual(before);
  });

  test('two owners demoting each other at once: exactly one succeeds, the panel keeps an enabled owner', async () => {
    const a = await operator('owner');
    const b = await operator('owner');
    // Only a and b are enabled owners for this race (the first owner comes back after it).
    await t.query('update users set enabled = false where id = $1', [ownerId]);
    try {
      const answers = await Promise.all([
        t.call('PATCH', `admins/${b.id}`, { token: a.token, body: { role: 'viewer' } }),
        t.call('PATCH', `admins/${a.id}`, { token: b.token, body: { role: 'viewer' } }),
      ]);
      const statuses = answers.map((response) => response.status).sort();
      // The loser is refused by the rule (409) or, when its request came after the change, by the guard (403).
      expect([
        [200, 403],
        [200, 409],
      ]).toContainEqual(statuses);
      const owners = await t.query(`select id from users where role = 'owner' and enabled`);
      expect(owners).toHaveLength(1);
    } finally {
      await t.query('update users set enabled = true where id = $1', [ownerId]);
    }
  });

  test('disabling a user stops their sessions and tokens on the next request; sign-in says the account is disabled', async () => {
    const user = await operator('admin');
    const token = (await f.createToken({ name: 'automation' }, user.token)).token;
    expect((await me(token)).status).toBe(200);
    const disabled = await answer(
      owner().PATCH('/api/admins/{id}', { params: { path: { id: user.id } }, body: { enabled: false } }),
    );
    expect([disabled.status, disabled.body.enabled, disabled.body.sessions]).toEqual([200, false, 0]);
    expect((await me(user.token)).status).toBe(401);
    expect((await me(token)).status).toBe(401);
    const refused = await signIn(user.username, user.password);
    expect([refused.status, refused.body]).toEqual([403, refusal('username', expect.stringMatching(/disabled/))]);
    // A wrong password tells a guesser nothing about the account.
    expect((await signIn(user.username, 'wrong-password')).status).toBe(401);

    await answer(owner().PATCH('/api/admins/{id}', { params: { path: { id: user.id } }, body: { enabled: true } }));
    expect((await me(user.token)).status).toBe(401); // sessions ended for good
    expect((await me(token)).status).toBe(200); // the token was refused, not revoked
    expect((await signIn(user.username, user.password)).status).toBe(200);
  });

  test('a temporary password set by the owner ends the user’s sessions and must be changed at the next sign-in', async () => {
    const user = await operator('viewer');
    const set = await answer(
      owner().PATCH('/api/admins/{id}', {
        params: { path: { id: user.id } },
        body: { password: 'owner-chosen-temp' },
      }),
    );
    expect([set.status, set.body.mustChangePassword]).toEqual([200, true]);
    expect(JSON.stringify(set.body)).not.toContain('owner-chosen-temp');
    expect((await me(user.token)).status).toBe(401);
    expect((await signIn(user.username, user.password)).status).toBe(401);
    const signedIn = await signIn(user.username, 'owner-chosen-temp');
    expect(signedIn.body.mustChangePassword).toBe(true);
    const same = await t.call('POST', 'auth/password', {
      token: signedIn.body.token,
      body: { currentPassword: 'owner-chosen-temp', newPassword: 'owner-chosen-temp' },
    });
    expect([same.status, same.body]).toEqual([400, refusal('newPassword')]);
  });

  test('deleting a user ends their sessions and tokens; they are gone', async () => {
    const user = await operator('admin');
    const token = (await f.createToken({ name: 'doomed' }, user.token)).token;
    const deleted = await answer(owner().DELETE('/api/admins/{id}', { params: { path: { id: user.id } } }));
    expect([deleted.status, deleted.body]).toEqual([200, { id: user.id, deleted: true }]);
    expect((await me(user.token)).status).toBe(401);
    expect((await me(token)).status).toBe(401);
    expect((await t.call('GET', `admins/${user.id}`, { token: ownerToken })).status).toBe(404);
  });

  test('bulk: all or none', async () => {
    const one = await operator('viewer');
    const two = await operator('viewer');
    const before = await usersTable();
    const unknown = await t.call('POST', 'admins/bulk', {
      token: ownerToken,
      body: { ids: [one.id, randomUUID(), two.id], action: 'disable' },
    });
    expect([unknown.status, unknown.body]).toEqual([404, refusal('ids[1]')]);
    const duplicate = await t.call('POST', 'admins/bulk', {
      token: ownerToken,
      body: { ids: [one.id, one.id], action: 'disable' },
    });
    expect([duplicate.status, duplicate.body]).toEqual([400, refusal('ids')]);
    expect(await usersTable()).toEqual(before);
    expect((await me(one.token)).status).toBe(200);

    const disabled = await answer(
      owner().POST('/api/admins/bulk', { body: { ids: [one.id, two.id], action: 'disable' } }),
    );
    expect([disabled.status, disabled.body]).toEqual([200, { action: 'disable', ids: [one.id, two.id], changed: 2 }]);
    expect((await me(one.token)).status).toBe(401);
    expect((await me(two.token)).status).toBe(401);
    const enabled = await answer(owner().POST('/api/admins/bulk', { body: { ids: [one.id], action: 'enable' } }));
    expect(enabled.body.changed).toBe(1);
    const deleted = await answer(
      owner().POST('/api/admins/bulk', { body: { ids: [one.id, two.id], action: 'delete' } }),
    );
    expect(deleted.body.changed).toBe(2);
    expect(await t.query('select id from users where id = any($1::uuid[])', [[one.id, two.id]])).toEqual([]);
  });

  test('reset-usage answers 409 for any role but a reseller: no other role has a pool to reset', async () => {
    const user = await operator('admin');
    const refused = await t.call('POST', `admins/${user.id}/reset-usage`, { token: ownerToken });
    expect([refused.status, refused.body]).toEqual([409, refusal('role', expect.stringMatching(/reseller/))]);
  });

  test('admins and viewers reach none of it', async () => {
    const before = await usersTable();
    for (const role of ['admin', 'viewer'] as const) {
      const user = await operator(role);
      const after = await usersTable();
      for (const [method, path, body] of [
        ['GET', 'admins', undefined],
        ['POST', 'admins', { username: `sneaky-${role}`, password: 'long-enough-1', role: 'owner' }],
        ['GET', `admins/${user.id}`, undefined],
        ['PATCH', `admins/${user.id}`, { role: 'owner' }],
        ['DELETE', `admins/${ownerId}`, undefined],
        ['POST', 'admins/bulk', { ids: [ownerId], action: 'disable' }],
        ['POST', `admins/${user.id}/reset-usage`, undefined],
      ] as const) {
        const refused = await t.call(method, path, { token: user.token, body });
        expect([method, path, refused.status, refused.body]).toEqual([method, path, 403, refusal('')]);
      }
      expect(await usersTable()).toEqual(after);
    }
    expect((await usersTable()).length).toBe(before.length + 2);
  });
});

describe('no request body can promote anyone', () => {
  const PROMOTING = {
    role: 'owner',
    isAdmin: true,
    owner: true,
    admin: true,
    enabled: true,
    mustChangePassword: false,
  };

  /**
   * Every route a non-owner may call that changes something, read from the route table (so a new
   * self-service route is covered the day it appears), with its example body plus fields that
   * would promote the caller: each is refused as undeclared input, and the caller stays as they were.
   */
  test.each(['admin', 'viewer'] as const)(
    'a %s sending role/isAdmin/owner to every route they may change through',
    async (role) => {
      const user = await operator(role);
      const ownToken = await f.createToken({ name: 'own' }, user.token);
      const otherSession = (await signIn(user.username, user.password)).body.token as string;
      const otherSessionId = (
        await t.query<{ id: string }>('select id from sessions where user_id = $1 order by created_at desc limit 1', [
          user.id,
        ])
      )[0].id;
      const routes = t.panel.app
        .get(RouteTableService)
        .all()
        .filter(
          (route) =>
            !route.public &&
            route.method !== 'GET' &&
            route.roles.includes(role) &&
            SIGNED_IN.every((r) => route.roles.includes(r)),
        );
      expect(routes.map((route) => `${route.method} ${route.path}`)).toEqual(
        expect.arrayContaining(['PATCH auth/me', 'POST auth/password', 'POST tokens', 'PATCH tokens/:id']),
      );
      const before = await usersTable();
      for (const route of routes) {
        const path = concretePath(route.fullPath, () =>
          route.path.startsWith('tokens') ? ownToken.id : otherSessionId,
        );
        const body = { ...((route.example as object | undefined) ?? {}), ...PROMOTING };
        const refused = await t.call(route.method, path, { token: user.token, body });
        expect([route.method, route.path, refused.status]).toEqual([route.method, route.path, 400]);
        expect(Object.keys(PROMOTING)).toContain(refused.body.field);
      }
      expect(await usersTable()).toEqual(before);
      const who = await me(user.token);
      expect([who.status, who.body.user.role]).toEqual([200, role]);
      expect((await me(otherSession)).status).toBe(200);
    },
  );

  test('sign-in refuses them too', async () => {
    const refused = await t.call('POST', 'auth/login', {
      body: { username: OWNER.username, password: OWNER.password, role: 'owner' },
    });
    expect([refused.status, refused.body]).toEqual([400, refusal('role')]);
  });
});

describe('warren admin …', () => {
  const cli = (args: string[]) =>
    runToEnd(CLI_MAIN, ['admin', ...args], { ...process.env, DATABASE_URL: t.database.url, WARREN_LOG_LEVEL: 'error' });

  test('list shows users without passwords; disable and enable take effect at once', async () => {
    const user = await operator('viewer');
    const listed = await cli(['list', '--json']);
    expect(listed.code).toBe(0);
    const users = JSON.parse(listed.stdout) as { username: string; enabled: boolean }[];
    expect(users.find((row) => row.username === user.username)).toMatchObject({ enabled: true, role: 'viewer' });
    expect(listed.stdout).not.toMatch(/scrypt\$|passwordHash/);

    expect(await cli(['disable', user.username])).toMatchObject({ code: 0 });
    expect((await me(user.token)).status).toBe(401);
    expect((await signIn(user.username, user.password)).status).toBe(403);
    expect(await cli(['enable', user.username])).toMatchObject({ code: 0 });
    expect((await signIn(user.username, user.password)).status).toBe(200);
    expect(await cli(['disable', 'nobody-of-that-name'])).toMatchObject({ code: 1 });
  });

  test('disable refuses the last enabled owner', async () => {
    await t.query(`update users set enabled = false where role = 'owner' and username <> $1`, [OWNER.username]);
    const refused = await cli(['disable', OWNER.username]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/last enabled owner/);
    expect((await me(ownerToken)).status).toBe(200);
  });

  test('reset-password --temporary makes the password one to change at the next sign-in', async () => {
    const user = await operator('admin');
    const result = await cli(['reset-password', '--username', user.username, '--temporary']);
    expect(result.code).toBe(0);
    const password = result.stdout.match(/^ {2}(\S+)$/m)![1];
    const signedIn = await signIn(user.username, password);
    expect([signedIn.status, signedIn.body.mustChangePassword]).toEqual([200, true]);
  });
});
