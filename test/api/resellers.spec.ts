import { randomUUID } from 'node:crypto';
import type { PeerCounters } from '../../libs/contracts/agent-link.js';
import { UsageService } from '../../apps/controller/src/clients/usage.service.js';
import { RouteTableService, type RouteEntry } from '../../apps/controller/src/docs/route-table.service.js';
import { openDatabaseFingerprint, type DatabaseFingerprint } from '../support/database-fingerprint.js';
import { importClients } from '../support/client-import.js';
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

describe('scope: their own clients only', () => {
  let mine: { id: string; devices: { id: string }[] };
  let theirs: { id: string; devices: { id: string }[] };
  let owners: { id: string; devices: { id: string }[] };

  beforeAll(async () => {
    const made = await createAs(reseller, { name: 'mine-alpha', deviceLimit: 2, deviceNames: ['phone', 'laptop'] });
    expect(made.status).toBe(201);
    mine = made.body;
    theirs = (await createAs(other, { name: 'theirs-alpha', deviceLimit: 2, deviceNames: ['phone', 'laptop'] })).body;
    owners = await f.createClient({ name: 'owners-alpha', interfaceIds: [ifaceA.id], deviceNames: ['phone'] });
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
    // Every client and device route the route table grants a reseller (read from the table, not listed
    // here): a new route with an id a reseller may call must say here which ids it takes.
    expect(routes.length).toBeGreaterThanOrEqual(13);
    const foreignClients = [theirs.id, owners.id];
    const foreignDevices = [...theirs.devices, ...owners.devices].map((device) => device.id);
    const before = await fingerprint.read();
    const failures: string[] = [];
    for (const route of routes) {
      const resource = route.path.split('/')[0];
      expect(['clients', 'devices']).toContain(resource);
      const madeUp = randomUUID();
      const ids = [
        ...(resource === 'clients' ? foreignClients : foreignDevices),
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
      [{ ...fine, interfaceIds: [ifaceA.id, ifaceB.id] }, 'interfaceIds[1]', 'interfaceIds', [ifaceA.id]],
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
    expect(await fingerprint.read()).toEqual(before);

    const made = await createAs(capped, fine);
    expect(made.status).toBe(201);
    // A change or an extension past a ceiling is refused the same way; one within passes.
    const patch = (body: Record<string, unknown>) => as(capped)('PATCH', `clients/${made.body.id}`, body);
    expect((await patch({ quotaBytes: 20 * GB })).body).toMatchObject({ field: 'quotaBytes', remaining: 10 * GB });
    expect((await patch({ expiresAt: inDays(60) })).body).toMatchObject({ field: 'expiresAt', remaining: 30 });
    expect((await patch({ expiresAt: null })).body).toMatchObject({ field: 'expiresAt', ceiling: 'maxExpiryDays' });
    expect((await patch({ interfaceIds: [ifaceB.id] })).body).toMatchObject({
      field: 'interfaceIds[0]',
      ceiling: 'interfaceIds',
    });
    expect((await patch({ expiresAt: inDays(29), note: 'renewed' })).status).toBe(200);
    // Nodes: an interface on a node outside their nodes is refused.
    await setLimits(capped, { interfaceIds: null, nodeIds: [randomUUID()] });
    expect((await createAs(capped, fine)).body).toMatchObject({ field: 'interfaceIds[0]', ceiling: 'nodeIds' });
    await setLimits(capped, { nodeIds: [node.id] });

    // The client count: two more make three, the fourth is refused with no room left.
    expect((await createAs(capped, fine)).status).toBe(201);
    expect((await createAs(capped, fine)).status).toBe(201);
    const full = await createAs(capped, fine);
    expect([full.status, full.body]).toMatchObject([403, { field: 'maxClients', ceiling: 'maxClients', remaining: 0 }]);
    const room = (await as(capped)('GET', 'overview')).body.reseller.ceilings;
    expect(room).toMatchObject({ maxClients: 3, clientsLeft: 0, maxQuotaBytes: 10 * GB, maxExpiryDays: 30 });
  });

  test('creates racing at the ceiling: exactly the room left passes', async () => {
    const racer = await f.createUser('reseller');
    await setLimits(racer, { maxClients: 2 });
    expect((await createAs(racer, {})).status).toBe(201);
    const answers = await Promise.all(Array.from({ length: 6 }, () => createAs(racer, {})));
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 403, 403, 403, 403, 403]);
    expect(await f.count(`clients where owner_id = '${racer.id}'`)).toBe(2);
  });

  test('the pool counts their clients’ traffic as it accrues; reset-usage starts it afresh', async () => {
    const pooled = await f.createUser('reseller');
    const created = await createAs(pooled, { quotaBytes: 0 });
    expect(created.status).toBe(201);
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
    await usage.recordCounters(node.id, seq + 2, [peer(2000, 1000)]);
    expect((await overview()).reseller.pool).toMatchObject({ usedBytes: 6000, leftBytes: 0 });
    expect((await as(pooled)('POST', `clients/${created.body.id}/reset`)).body).toMatchObject({
      ceiling: 'trafficPoolBytes',
      remaining: 0,
    });
    // The owner sees the pool, and resets it.
    const listed = (await t.call('GET', 'admins', { token: ownerToken })).body.find(
      (user: { id: string }) => user.id === pooled.id,
    );
    expect(listed.reseller).toMatchObject({ poolUsedBytes: 6000, poolLeftBytes: 0, clients: 1 });
    const reset = await t.call('POST', `admins/${pooled.id}/reset-usage`, { token: ownerToken });
    expect([reset.status, reset.body.reseller]).toEqual([
      200,
      expect.objectContaining({ poolUsedBytes: 0, poolLeftBytes: 5000, poolResetAt: expect.any(String) }),
    ]);
    expect((await createAs(pooled, { quotaBytes: 4000 })).status).toBe(201);
  });

  test("a batch is the reseller's, fits maxClients whole and every other ceiling; import and export stay closed", async () => {
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
    expect((await batch({ interfaceIds: [ifaceB.id] })).body).toMatchObject({
      field: 'interfaceIds[0]',
      ceiling: 'interfaceIds',
    });
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

    // Export: their own five, no keys. Import matches across every client: not a reseller's (fail closed).
    await createAs(reseller, {});
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
    const imported = await importClients(t, batcher.token, { clients: [] }, { interfaceId: ifaceA.id, dryRun: true });
    expect(imported.status).toBe(403);
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
