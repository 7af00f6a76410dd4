import { ROUTE_GROUPS } from '#libs/contracts/route-groups.js';
import { RouteTableService } from '../../apps/controller/src/docs/route-table.service.js';
import { fixtures } from '../support/fixtures.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';

/**
 * Scoped API tokens: narrower than their user (read-only, an expiry, route groups), never wider,
 * and never a way to make a wider one. The full grid of scoped tokens against every route is the
 * authorization matrix's (authorization-matrix.spec.ts); this file checks the rules one by one.
 */
let t: TestPanel;
let session: string;

beforeAll(async () => {
  t = await startTestPanel();
  session = await t.login();
});
afterAll(async () => {
  await t?.stop();
});

const { createToken, createUser } = fixtures(() => ({ t, token: session }));
/** Calls made with `caller` (a token), each refusal leaving every token row as it was. */
let caller: string;
const asCaller = fixtures(() => ({ t, token: caller }), {
  unchanged: () => t.query('select id, name, enabled from api_tokens order by id'),
});
const inAnHour = () => new Date(Date.now() + 3600_000).toISOString();

describe('issuing a scoped token', () => {
  test('the scope is answered on issue and in the list; an unscoped token says so', async () => {
    const expiresAt = inAnHour();
    const scoped = await createToken({
      name: 'scoped',
      readOnly: true,
      expiresAt,
      routeGroups: ['devices', 'clients'],
    });
    expect(scoped).toMatchObject({ readOnly: true, routeGroups: ['clients', 'devices'], expired: false });
    expect(new Date(scoped.expiresAt!).getTime()).toBe(new Date(expiresAt).getTime());
    const plain = await createToken({ name: 'plain' });
    expect(plain).toMatchObject({ readOnly: false, expiresAt: null, routeGroups: null, expired: false });
    const listed = (await t.call('GET', 'tokens', { token: session })).body as { id: string }[];
    expect(listed.find((token) => token.id === scoped.id)).toMatchObject({
      readOnly: true,
      routeGroups: ['clients', 'devices'],
      lastUsedAt: null,
    });
  });

  test('a bad scope is a 400 naming the field, and no token is made', async () => {
    const before = (await t.query('select count(*) from api_tokens'))[0].count;
    const bad: [Record<string, unknown>, string][] = [
      [{ expiresAt: '2020-01-01T00:00:00Z' }, 'expiresAt'],
      [{ expiresAt: 'tomorrow' }, 'expiresAt'],
      [{ expiresAt: '2030-01-01T00:00:00' }, 'expiresAt'],
      [{ routeGroups: ['clients', 'no-such-group'] }, 'routeGroups'],
      [{ routeGroups: [] }, 'routeGroups'],
      [{ routeGroups: ['clients', 'clients'] }, 'routeGroups'],
      [{ routeGroups: 'clients' }, 'routeGroups'],
      [{ readOnly: 'yes' }, 'readOnly'],
      [{ readOnly: null }, 'readOnly'],
    ];
    for (const [scope, field] of bad) {
      const refused = await t.call('POST', 'tokens', { token: session, body: { name: 'bad', ...scope } });
      expect([JSON.stringify(scope), refused.status, refused.body.field]).toEqual([JSON.stringify(scope), 400, field]);
    }
    expect((await t.query('select count(*) from api_tokens'))[0].count).toBe(before);
  });
});

