import { randomUUID } from 'node:crypto';
import { jobEnded } from '../support/bulk-job.js';
import { fixtures } from '../support/fixtures.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';

/**
 * Bulk actions on clients (issue 23 item 2): each a job over ids or a filter, refusing a bad
 * selection before anything changes, bumping each affected node once per job.
 */
let t: TestPanel;
let token: string;

beforeAll(async () => {
  t = await startTestPanel();
  token = await t.login();
});
afterAll(async () => {
  await t?.stop();
});

const { call, createInterface, createNodeWithInterface, createClient, revisions, expectRefused } = fixtures(
  () => ({ t, token }),
  { unchanged: snapshot },
);

async function snapshot() {
  const clients = await t.query('select * from clients order by id');
  const links = await t.query('select * from client_interfaces order by client_id, interface_id');
  const accounts = await t.query('select count(*)::int as n from accounts');
  const jobs = await t.query('select count(*)::int as n from client_bulk_jobs');
  return { clients, links, accounts, jobs, revisions: await revisions() };
}

type Job = {
  id: string;
  state: string;
  progress: { done: number; total: number; changed: number; skipped: number; skippedReason: string | null };
  error: string | null;
};

/** Starts a bulk job (202) and waits for it to end; the finished job. */
async function run(path: string, body: unknown): Promise<Job> {
  const started = await call('POST', path, body);
  expect([started.status, started.status === 202 ? null : started.body]).toEqual([202, null]);
  return finished(started.body.id);
}

function finished(id: string, timeoutMs = 30_000): Promise<Job> {
  return jobEnded((path) => call('GET', path), id, timeoutMs) as Promise<Job>;
}

const expiryOf = async (id: string) =>
  ((await call('GET', `clients/${id}`)).body as { expiresAt: string | null }).expiresAt;

describe('POST /api/clients/extend', () => {
  test('adds days to each expiry once, leaves clients that never expire alone, and bumps each node once', async () => {
    const { node, iface: remote } = await createNodeWithInterface();
    const local = await createInterface();
    const expiring = await Promise.all(
      [0, 1, 2].map(() =>
        createClient({ interfaceIds: [local.id, remote.id], expiresAt: '2030-01-01T00:00:00Z', groups: ['ext'] }),
      ),
    );
    const never = await createClient({ interfaceIds: [remote.id], groups: ['ext'] });
    const before = await revisions();
    const job = await run('clients/extend', { filter: { group: 'ext' }, days: 10 });
    // The one left alone is counted, with why: it never expires (extend "from now" gives it one).
    expect(job).toMatchObject({
      state: 'completed',
      progress: { done: 4, total: 4, changed: 3, skipped: 1, skippedReason: 'no-expiry' },
      error: null,
    });
    for (const client of expiring) expect(await expiryOf(client.id)).toBe('2030-01-11T00:00:00.000Z');
    expect(await expiryOf(never.id)).toBeNull();
    // Nothing crossed active: the extension changes no peer, so no node moves.
    expect(await revisions()).toEqual(before);

    // Expired clients come back: their peers return, each node bumped once for all of them.
    await t.query(
      `update clients set expires_at = now() - interval '1 day', status = 'expired' where groups @> '{ext}'`,
    );
    const now = Date.now();
    const revived = await run('clients/extend', { ids: [...expiring, never].map((c) => c.id), days: 30, from: 'now' });
    expect(revived.progress).toEqual({ done: 4, total: 4, changed: 4, skipped: 0, skippedReason: null });
    const after = await revisions();
    expect(after[node.id]).toBe(before[node.id] + 1);
    expect(after[local.nodeId]).toBe(before[local.nodeId] + 1);
    for (const client of [...expiring, never]) {
      const expiresAt = Date.parse((await expiryOf(client.id))!);
      expect(Math.abs(expiresAt - (now + 30 * 86_400_000))).toBeLessThan(60_000);
      expect((await call('GET', `clients/${client.id}`)).body.status).toBe('active');
    }
  });
});

