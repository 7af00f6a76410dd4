import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { PeerCounters } from '../../libs/contracts/agent-link.js';
import { UsageService } from '../../apps/controller/src/clients/usage.service.js';
import { RouteTableService, type RouteEntry } from '../../apps/controller/src/docs/route-table.service.js';
import { jobEnded } from '../support/bulk-job.js';
import { openDatabaseFingerprint, type DatabaseFingerprint } from '../support/database-fingerprint.js';
import { importClients } from '../support/client-import.js';
import { wgEasyFile } from '../support/old-panels.js';
import { fixtures, type TestUser } from '../support/fixtures.js';
import { concretePath } from '../support/route-catalogue.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';

/**
 * Resellers (docs/operators.md, "Resellers"): a reseller reaches their own clients only, on every
 * route the route table grants them, and works under the ceilings the owner set.
 */

let t: TestPanel;
let ownerToken: string;
let fingerprint: DatabaseFingerprint;
const f = fixtures(() => ({ t, token: ownerToken }));

const GB = 1024 ** 3;
const DAY_MS = 86_400_000;
const inDays = (days: number) => new Date(Date.now() + days * DAY_MS).toISOString();

let node: { id: string };
let ifaceA: { id: string; name: string };
let ifaceB: { id: string; name: string };
let reseller: TestUser;
let other: TestUser;

beforeAll(async () => {
  t = await startTestPanel();
  ownerToken = await t.login();
  // A node of its own (its agent row takes counter batches) with two interfaces.
  const made = await f.createNodeWithInterface();
  node = made.node;
  ifaceA = made.iface;
  ifaceB = await f.createInterface({ nodeId: node.id });
  reseller = await f.createUser('reseller');
  other = await f.createUser('reseller');
  // What moves on its own (samples, deliveries to nodes) or by design on any request (sign-ins, last use).
  fingerprint = await openDatabaseFingerprint(t, [
    'system_samples',
    'login_throttles',
    'sessions',
    'api_tokens.last_used_at',
    'nodes.delivered_revision',
    'nodes.applied_revision',
    'nodes.updated_at',
  ]);
}, 60_000);

afterAll(async () => {
  await fingerprint?.close();
  await t?.stop();
});

const as = (user: { token: string }) => (method: string, path: string, body?: unknown) =>
  t.call(method, path, { token: user.token, body });

async function createAs(user: { token: string }, body: Record<string, unknown>) {
  return as(user)('POST', 'clients', { name: `c-${randomUUID().slice(0, 8)}`, interfaceIds: [ifaceA.id], ...body });
}

async function setLimits(user: { id: string }, limits: Record<string, unknown>) {
  const answer = await t.call('PATCH', `admins/${user.id}`, { token: ownerToken, body: { limits } });
  expect([answer.status, answer.body.reseller]).toEqual([200, expect.objectContaining(limits)]);
  return answer.body;
}

/**
 * An interface outside a reseller's ceilings answers exactly as a made-up id does (404, the same
 * body with the id it names), so a reseller learns nothing of the interfaces they may not use.
 */
async function expectHiddenInterface(
  ask: (interfaceId: string) => Promise<{ status: number; body: any }>,
  forbiddenId: string,
  field = 'interfaceIds',
) {
  const madeUp = randomUUID();
  const [forbidden, unknown] = [await ask(forbiddenId), await ask(madeUp)];
  expect([unknown.status, unknown.body]).toEqual([
    404,
    expect.objectContaining({ error: `interface ${madeUp} not found`, field }),
  ]);
  expect([forbidden.status, JSON.stringify(forbidden.body)]).toEqual([
    404,
    JSON.stringify(unknown.body).replaceAll(madeUp, forbiddenId),
  ]);
}

/** Starts a bulk job as `user` and waits for it to end (so it changes no row during a later comparison). */
async function endedJob(user: { token: string }, path: string, body: unknown): Promise<string> {
  const started = await as(user)('POST', path, body);
  expect([path, started.status]).toEqual([path, 202]);
  await jobEnded((jobPath) => as(user)('GET', jobPath), started.body.id);
  return started.body.id;
}