describe('using a scoped token', () => {
  test('a read-only token reads but changes nothing (403), whatever its role allows', async () => {
    const reader = await createToken({ name: 'reader', readOnly: true });
    expect((await t.call('GET', 'clients', { token: reader.token })).status).toBe(200);
    expect((await t.call('GET', 'auth/me', { token: reader.token })).status).toBe(200);
    const refused = await t.call('POST', 'clients', { token: reader.token, body: { name: 'nope' } });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatch(/read-only/);
    expect((await t.call('DELETE', `tokens/${reader.id}`, { token: reader.token })).status).toBe(403);
    expect((await t.query('select count(*) from clients'))[0].count).toBe('0');
  });

  test('a token limited to route groups reaches those groups only', async () => {
    const limited = await createToken({ name: 'clients-only', routeGroups: ['clients'] });
    expect((await t.call('GET', 'clients', { token: limited.token })).status).toBe(200);
    const created = await t.call('POST', 'clients', { token: limited.token, body: { name: 'by-scoped-token' } });
    expect(created.status).not.toBe(403);
    for (const path of ['nodes', 'interfaces', 'tokens', 'auth/me', 'settings']) {
      const refused = await t.call('GET', path, { token: limited.token });
      expect([path, refused.status]).toEqual([path, 403]);
      expect(refused.body.error).toMatch(/may not call routes of the \w+ group/);
    }
  });

  test('an expired token is unknown (401), as a made-up one; it stays listed as expired', async () => {
    const soon = await createToken({ name: 'soon', expiresAt: inAnHour() });
    expect((await t.call('GET', 'auth/me', { token: soon.token })).status).toBe(200);
    await t.query(`update api_tokens set expires_at = now() - interval '1 second' where id = $1`, [soon.id]);
    const expired = await t.call('GET', 'auth/me', { token: soon.token });
    expect(expired.status).toBe(401);
    const listed = (await t.call('GET', 'tokens', { token: session })).body as { id: string; expired: boolean }[];
    expect(listed.find((token) => token.id === soon.id)?.expired).toBe(true);
  });

  test('a scoped token cannot make or turn back on a token wider than itself', async () => {
    const expiresAt = inAnHour();
    const narrow = await createToken({ name: 'narrow', expiresAt, routeGroups: ['tokens', 'clients'] });
    const issue = (body: Record<string, unknown>) =>
      t.call('POST', 'tokens', { token: narrow.token, body: { name: 'child', ...body } });
    const wider: [Record<string, unknown>, string][] = [
      [{ expiresAt }, 'routeGroups'],
      [{ expiresAt, routeGroups: ['tokens', 'nodes'] }, 'routeGroups'],
      [{ routeGroups: ['clients'] }, 'expiresAt'],
      [{ routeGroups: ['clients'], expiresAt: new Date(Date.now() + 7200_000).toISOString() }, 'expiresAt'],
    ];
    for (const [body, field] of wider) {
      const refused = await issue(body);
      expect([JSON.stringify(body), refused.status, refused.body.field]).toEqual([JSON.stringify(body), 403, field]);
    }
    const child = await issue({ expiresAt, routeGroups: ['clients'] });
    expect(child.status).toBe(201);
    expect(child.body).toMatchObject({ routeGroups: ['clients'], readOnly: false });

    // A wide token the user disabled is not turned back on by the narrow one.
    const wide = await createToken({ name: 'wide' });
    await t.call('PATCH', `tokens/${wide.id}`, { token: session, body: { enabled: false } });
    const reenable = await t.call('PATCH', `tokens/${wide.id}`, { token: narrow.token, body: { enabled: true } });
    expect([reenable.status, reenable.body.field]).toEqual([403, 'enabled']);
    expect((await t.call('GET', 'auth/me', { token: wide.token })).status).toBe(401);
  });

  test('a scoped token disables, renames or deletes only tokens no wider than itself', async () => {
    const expiresAt = inAnHour();
    const narrow = await createToken({ name: 'narrow-changer', expiresAt, routeGroups: ['tokens'] });
    caller = narrow.token;
    const wider = [
      await createToken({ name: 'unscoped' }),
      await createToken({ name: 'more-groups', expiresAt, routeGroups: ['tokens', 'clients'] }),
      await createToken({
        name: 'later',
        routeGroups: ['tokens'],
        expiresAt: new Date(Date.now() + 7200_000).toISOString(),
      }),
    ];
    for (const target of wider) {
      for (const body of [{ enabled: false }, { name: 'renamed' }])
        await asCaller.expectRefused('PATCH', `tokens/${target.id}`, body, 403, 'id', /reaches further/);
      await asCaller.expectRefused('DELETE', `tokens/${target.id}`, undefined, 403, 'id', /reaches further/);
    }
    expect((await t.call('GET', 'auth/me', { token: wider[0].token })).status).toBe(200);

    // No wider: the same scope, or narrower on every count; the token itself too.
    const equal = await createToken({ name: 'equal', expiresAt, routeGroups: ['tokens'] });
    const narrower = await createToken({
      name: 'narrower',
      readOnly: true,
      expiresAt: new Date(Date.now() + 1800_000).toISOString(),
      routeGroups: ['tokens'],
    });
    for (const target of [equal, narrower, narrow]) {
      const renamed = await t.call('PATCH', `tokens/${target.id}`, { token: narrow.token, body: { name: 'renamed' } });
      expect([target.name, renamed.status, renamed.body.name]).toEqual([target.name, 200, 'renamed']);
    }
    for (const target of [equal, narrower]) {
      const disabled = await t.call('PATCH', `tokens/${target.id}`, { token: narrow.token, body: { enabled: false } });
      expect([target.name, disabled.status, disabled.body.enabled]).toEqual([target.name, 200, false]);
      expect((await t.call('DELETE', `tokens/${target.id}`, { token: narrow.token })).status).toBe(200);
    }

    // A session is the user: it reaches every token of theirs, however wide.
    const [unscoped, moreGroups] = wider;
    expect((await t.call('PATCH', `tokens/${unscoped.id}`, { token: session, body: { name: 'renamed' } })).status).toBe(
      200,
    );
    const off = await t.call('PATCH', `tokens/${unscoped.id}`, { token: session, body: { enabled: false } });
    expect([off.status, off.body.enabled]).toEqual([200, false]);
    expect((await t.call('DELETE', `tokens/${moreGroups.id}`, { token: session })).status).toBe(200);
  });

  test("an owner's scoped token reaches other users' tokens by the same rule; out of reach stays 404", async () => {
    const expiresAt = inAnHour();
    const owners = await createToken({ name: 'owner-narrow', expiresAt, routeGroups: ['tokens'] });
    const admin = await createUser('admin');
    const adminsWide = await createToken({ name: 'admins-wide' }, admin.token);
    const adminsNarrow = await createToken({ name: 'admins-narrow', expiresAt, routeGroups: ['tokens'] }, admin.token);
    caller = owners.token;
    await asCaller.expectRefused('PATCH', `tokens/${adminsWide.id}`, { enabled: false }, 403, 'id', /reaches further/);
    await asCaller.expectRefused('DELETE', `tokens/${adminsWide.id}`, undefined, 403, 'id', /reaches further/);
    expect((await t.call('GET', 'auth/me', { token: adminsWide.token })).status).toBe(200);
    const off = await t.call('PATCH', `tokens/${adminsNarrow.id}`, { token: owners.token, body: { enabled: false } });
    expect([off.status, off.body.enabled]).toEqual([200, false]);

    // The admin's narrow token does not see the owner's tokens: 404 as for a made-up id, never 403.
    const adminsOwn = await createToken({ name: 'admins-own', expiresAt, routeGroups: ['tokens'] }, admin.token);
    caller = adminsOwn.token;
    const ownersWide = await createToken({ name: 'owners-wide' });
    for (const id of [ownersWide.id, owners.id, '00000000-0000-4000-8000-000000000000']) {
      await asCaller.expectRefused('PATCH', `tokens/${id}`, { enabled: false }, 404, 'id');
      await asCaller.expectRefused('DELETE', `tokens/${id}`, undefined, 404, 'id');
    }
  });

  test('last use is recorded at most once a minute per token', async () => {
    const used = await createToken({ name: 'used', readOnly: true });
    for (let i = 0; i < 5; i++) expect((await t.call('GET', 'auth/me', { token: used.token })).status).toBe(200);
    const [first] = await t.query<{ last_used_at: Date }>('select last_used_at from api_tokens where id = $1', [
      used.id,
    ]);
    expect(first.last_used_at).not.toBeNull();
    for (let i = 0; i < 5; i++) await t.call('GET', 'auth/me', { token: used.token });
    const [second] = await t.query<{ last_used_at: Date }>('select last_used_at from api_tokens where id = $1', [
      used.id,
    ]);
    expect(second.last_used_at.getTime()).toBe(first.last_used_at.getTime());
    // Once the last use is over a minute old, the next request records it again.
    await t.query(`update api_tokens set last_used_at = now() - interval '2 minutes' where id = $1`, [used.id]);
    await t.call('GET', 'auth/me', { token: used.token });
    const [third] = await t.query<{ last_used_at: Date }>('select last_used_at from api_tokens where id = $1', [
      used.id,
    ]);
    expect(Date.now() - third.last_used_at.getTime()).toBeLessThan(60_000);
  });

  test("a deleted user's tokens stop at once, scoped or not", async () => {
    const leaver = await createUser('admin');
    const scoped = await createToken({ name: 'leaver-scoped', readOnly: true }, leaver.token);
    expect((await t.call('GET', 'auth/me', { token: scoped.token })).status).toBe(200);
    await t.query('delete from users where id = $1', [leaver.id]);
    expect((await t.call('GET', 'auth/me', { token: scoped.token })).status).toBe(401);
  });

  test('the groups a token may name are exactly the ones the route table uses', () => {
    const used = new Set(
      t.panel.app
        .get(RouteTableService)
        .all()
        .map((route) => route.group),
    );
    expect([...used].sort()).toEqual([...ROUTE_GROUPS].sort());
  });
});