describe('POST /api/clients/bulk, adjust, reset-all, purge', () => {
  test('disable and enable by filter, one revision per node per job', async () => {
    const { node, iface } = await createNodeWithInterface();
    const clients = await Promise.all([0, 1, 2, 3, 4].map(() => createClient({ interfaceIds: [iface.id] })));
    const before = await revisions();
    const disabled = await run('clients/bulk', { filter: { interfaceId: iface.id }, action: 'disable' });
    expect(disabled.progress).toEqual({ done: 5, total: 5, changed: 5, skipped: 0, skippedReason: null });
    expect((await revisions())[node.id]).toBe(before[node.id] + 1);
    const listed = await call('GET', `clients?interfaceId=${iface.id}&status=disabled`);
    expect(listed.body.total).toBe(5);
    await run('clients/bulk', { ids: clients.slice(0, 2).map((c) => c.id), action: 'enable' });
    expect((await revisions())[node.id]).toBe(before[node.id] + 2);
    expect((await call('GET', `clients?interfaceId=${iface.id}&status=active`)).body.total).toBe(2);
    // Enabling clients that are active already changes nothing and moves no node.
    const again = await run('clients/bulk', { ids: clients.slice(0, 2).map((c) => c.id), action: 'enable' });
    expect(again.progress).toMatchObject({ changed: 0, skipped: 2, skippedReason: 'already' });
    expect((await revisions())[node.id]).toBe(before[node.id] + 2);
    const deleted = await run('clients/bulk', { filter: { interfaceId: iface.id }, action: 'delete' });
    expect(deleted.progress).toEqual({ done: 5, total: 5, changed: 5, skipped: 0, skippedReason: null });
    expect((await call('GET', `clients?interfaceId=${iface.id}`)).body.total).toBe(0);
    expect(await t.query('select count(*)::int as n from client_bulk_items')).toEqual([{ n: 0 }]);
  });

  test('adjust raises and lowers limited quotas (never to unlimited); reset-all zeroes traffic and revives', async () => {
    const iface = await createInterface();
    const limited = await createClient({ interfaceIds: [iface.id], quotaBytes: 1000, groups: ['adj'] });
    const unlimited = await createClient({ interfaceIds: [iface.id], groups: ['adj'] });
    await t.query(`update clients set used_bytes = 900 where id = $1`, [limited.id]);
    const lowered = await run('clients/adjust', { filter: { group: 'adj' }, deltaBytes: -5000 });
    expect(lowered.progress.changed).toBe(1);
    expect((await call('GET', `clients/${limited.id}`)).body).toMatchObject({ quotaBytes: 1, status: 'exhausted' });
    expect((await call('GET', `clients/${unlimited.id}`)).body.quotaBytes).toBe(0);
    await run('clients/adjust', { ids: [limited.id], deltaBytes: 1999 });
    expect((await call('GET', `clients/${limited.id}`)).body).toMatchObject({ quotaBytes: 2000, status: 'active' });
    await run('clients/adjust', { ids: [limited.id], deltaBytes: -1100 });
    expect((await call('GET', `clients/${limited.id}`)).body.status).toBe('exhausted');
    const reset = await run('clients/reset-all', { filter: { group: 'adj' } });
    expect(reset.progress).toEqual({ done: 2, total: 2, changed: 2, skipped: 0, skippedReason: null });
    const after = (await call('GET', `clients/${limited.id}`)).body;
    expect(after).toMatchObject({ usedBytes: 0, status: 'active' });
    expect(after.lastResetAt).not.toBeNull();
  });

  test('purge deletes only clients in the statuses for longer than the days given', async () => {
    const iface = await createInterface();
    const old = await createClient({ interfaceIds: [iface.id], enabled: false, groups: ['purge'] });
    const recent = await createClient({ interfaceIds: [iface.id], enabled: false, groups: ['purge'] });
    const active = await createClient({ interfaceIds: [iface.id], groups: ['purge'] });
    // A status change stamps status_changed_at (the trigger): this one is 40 days old.
    await t.query(`update clients set status = 'active' where id = $1`, [old.id]);
    await t.query(`update clients set status = 'disabled' where id = $1`, [old.id]);
    await t.query(`update clients set status_changed_at = now() - interval '40 days' where id = $1`, [old.id]);
    await t.query(`update clients set status_changed_at = now() - interval '40 days' where id = $1`, [active.id]);
    const purged = await run('clients/purge', { filter: { group: 'purge' }, olderThanDays: 30 });
    expect(purged.progress).toEqual({ done: 1, total: 1, changed: 1, skipped: 0, skippedReason: null });
    expect((await call('GET', `clients/${old.id}`)).status).toBe(404);
    expect((await call('GET', `clients/${recent.id}`)).status).toBe(200);
    expect((await call('GET', `clients/${active.id}`)).status).toBe(200);
    const none = await run('clients/purge', { filter: { group: 'purge' }, statuses: ['expired'], olderThanDays: 0 });
    expect(none.progress.total).toBe(0);
  });
});