describe('scope: their own clients only', () => {
  let mine: { id: string; devices: { id: string }[] };
  let theirs: { id: string; devices: { id: string }[] };
  let owners: { id: string; devices: { id: string }[] };
  /** Bulk jobs another reseller and the owner started. */
  let foreignJobs: string[];

  beforeAll(async () => {
    const made = await createAs(reseller, {
      name: 'mine-alpha',
      deviceLimit: 2,
      deviceNames: ['phone', 'laptop'],
      groups: ['mine-group'],
    });
    expect(made.status).toBe(201);
    mine = made.body;
    theirs = (
      await createAs(other, {
        name: 'theirs-alpha',
        deviceLimit: 2,
        deviceNames: ['phone', 'laptop'],
        groups: ['theirs-group'],
      })
    ).body;
    owners = await f.createClient({ name: 'owners-alpha', interfaceIds: [ifaceA.id], deviceNames: ['phone'] });
    // Enabling active clients changes nothing: jobs that exist, for the ids the reseller may not read.
    foreignJobs = [
      await endedJob(other, 'clients/bulk', { ids: [theirs.id], action: 'enable' }),
      await endedJob({ token: ownerToken }, 'clients/bulk', { ids: [owners.id], action: 'enable' }),
    ];
  });

  test('a client belongs to whoever created it', async () => {
    const rows = await t.query<{ id: string; owner_id: string }>(
      'select id, owner_id from clients where id = any($1::uuid[])',
      [[mine.id, theirs.id, owners.id]],
    );
    const ownerId = (await t.query<{ id: string }>(`select id from users where role = 'owner'`))[0].id;
    expect(Object.fromEntries(rows.map((row) => [row.id, row.owner_id]))).toEqual({
      [mine.id]: reseller.id,
      [theirs.id]: other.id,
      [owners.id]: ownerId,
    });
  });

  test('lists, searches, filters and the overview show their own clients only; the owner sees all', async () => {
    const call = as(reseller);
    const ids = async (query: string) =>
      ((await call('GET', `clients?${query}`)).body.items as { id: string }[]).map((item) => item.id);
    expect(await ids('perPage=200')).toEqual([mine.id]);
    expect(await ids('search=alpha')).toEqual([mine.id]);
    expect(await ids(`interfaceId=${ifaceA.id}`)).toEqual([mine.id]);
    expect(await ids('status=active&sort=name')).toEqual([mine.id]);
    expect((await call('GET', 'clients?search=theirs')).body).toMatchObject({ items: [], total: 0 });
    const overview = await call('GET', 'overview');
    expect(overview.status).toBe(200);
    expect(overview.body).toMatchObject({ scope: 'own', clients: { total: 1, active: 1 } });
    expect(overview.body.reseller.interfaces.map((i: { id: string }) => i.id).sort()).toEqual(
      [ifaceA.id, ifaceB.id].sort(),
    );
    const all = await t.call('GET', 'clients?search=alpha', { token: ownerToken });
    expect(all.body.total).toBe(3);
    expect((await t.call('GET', 'overview', { token: ownerToken })).body).toMatchObject({
      scope: 'panel',
      reseller: null,
    });
  });

  test('another operator’s client or device id answers 404 as a made-up one, on every route, and changes no row', async () => {
    const routes: RouteEntry[] = t.panel.app
      .get(RouteTableService)
      .all()
      .filter((route) => !route.public && route.roles.includes('reseller') && route.path.includes(':id'))
      // One's own sessions and tokens have their own rule (another user's id is a 404 to anyone: docs/roles.md).
      .filter((route) => !['auth', 'tokens'].includes(route.path.split('/')[0]));
    // Every client, device and job route the route table grants a reseller (read from the table, not
    // listed here): a new route with an id a reseller may call must say here which ids it takes.
    expect(routes.length).toBeGreaterThanOrEqual(14);
    const foreignClients = [theirs.id, owners.id];
    const foreignDevices = [...theirs.devices, ...owners.devices].map((device) => device.id);
    const before = await fingerprint.read();
    const failures: string[] = [];
    for (const route of routes) {
      const resource = route.path.split('/')[0];
      expect(['clients', 'devices', 'jobs']).toContain(resource);
      const madeUp = randomUUID();
      const foreign = { clients: foreignClients, devices: foreignDevices, jobs: foreignJobs }[resource]!;
      const ids = [
        ...foreign,
        // A device id on a client route and the other way round, and ids of nothing at all.
        ...(resource === 'clients' ? foreignDevices.slice(0, 1) : foreignClients.slice(0, 1)),
        madeUp,
        randomUUID(),
      ];
      const call = (id: string) =>
        t.call(
          route.method,
          concretePath(route.fullPath, () => id),
          {
            token: reseller.token,
            body: route.example ?? undefined,
          },
        );
      const nothing = await call(madeUp);
      for (const id of ids) {
        const answer = await call(id);
        if (answer.status !== 404 || JSON.stringify(answer.body) !== JSON.stringify(nothing.body))
          failures.push(`${route.method} ${route.path} ${id}: ${answer.status} ${JSON.stringify(answer.body)}`);
      }
    }
    expect(failures).toEqual([]);
    expect(nothing404Body(await as(reseller)('GET', `clients/${theirs.id}`))).toEqual(
      nothing404Body(await as(reseller)('GET', `clients/${randomUUID()}`)),
    );
    expect(await fingerprint.read()).toEqual(before);
    // Their own client answers on the same routes.
    expect((await as(reseller)('GET', `clients/${mine.id}`)).status).toBe(200);
    expect((await as(reseller)('GET', `devices/${mine.devices[0].id}/profiles`)).status).toBe(200);
    expect((await as(reseller)('GET', `clients/${mine.id}/subscription`)).status).toBe(200);
  });

  test('a selection (bulk actions, groups) naming another operator’s client is refused as a made-up id, changing no row', async () => {
    // Every route granted to a reseller that takes a selection of clients (ids or filter) in its body,
    // read from the route table: each is called with another operator's client id in `ids`.
    const routes = t.panel.app
      .get(RouteTableService)
      .all()
      .filter((route) => !route.public && route.roles.includes('reseller') && route.method === 'POST')
      .filter((route) => {
        const example = route.example as Record<string, unknown> | undefined;
        return example !== undefined && ('ids' in example || 'filter' in example);
      });
    expect(routes.map((route) => route.path).sort()).toEqual(
      expect.arrayContaining([
        'clients/adjust',
        'clients/bulk',
        'clients/extend',
        'clients/purge',
        'clients/reset-all',
        'clients/servers/attach',
        'clients/servers/detach',
        'groups/assign',
      ]),
    );
    const before = await fingerprint.read();
    const failures: string[] = [];
    for (const route of routes) {
      const { filter: _filter, ...example } = route.example as Record<string, unknown>;
      // An interface that exists, so what is refused is the selection, not the interface.
      const body = (ids: string[]) => ({
        ...example,
        ...('interfaceIds' in example && { interfaceIds: [ifaceA.id] }),
        ids,
      });
      // Alone, and beside their own client: each answered as the same selection with a made-up id.
      for (const selection of [(id: string) => [id], (id: string) => [mine.id, id]]) {
        const nothing = await as(reseller)('POST', route.path, body(selection(randomUUID())));
        expect([route.path, nothing.status, nothing.body.field]).toEqual([route.path, 404, 'ids']);
        for (const id of [theirs.id, owners.id]) {
          const answer = await as(reseller)('POST', route.path, body(selection(id)));
          if (answer.status !== 404 || JSON.stringify(answer.body) !== JSON.stringify(nothing.body))
            failures.push(`${route.path} ${selection(id)}: ${answer.status} ${JSON.stringify(answer.body)}`);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(await fingerprint.read()).toEqual(before);
  });

  test('a filter, the ids it selects and the group names reach their own clients only', async () => {
    expect((await as(reseller)('GET', 'clients/ids?search=alpha')).body).toEqual({ ids: [mine.id], total: 1 });
    expect((await as(reseller)('GET', 'clients/ids')).body.ids).toEqual([mine.id]);
    const names = (await as(reseller)('GET', 'groups/names')).body.names as string[];
    expect(names).toContain('mine-group');
    expect(names).not.toContain('theirs-group');
    expect((await t.call('GET', 'groups/names', { token: ownerToken })).body.names).toEqual(
      expect.arrayContaining(['mine-group', 'theirs-group']),
    );
    // A group only another operator's clients carry is as a made-up name to act on.
    const action = (name: string) => as(reseller)('POST', 'groups/action', { name, action: 'disable' });
    const made = await action(`made-up-${randomUUID()}`);
    expect([made.status, made.body.field]).toEqual([404, 'name']);
    expect((await action('theirs-group')).body).toEqual(made.body);
    // A filter selecting everything disables theirs alone; the job is theirs to read, not the other's.
    const disabled = await endedJob(reseller, 'clients/bulk', { filter: {}, action: 'disable' });
    const job = await as(reseller)('GET', `jobs/${disabled}`);
    expect(job.body).toMatchObject({ state: 'completed', progress: { total: 1, changed: 1 } });
    expect((await as(other)('GET', `jobs/${disabled}`)).status).toBe(404);
    expect((await t.call('GET', `jobs/${disabled}`, { token: ownerToken })).status).toBe(200);
    const statuses = await t.query<{ id: string; status: string }>(
      'select id, status from clients where id = any($1::uuid[]) order by id',
      [[mine.id, theirs.id, owners.id]],
    );
    expect(Object.fromEntries(statuses.map((row) => [row.id, row.status]))).toEqual({
      [mine.id]: 'disabled',
      [theirs.id]: 'active',
      [owners.id]: 'active',
    });
    // Groups: assigning their own client passes; making, renaming and deleting groups stays the staff's.
    expect((await as(reseller)('POST', 'groups/assign', { ids: [mine.id], name: 'mine-too' })).body).toEqual({
      name: 'mine-too',
      clients: 1,
    });
    for (const [path, body] of [
      ['groups', { name: 'mine-group' }],
      ['groups/rename', { name: 'mine-group', newName: 'x' }],
      ['groups/delete', { name: 'theirs-group' }],
    ] as const)
      expect([path, (await as(reseller)('POST', path, body)).status]).toEqual([path, 403]);
    expect((await as(reseller)('GET', 'groups')).status).toBe(403);
    await endedJob(reseller, 'clients/bulk', { ids: [mine.id], action: 'enable' });
  });

  test('what is not about clients is closed to them: nodes, interfaces, settings, backups, operators, logs', async () => {
    for (const [method, path] of [
      ['GET', 'nodes'],
      ['GET', 'interfaces'],
      ['GET', 'settings'],
      ['GET', 'backups'],
      ['GET', 'admins'],
      ['GET', 'logs'],
      ['GET', 'overview/full'],
      ['GET', 'system'],
      ['GET', `admins/${reseller.id}`],
      ['PATCH', `admins/${reseller.id}`],
      ['POST', `admins/${reseller.id}/reset-usage`],
    ] as const) {
      const body = method === 'PATCH' ? { role: 'owner', limits: { maxClients: null } } : undefined;
      expect([method, path, (await as(reseller)(method, path, body)).status]).toEqual([method, path, 403]);
    }
  });
});

describe('an attacker holding a reseller’s or an admin’s credentials', () => {
  test('no body promotes, re-owns or lifts a ceiling; no token reaches further; nothing changes', async () => {
    const attacker = await f.createUser('reseller');
    await setLimits(attacker, { maxClients: 5, maxQuotaBytes: GB });
    const admin = await f.createUser('admin');
    const own = await createAs(attacker, { quotaBytes: GB / 2 });
    expect(own.status).toBe(201);
    const victim = (await createAs(other, {})).body;
    const before = await fingerprint.read();
    const refusedAs = async (user: { token: string }, method: string, path: string, body: unknown, status: number) => {
      const answer = await t.call(method, path, { token: user.token, body });
      expect([method, path, answer.status]).toEqual([method, path, status]);
    };
    // Re-owning a client, one's own or another's, through any body: an undeclared field (400).
    await refusedAs(attacker, 'POST', 'clients', { name: 'x', interfaceIds: [ifaceA.id], ownerId: other.id }, 400);
    await refusedAs(attacker, 'PATCH', `clients/${own.body.id}`, { ownerId: other.id }, 400);
    await refusedAs(attacker, 'PATCH', `clients/${own.body.id}`, { owner_id: other.id }, 400);
    // Promotion or ceilings through one's own account: refused fields; the operators' routes are the owner's.
    await refusedAs(attacker, 'PATCH', 'auth/me', { role: 'owner' }, 400);
    await refusedAs(attacker, 'PATCH', 'auth/me', { limits: { maxClients: null } }, 400);
    await refusedAs(attacker, 'PATCH', `admins/${attacker.id}`, { limits: { maxClients: null } }, 403);
    await refusedAs(attacker, 'POST', `admins/${attacker.id}/reset-usage`, undefined, 403);
    await refusedAs(attacker, 'POST', 'admins', { username: 'sub', password: 'long-enough-1', role: 'viewer' }, 403);
    await refusedAs(admin, 'PATCH', `admins/${attacker.id}`, { limits: { maxClients: null } }, 403);
    await refusedAs(admin, 'POST', `admins/${attacker.id}/reset-usage`, undefined, 403);
    await refusedAs(admin, 'PATCH', `admins/${admin.id}`, { role: 'owner' }, 403);
    // Another's client, by id or by filter: nothing.
    await refusedAs(attacker, 'PATCH', `clients/${victim.id}`, { quotaBytes: 1 }, 404);
    expect((await as(attacker)('GET', `clients?search=${encodeURIComponent(victim.name)}`)).body.total).toBe(0);
    expect(await fingerprint.read()).toEqual(before);
    // A token of theirs, even one asking for the operators' group, reaches no further than they do.
    const issued = await t.call('POST', 'tokens', {
      token: attacker.token,
      body: { name: 'wide', routeGroups: ['admins', 'clients'] },
    });
    expect(issued.status).toBe(201);
    const token = { token: issued.body.token as string };
    await refusedAs(token, 'GET', 'admins', undefined, 403);
    await refusedAs(token, 'PATCH', `admins/${attacker.id}`, { limits: { maxClients: null } }, 403);
    await refusedAs(token, 'GET', `clients/${victim.id}`, undefined, 404);
    expect((await as(token)('GET', 'clients')).body.items.map((c: { id: string }) => c.id)).toEqual([own.body.id]);
    // Ceilings hold through a token too.
    expect((await createAs(token, { quotaBytes: 2 * GB })).body).toMatchObject({ ceiling: 'maxQuotaBytes' });
  });
});

describe('ceilings', () => {
  let capped: TestUser;
  beforeAll(async () => {
    capped = await f.createUser('reseller');
  });

  test('each ceiling refuses a create or change past it, naming the field, the ceiling and the room left', async () => {
    const set = await setLimits(capped, {
      maxClients: 3,
      maxQuotaBytes: 10 * GB,
      maxExpiryDays: 30,
      interfaceIds: [ifaceA.id],
    });
    expect(set.reseller).toMatchObject({ clients: 0, clientsLeft: 3, poolUsedBytes: 0, poolLeftBytes: null });
    const fine = { quotaBytes: 5 * GB, expiresAt: inDays(10) };
    const cases: [Record<string, unknown>, string, string, unknown][] = [
      [{ ...fine, quotaBytes: 0 }, 'quotaBytes', 'maxQuotaBytes', 10 * GB],
      [{ ...fine, quotaBytes: 11 * GB }, 'quotaBytes', 'maxQuotaBytes', 10 * GB],
      [{ ...fine, expiresAt: null }, 'expiresAt', 'maxExpiryDays', 30],
      [{ ...fine, expiresAt: inDays(31) }, 'expiresAt', 'maxExpiryDays', 30],
      [{ quotaBytes: 5 * GB, startOnFirstUse: true, durationDays: 45 }, 'durationDays', 'maxExpiryDays', 30],
      [{ ...fine, deviceLimit: 0 }, 'deviceLimit', 'maxClients', 10],
      [{ ...fine, deviceLimit: 11 }, 'deviceLimit', 'maxClients', 10],
    ];
    const before = await fingerprint.read();
    for (const [body, field, ceiling, remaining] of cases) {
      const refused = await createAs(capped, body);
      expect([refused.status, refused.body]).toEqual([
        403,
        {
          error: expect.any(String),
          field,
          errors: [expect.objectContaining({ field, code: 'ceiling' })],
          ceiling,
          remaining,
        },
      ]);
    }
    // An interface not theirs answers as a made-up one.
    await expectHiddenInterface((id) => createAs(capped, { ...fine, interfaceIds: [ifaceA.id, id] }), ifaceB.id);
    expect(await fingerprint.read()).toEqual(before);

    const made = await createAs(capped, fine);
    expect(made.status).toBe(201);
    // A change or an extension past a ceiling is refused the same way; one within passes.
    const patch = (body: Record<string, unknown>) => as(capped)('PATCH', `clients/${made.body.id}`, body);
    expect((await patch({ quotaBytes: 20 * GB })).body).toMatchObject({ field: 'quotaBytes', remaining: 10 * GB });
    expect((await patch({ expiresAt: inDays(60) })).body).toMatchObject({ field: 'expiresAt', remaining: 30 });
    expect((await patch({ expiresAt: null })).body).toMatchObject({ field: 'expiresAt', ceiling: 'maxExpiryDays' });
    await expectHiddenInterface((id) => patch({ interfaceIds: [id] }), ifaceB.id);
    expect((await patch({ deviceLimit: 0 })).body).toMatchObject({ field: 'deviceLimit', ceiling: 'maxClients' });
    expect((await patch({ expiresAt: inDays(29), note: 'renewed' })).status).toBe(200);
    // Nodes: an interface on a node outside their nodes answers as a made-up one.
    await setLimits(capped, { interfaceIds: null, nodeIds: [randomUUID()] });
    await expectHiddenInterface((id) => createAs(capped, { ...fine, interfaceIds: [id] }), ifaceA.id);
    await setLimits(capped, { nodeIds: [node.id] });

    // The client count: two more make three, the fourth is refused with no room left.
    expect((await createAs(capped, fine)).status).toBe(201);
    expect((await createAs(capped, fine)).status).toBe(201);
    const full = await createAs(capped, fine);
    expect([full.status, full.body]).toMatchObject([403, { field: 'maxClients', ceiling: 'maxClients', remaining: 0 }]);
    const room = (await as(capped)('GET', 'overview')).body.reseller.ceilings;
    expect(room).toMatchObject({ maxClients: 3, clientsLeft: 0, maxQuotaBytes: 10 * GB, maxExpiryDays: 30 });
  });

  test('bulk actions and an import keep to the ceilings: refused whole, naming the room left; within them they run', async () => {
    const bulker = await f.createUser('reseller');
    await setLimits(bulker, { maxClients: 3, maxQuotaBytes: 10 * GB, maxExpiryDays: 30, interfaceIds: [ifaceA.id] });
    const made = await createAs(bulker, { quotaBytes: 5 * GB, expiresAt: inDays(10) });
    expect(made.status).toBe(201);
    const ids = [made.body.id];
    const post = (path: string, body: unknown) => as(bulker)('POST', path, body);
    const [{ subnet }] = await t.query<{ subnet: string }>('select subnet from interfaces where id = $1', [ifaceA.id]);
    const wgEasy = (count: number) =>
      wgEasyFile(count, subnet.split('.').slice(0, 2).join('.'), {
        namePrefix: `imp-${randomUUID().slice(0, 6)}-`,
        first: 180,
      });
    const before = await fingerprint.read();
    const refusals: [Promise<{ status: number; body: any }>, string, string, unknown][] = [
      // 5 GB + 6 GB passes 10 GB a client; 5 more fit.
      [post('clients/adjust', { ids, deltaBytes: 6 * GB }), 'deltaBytes', 'maxQuotaBytes', 5 * GB],
      // From their expiry (10 days ahead), 25 days reach past 30 days from now; 20 fit.
      [post('clients/extend', { ids, days: 25 }), 'days', 'maxExpiryDays', 20],
      [post('clients/extend', { filter: {}, days: 31, from: 'now' }), 'days', 'maxExpiryDays', 30],
      // An import's new clients count at once: three more do not fit three; two do, but unlimited quotas do not.
      [importClients(t, bulker.token, wgEasy(3), { interfaceId: ifaceA.id }), 'maxClients', 'maxClients', 2],
      [importClients(t, bulker.token, wgEasy(2), { interfaceId: ifaceA.id }), 'quotaBytes', 'maxQuotaBytes', 10 * GB],
      [
        importClients(t, bulker.token, wgEasy(3), { interfaceId: ifaceA.id, dryRun: true }),
        'maxClients',
        'maxClients',
        2,
      ],
    ];
    for (const [pending, field, ceiling, remaining] of refusals) {
      const refused = await pending;
      expect([refused.status, refused.body]).toEqual([
        403,
        expect.objectContaining({ field, ceiling, remaining, errors: [expect.objectContaining({ code: 'ceiling' })] }),
      ]);
    }
    // An interface not theirs, to attach to or import onto, answers as a made-up one.
    await expectHiddenInterface((id) => post('clients/servers/attach', { ids, interfaceIds: [id] }), ifaceB.id);
    for (const dryRun of [true, false])
      await expectHiddenInterface(
        (id) => importClients(t, bulker.token, wgEasy(1), { interfaceId: id, dryRun }),
        ifaceB.id,
        'interfaceId',
      );
    expect(await fingerprint.read()).toEqual(before);

    // Within them: a raise to the ceiling, an extension to it, a lowering (never refused).
    const ended = async (path: string, body: unknown) => {
      const started = await post(path, body);
      expect([path, started.status]).toEqual([path, 202]);
      return jobEnded((jobPath) => as(bulker)('GET', jobPath), started.body.id);
    };
    expect(await ended('clients/adjust', { ids, deltaBytes: 5 * GB })).toMatchObject({ state: 'completed' });
    expect(await ended('clients/extend', { ids, days: 19 })).toMatchObject({ state: 'completed' });
    expect(await ended('clients/adjust', { ids, deltaBytes: -GB })).toMatchObject({ state: 'completed' });
    const [row] = await t.query<{ quota_bytes: string; expires_at: Date }>(
      'select quota_bytes, expires_at from clients where id = $1',
      [made.body.id],
    );
    expect(Number(row.quota_bytes)).toBe(9 * GB);
    expect(row.expires_at.getTime()).toBeGreaterThan(Date.now() + 28 * DAY_MS);
    expect(row.expires_at.getTime()).toBeLessThanOrEqual(Date.now() + 30 * DAY_MS);
  });

  test('parallel bulk raises and extensions stop at the ceiling: each job re-checks it as it runs', async () => {
    const racer = await f.createUser('reseller');
    await setLimits(racer, { maxClients: 3, maxQuotaBytes: 2 * GB, maxExpiryDays: 30, trafficPoolBytes: 10 * GB });
    const made = await createAs(racer, { quotaBytes: 1000, expiresAt: inDays(1) });
    expect(made.status).toBe(201);
    const ids = [made.body.id];
    const post = (path: string, body: unknown) => as(racer)('POST', path, body);
    // Each fits alone at enqueue; together they would reach ~117 days and 16 GB.
    const started = await Promise.all([
      ...Array.from({ length: 8 }, () => post('clients/extend', { ids, days: 29 })),
      ...Array.from({ length: 8 }, () => post('clients/adjust', { ids, deltaBytes: 1_999_999_000 })),
    ]);
    const jobs = await Promise.all(
      started
        .filter((answer) => answer.status === 202)
        .map((answer) => jobEnded((jobPath) => as(racer)('GET', jobPath), answer.body.id)),
    );
    for (const answer of started) expect([202, 403]).toContain(answer.status);
    expect(jobs.every((job) => job.state === 'completed')).toBe(true);
    const [row] = await t.query<{ quota_bytes: string; expires_at: Date }>(
      'select quota_bytes, expires_at from clients where id = $1',
      [made.body.id],
    );
    expect(Number(row.quota_bytes)).toBe(1000 + 1_999_999_000);
    expect(row.expires_at.getTime()).toBeLessThanOrEqual(Date.now() + 30 * DAY_MS);
    // Exactly one raise and one extension changed the client; the jobs after them skipped it, saying why.
    const changed = (action: string) =>
      jobs.filter((job) => job.action === action && (job.progress as { changed: number }).changed === 1);
    expect([changed('adjust').length, changed('extend').length]).toEqual([1, 1]);
    const skipped = jobs.filter((job) => (job.progress as { changed: number }).changed === 0);
    expect(skipped.map((job) => (job.progress as { skippedReason: string }).skippedReason)).toEqual(
      skipped.map(() => 'ceiling'),
    );
  });

  test('a reset-all or an attach started within the ceilings skips what they no longer allow when it runs', async () => {
    const late = await f.createUser('reseller');
    await setLimits(late, { trafficPoolBytes: 10 * GB, interfaceIds: [ifaceA.id, ifaceB.id] });
    const made = await createAs(late, { quotaBytes: GB });
    expect(made.status).toBe(201);
    const ids = [made.body.id];
    await t.query('update clients set used_bytes = 700, up_bytes = 700 where id = $1', ids);
    // The client's row held by another transaction: the jobs are accepted (within the ceilings)
    // and wait at their first chunk while the owner spends the pool and narrows the interfaces.
    const holder = new pg.Client({ connectionString: t.database.url });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select id from clients where id = $1 for update', ids);
      const reset = await as(late)('POST', 'clients/reset-all', { ids });
      const attach = await as(late)('POST', 'clients/servers/attach', { ids, interfaceIds: [ifaceB.id] });
      expect([reset.status, attach.status]).toEqual([202, 202]);
      await t.query('update reseller_limits set pool_used_bytes = traffic_pool_bytes where user_id = $1', [late.id]);
      await setLimits(late, { interfaceIds: [ifaceA.id] });
      await holder.query('commit');
      const ended = await Promise.all(
        [reset, attach].map((started) => jobEnded((jobPath) => as(late)('GET', jobPath), started.body.id)),
      );
      for (const job of ended)
        expect(job).toMatchObject({ state: 'completed', progress: { changed: 0, skippedReason: 'ceiling' } });
    } finally {
      await holder.end();
    }
    const [row] = await t.query<{ used_bytes: string }>('select used_bytes from clients where id = $1', ids);
    expect(Number(row.used_bytes)).toBe(700);
    expect(await f.count(`client_interfaces where client_id = '${made.body.id}'`)).toBe(1);
  });

  test('a device added by a reseller keeps to their interface and node ceilings and a bounded device count', async () => {
    const adder = await f.createUser('reseller');
    const made = await createAs(adder, { deviceLimit: 0, interfaceIds: [ifaceA.id, ifaceB.id] });
    expect(made.status).toBe(201);
    const add = (name: string) => as(adder)('POST', `clients/${made.body.id}/devices`, { name });
    await setLimits(adder, { interfaceIds: [ifaceA.id] });
    const outside = await add('tablet');
    expect([outside.status, outside.body]).toEqual([
      403,
      expect.objectContaining({ field: 'interfaceIds[1]', ceiling: 'interfaceIds', remaining: [ifaceA.id] }),
    ]);
    await setLimits(adder, { interfaceIds: null, nodeIds: [randomUUID()] });
    expect((await add('tablet')).body).toMatchObject({ field: 'interfaceIds[0]', ceiling: 'nodeIds' });
    expect(await f.count(`devices where client_id = '${made.body.id}'`)).toBe(1);
    // Under a client ceiling, a client of theirs with deviceLimit 0 (set before it) takes at most 10.
    await setLimits(adder, { nodeIds: null, maxClients: 3 });
    for (let i = 1; i < 10; i++) expect((await add(`d${i}`)).status).toBe(201);
    const eleventh = await add('d10');
    expect([eleventh.status, eleventh.body.field]).toEqual([409, 'deviceLimit']);
    expect(await f.count(`devices where client_id = '${made.body.id}'`)).toBe(10);
  });

  test('creates racing at the ceiling: exactly the room left passes', async () => {
    const racer = await f.createUser('reseller');
    await setLimits(racer, { maxClients: 2 });
    expect((await createAs(racer, {})).status).toBe(201);
    const answers = await Promise.all(Array.from({ length: 6 }, () => createAs(racer, {})));
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 403, 403, 403, 403, 403]);
    expect(await f.count(`clients where owner_id = '${racer.id}'`)).toBe(2);
  });

  test('the pool counts their clients’ traffic as it accrues; used up, it cuts their clients; reset-usage starts it afresh', async () => {
    const pooled = await f.createUser('reseller');
    const created = await createAs(pooled, { quotaBytes: 0 });
    expect(created.status).toBe(201);
    // An idle client of theirs (no traffic of its own), and one over its own quota by the end.
    const idle = (await createAs(pooled, { quotaBytes: 0 })).body;
    const small = (await createAs(pooled, { quotaBytes: 500 })).body;
    const statuses = async () =>
      Object.fromEntries(
        (
          await t.query<{ id: string; status: string }>('select id, status from clients where owner_id = $1', [
            pooled.id,
          ])
        ).map((row) => [row.id, row.status]),
      );
    const allOf = (status: string) => ({ [created.body.id]: status, [idle.id]: status, [small.id]: status });
    await setLimits(pooled, { trafficPoolBytes: 5000 });
    const [account] = await f.accountsOf(created.body.id);
    const usage = t.panel.app.get(UsageService);
    const peer = (rx: number, tx: number): PeerCounters => ({
      interface: ifaceA.name,
      publicKey: account.public_key,
      rxBytes: rx,
      txBytes: tx,
      lastHandshake: null,
      endpoint: null,
    });
    const seq = Number(
      (await t.query<{ s: string }>('select counters_seq as s from node_agents where node_id = $1', [node.id]))[0].s,
    );
    await usage.recordCounters(node.id, seq + 1, [peer(1000, 2000)]);
    const overview = async () => (await as(pooled)('GET', 'overview')).body;
    expect((await overview()).reseller.pool).toMatchObject({ usedBytes: 3000, totalBytes: 5000, leftBytes: 2000 });
    expect((await overview()).usage).toMatchObject({ usedBytes: 3000 });
    // A repeated batch counts nothing; a client's traffic reset gives the pool nothing back.
    await usage.recordCounters(node.id, seq + 1, [peer(1000, 2000)]);
    expect((await as(pooled)('POST', `clients/${created.body.id}/reset`)).status).toBe(200);
    expect((await overview()).reseller.pool.usedBytes).toBe(3000);
    // A quota beyond what the pool has left (or unlimited) is refused.
    expect((await createAs(pooled, { quotaBytes: 2001 })).body).toMatchObject({
      field: 'quotaBytes',
      ceiling: 'trafficPoolBytes',
      remaining: 2000,
    });
    expect(await statuses()).toEqual(allOf('active'));
    // The batch that uses the pool up cuts every client of theirs, as a spent quota does: their node
    // is told (its revision moves) and drops the peers.
    const revision = await f.revision(node.id);
    await usage.recordCounters(node.id, seq + 2, [peer(2000, 1000)]);
    expect((await overview()).reseller.pool).toMatchObject({ usedBytes: 6000, leftBytes: 0 });
    expect(await statuses()).toEqual(allOf('exhausted'));
    expect(await f.revision(node.id)).toBeGreaterThan(revision);
    expect((await as(pooled)('POST', `clients/${created.body.id}/reset`)).body).toMatchObject({
      ceiling: 'trafficPoolBytes',
      remaining: 0,
    });
    expect((await as(pooled)('POST', 'clients/reset-all', { filter: {} })).body).toMatchObject({
      ceiling: 'trafficPoolBytes',
      remaining: 0,
    });
    // The owner raises the pool: they come back at once (one over its own quota would stay out);
    // lowering it below what was used cuts them again.
    let moved = await f.revision(node.id);
    await setLimits(pooled, { trafficPoolBytes: 8000 });
    expect(await statuses()).toEqual(allOf('active'));
    expect(await f.revision(node.id)).toBeGreaterThan(moved);
    await setLimits(pooled, { trafficPoolBytes: 6000 });
    expect(await statuses()).toEqual(allOf('exhausted'));
    await t.query('update clients set used_bytes = 600 where id = $1', [small.id]);
    // The owner sees the pool, and resets it.
    const listed = (await t.call('GET', 'admins', { token: ownerToken })).body.find(
      (user: { id: string }) => user.id === pooled.id,
    );
    expect(listed.reseller).toMatchObject({ poolUsedBytes: 6000, poolLeftBytes: 0, clients: 3 });
    moved = await f.revision(node.id);
    const reset = await t.call('POST', `admins/${pooled.id}/reset-usage`, { token: ownerToken });
    expect([reset.status, reset.body.reseller]).toEqual([
      200,
      expect.objectContaining({ poolUsedBytes: 0, poolLeftBytes: 6000, poolResetAt: expect.any(String) }),
    ]);
    // Reset, the pool readmits them; the one over its own 500 bytes stays exhausted.
    expect(await statuses()).toEqual({ ...allOf('active'), [small.id]: 'exhausted' });
    expect(await f.revision(node.id)).toBeGreaterThan(moved);
    expect((await createAs(pooled, { quotaBytes: 4000 })).status).toBe(201);
  });

  test("a batch is the reseller's, fits maxClients whole and every other ceiling; export and import reach their own", async () => {
    const batcher = await f.createUser('reseller');
    await setLimits(batcher, { maxClients: 5, maxQuotaBytes: 10 * GB, interfaceIds: [ifaceA.id] });
    const batch = (body: Record<string, unknown>) =>
      as(batcher)('POST', 'clients/batch', {
        namePrefix: `rb-${randomUUID().slice(0, 6)}-`,
        count: 3,
        quotaBytes: 5 * GB,
        interfaceIds: [ifaceA.id],
        ...body,
      });
    const before = await fingerprint.read();
    // Six do not fit five: refused whole, the room left named; a quota or an interface past its ceiling too.
    expect((await batch({ count: 6 })).body).toMatchObject({
      field: 'maxClients',
      ceiling: 'maxClients',
      remaining: 5,
    });
    expect((await batch({ quotaBytes: 11 * GB })).body).toMatchObject({
      field: 'quotaBytes',
      ceiling: 'maxQuotaBytes',
    });
    await expectHiddenInterface((id) => batch({ interfaceIds: [id] }), ifaceB.id);
    expect(await fingerprint.read()).toEqual(before);

    const made = await batch({});
    expect(made.status).toBe(201);
    const owners = await t.query<{ owner_id: string }>('select distinct owner_id from clients where id = any($1)', [
      made.body.ids,
    ]);
    expect(owners).toEqual([{ owner_id: batcher.id }]);
    const listed = await as(batcher)('GET', 'clients?perPage=50');
    expect(listed.body.total).toBe(3);
    // Three of five: another three do not fit, two do.
    expect((await batch({})).body).toMatchObject({ field: 'maxClients', remaining: 2 });
    expect((await batch({ count: 2 })).status).toBe(201);

    // Export: their own five, no keys.
    const foreign = (await createAs(reseller, {})).body;
    const exported = await as(batcher)('GET', 'clients/export');
    expect(exported.status).toBe(200);
    expect(exported.body.withKeys).toBe(false);
    const exportedNames = exported.body.clients.map((client: { name: string }) => client.name).sort();
    const ownNames = await t.query<{ name: string }>('select name from clients where owner_id = $1 order by name', [
      batcher.id,
    ]);
    expect(exportedNames).toEqual(ownNames.map((row) => row.name).sort());
    expect(exportedNames).toHaveLength(5);
    const csv = await as(batcher)('GET', 'clients/export?format=csv');
    expect(csv.status).toBe(200);
    expect(String(csv.body).trim().split('\r\n')).toHaveLength(6); // the header and one line per account
    // An import matches their own clients by name, nobody else's: a row named as another operator's
    // client is a new client of theirs (here one more than maxClients allows), never an update of it.
    const [{ subnet }] = await t.query<{ subnet: string }>('select subnet from interfaces where id = $1', [ifaceA.id]);
    const named = (...names: string[]) =>
      wgEasyFile(names.length, subnet.split('.').slice(0, 2).join('.'), {
        first: 200,
        over: (client: { name: string }, i: number) => (client.name = names[i]),
      });
    const preview = (token: string, file: unknown) =>
      importClients(t, token, file, { interfaceId: ifaceA.id, dryRun: true });
    const crossed = await preview(batcher.token, named(foreign.name));
    expect([crossed.status, crossed.body]).toEqual([
      403,
      expect.objectContaining({ field: 'maxClients', ceiling: 'maxClients', remaining: 0 }),
    ]);
    await setLimits(batcher, { maxClients: 6, maxQuotaBytes: null }); // wg-easy's clients have no quota
    const created = await preview(batcher.token, named(foreign.name));
    expect([created.status, created.body.summary]).toEqual([200, { rows: 1, created: 1, updated: 0, refused: 0 }]);
    // The owner's import matches it (their scope is every client): no creation there.
    expect((await preview(ownerToken, named(foreign.name))).body.summary).toMatchObject({ rows: 1, created: 0 });
  });

  test('only the owner sets ceilings, only for a reseller; deleting a reseller hands their clients to the owner', async () => {
    const admin = await f.createUser('admin');
    const target = await f.createUser('reseller');
    const made = await createAs(target, {});
    expect(made.status).toBe(201);
    expect(
      (await t.call('PATCH', `admins/${target.id}`, { token: admin.token, body: { limits: { maxClients: 99 } } }))
        .status,
    ).toBe(403);
    const refused = await t.call('PATCH', `admins/${admin.id}`, {
      token: ownerToken,
      body: { limits: { maxClients: 1 } },
    });
    expect([refused.status, refused.body.field]).toEqual([409, 'limits']);
    expect((await t.call('POST', `admins/${admin.id}/reset-usage`, { token: ownerToken })).status).toBe(409);
    const ownerId = (await t.query<{ id: string }>(`select id from users where role = 'owner'`))[0].id;
    expect((await t.call('DELETE', `admins/${target.id}`, { token: ownerToken })).status).toBe(200);
    expect(await t.query('select owner_id from clients where id = $1', [made.body.id])).toEqual([
      { owner_id: ownerId },
    ]);
  });
});

/** The body of a 404, for comparing with a made-up id's. */
function nothing404Body(answer: { status: number; body: unknown }): unknown {
  expect(answer.status).toBe(404);
  return answer.body;
}