describe('POST /api/clients/servers/attach and detach', () => {
  test('attach gives every device an account on the new interface; detach takes it away', async () => {
    const first = await createInterface();
    const { node, iface: second } = await createNodeWithInterface();
    const clients = await Promise.all(
      [0, 1].map(() => createClient({ interfaceIds: [first.id], deviceNames: ['phone', 'laptop'], deviceLimit: 2 })),
    );
    const ids = clients.map((c) => c.id);
    const before = await revisions();
    const attached = await run('clients/servers/attach', { ids, interfaceIds: [second.id] });
    expect(attached.progress).toEqual({ done: 2, total: 2, changed: 2, skipped: 0, skippedReason: null });
    expect(await t.query(`select count(*)::int as n from accounts where interface_id = $1`, [second.id])).toEqual([
      { n: 4 },
    ]);
    expect((await revisions())[node.id]).toBe(before[node.id] + 1);
    // Attaching again changes nothing.
    expect((await run('clients/servers/attach', { ids, interfaceIds: [second.id] })).progress.changed).toBe(0);
    // Detaching every interface a client has is refused, nothing changed.
    await expectRefused(
      'POST',
      'clients/servers/detach',
      { ids, interfaceIds: [first.id, second.id] },
      409,
      'interfaceIds',
    );
    const detached = await run('clients/servers/detach', { ids, interfaceIds: [first.id] });
    expect(detached.progress.changed).toBe(2);
    expect((await call('GET', `clients/${ids[0]}`)).body.interfaceIds).toEqual([second.id]);
    expect(await t.query(`select count(*)::int as n from accounts where interface_id = $1`, [first.id])).toEqual([
      { n: 0 },
    ]);
  });
});

describe('selections', () => {
  test('GET /api/clients/ids returns what the list filter selects, all pages', async () => {
    const iface = await createInterface();
    const made = await Promise.all([0, 1, 2].map(() => createClient({ interfaceIds: [iface.id], groups: ['ids'] })));
    const answer = await call('GET', 'clients/ids?group=ids');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ ids: made.map((c) => c.id).sort(), total: 3 });
    expect((await call('GET', 'clients/ids?status=nonsense')).status).toBe(400);
  });

  test('bad selections are refused before anything changes', async () => {
    const iface = await createInterface();
    const client = await createClient({ interfaceIds: [iface.id] });
    await expectRefused('POST', 'clients/bulk', { action: 'disable' }, 400, 'ids');
    await expectRefused('POST', 'clients/bulk', { ids: [client.id], filter: {}, action: 'disable' }, 400, 'filter');
    await expectRefused('POST', 'clients/bulk', { ids: [client.id, randomUUID()], action: 'delete' }, 404, 'ids');
    await expectRefused('POST', 'clients/bulk', { ids: [], action: 'delete' }, 400, 'ids');
    await expectRefused('POST', 'clients/bulk', { ids: ['nope'], action: 'delete' }, 400, 'ids');
    await expectRefused('POST', 'clients/bulk', { ids: [client.id], action: 'explode' }, 400, 'action');
    await expectRefused(
      'POST',
      'clients/bulk',
      { filter: { status: 'nonsense' }, action: 'delete' },
      400,
      'filter.status',
    );
    await expectRefused('POST', 'clients/bulk', { filter: { colour: 'red' }, action: 'delete' }, 400, 'filter.colour');
    await expectRefused('POST', 'clients/extend', { ids: [client.id], days: 0 }, 400, 'days');
    await expectRefused('POST', 'clients/extend', { ids: [client.id] }, 400, 'days');
    await expectRefused('POST', 'clients/purge', { filter: {} }, 400, 'olderThanDays');
    await expectRefused(
      'POST',
      'clients/servers/attach',
      { ids: [client.id], interfaceIds: [randomUUID()] },
      404,
      'interfaceIds',
    );
    expect((await call('GET', `jobs/${randomUUID()}`)).status).toBe(404);
    expect((await call('GET', 'jobs/1')).status).toBe(404);
  });
});
