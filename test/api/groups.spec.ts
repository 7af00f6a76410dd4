import { randomUUID } from 'node:crypto';
import { fixtures } from '../support/fixtures.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';
import { waitFor } from '../support/wait-for.js';

/** Groups (issue 23 item 1): defaults for new members, rename, delete, assign, actions on members. */
let t: TestPanel;
let token: string;

beforeAll(async () => {
  t = await startTestPanel();
  token = await t.login();
});
afterAll(async () => {
  await t?.stop();
});

const { call, createInterface, createClient, revisions, expectRefused } = fixtures(() => ({ t, token }), {
  unchanged: async () => ({
    groups: await t.query('select * from client_groups order by name'),
    clients: await t.query('select id, groups from clients order by id'),
    revisions: await revisions(),
  }),
});

const groupsOf = async (id: string) => ((await call('GET', `clients/${id}`)).body as { groups: string[] }).groups;

describe('groups', () => {
  test('a group gives its defaults to clients created in it; the creation still wins where it speaks', async () => {
    const iface = await createInterface();
    const saved = await call('POST', 'groups', {
      name: ' trial ',
      quotaBytes: 5_000,
      expiryDays: 7,
      deviceLimit: 2,
      interfaceIds: [iface.id],
      rateBitsPerSec: 1_000_000,
    });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ name: 'trial', defined: true, members: 0, quotaBytes: 5_000, expiryDays: 7 });
    const before = Date.now();
    // No interfaceIds: the group's.
    const member = await call('POST', 'clients', { groups: ['trial'] });
    expect(member.status).toBe(201);
    expect(member.body).toMatchObject({
      quotaBytes: 5_000,
      deviceLimit: 2,
      rateBitsPerSec: 1_000_000,
      interfaceIds: [iface.id],
    });
    const expiry = Date.parse(member.body.expiresAt);
    expect(Math.abs(expiry - (before + 7 * 86_400_000))).toBeLessThan(60_000);
    const own = await createClient({ groups: ['trial'], quotaBytes: 9, deviceLimit: 1, expiresAt: null });
    expect(own).toMatchObject({ quotaBytes: 9, deviceLimit: 1, expiresAt: null });
    // "Never expires" said explicitly (expiresAt: null) wins over the group's expiry days, in a
    // batch too; left out, the group's days apply.
    const batch = await call('POST', 'clients/batch', {
      namePrefix: 'never-',
      count: 2,
      groups: ['trial'],
      expiresAt: null,
    });
    expect(batch.status).toBe(201);
    const batchExpiries = await t.query<{ expires_at: Date | null }>(
      `select expires_at from clients where name like 'never-%' order by name`,
    );
    expect(batchExpiries).toEqual([{ expires_at: null }, { expires_at: null }]);
    const dated = await call('POST', 'clients/batch', { namePrefix: 'dated-', count: 1, groups: ['trial'] });
    expect(dated.status).toBe(201);
    const [datedRow] = await t.query<{ expires_at: Date | null }>(
      `select expires_at from clients where name like 'dated-%'`,
    );
    expect(datedRow.expires_at).not.toBeNull();
    // Replacing the defaults: POST again with the same name.
    expect((await call('POST', 'groups', { name: 'trial', quotaBytes: 7 })).body).toMatchObject({
      quotaBytes: 7,
      expiryDays: 0,
      interfaceIds: [],
      members: 5,
    });
    // Without a group's interfaces, a creation must name some.
    expect((await call('POST', 'clients', { groups: ['trial'] })).body.field).toBe('interfaceIds');
    await expectRefused('POST', 'groups', { name: 'x', interfaceIds: [randomUUID()] }, 404, 'interfaceIds');
    await expectRefused('POST', 'groups', { name: '' }, 400, 'name');
    await expectRefused('POST', 'groups', { name: 'x', deviceLimit: 51 }, 400, 'deviceLimit');
  });

  test('list and names include groups clients name without defaults; members counted', async () => {
    const iface = await createInterface();
    await createClient({ interfaceIds: [iface.id], groups: ['loose', 'other'] });
    const names = (await call('GET', 'groups/names')).body.names as string[];
    expect(names).toEqual(expect.arrayContaining(['loose', 'other']));
    expect([...names].sort()).toEqual(names);
    const listed = (await call('GET', 'groups')).body as { name: string; defined: boolean; members: number }[];
    expect(listed.find((g) => g.name === 'loose')).toMatchObject({ defined: false, members: 1 });
  });

  test('rename rewrites every member in one statement, keeping its place; delete takes the name off', async () => {
    const iface = await createInterface();
    await call('POST', 'groups', { name: 'gold', quotaBytes: 1 });
    const a = await createClient({ interfaceIds: [iface.id], groups: ['x', 'gold', 'y'] });
    const b = await createClient({ interfaceIds: [iface.id], groups: ['gold', 'platinum'] });
    const renamed = await call('POST', 'groups/rename', { name: 'gold', newName: 'platinum' });
    expect(renamed.body).toEqual({ name: 'platinum', clients: 2 });
    expect(await groupsOf(a.id)).toEqual(['x', 'platinum', 'y']);
    expect(await groupsOf(b.id)).toEqual(['platinum']);
    expect((await call('GET', 'clients?group=platinum')).body.total).toBe(2);
    expect((await call('GET', 'groups')).body.find((g: { name: string }) => g.name === 'platinum')).toMatchObject({
      defined: true,
      quotaBytes: 1,
      members: 2,
    });
    await call('POST', 'groups', { name: 'silver' });
    await expectRefused('POST', 'groups/rename', { name: 'platinum', newName: 'silver' }, 409, 'newName');
    await expectRefused('POST', 'groups/rename', { name: 'nothing-here', newName: 'z' }, 404, 'name');
    const deleted = await call('POST', 'groups/delete', { name: 'platinum' });
    expect(deleted.body).toEqual({ name: 'platinum', clients: 2 });
    expect(await groupsOf(a.id)).toEqual(['x', 'y']);
    expect((await call('GET', 'groups/names')).body.names).not.toContain('platinum');
    await expectRefused('POST', 'groups/delete', { name: 'platinum' }, 404, 'name');
  });

  test('assign puts a selection in (or out of) a group, all or none', async () => {
    const iface = await createInterface();
    const made = await Promise.all([0, 1, 2].map(() => createClient({ interfaceIds: [iface.id], groups: ['as'] })));
    const added = await call('POST', 'groups/assign', { filter: { group: 'as' }, name: 'vip' });
    expect(added.body).toEqual({ name: 'vip', clients: 3 });
    expect(await groupsOf(made[0].id)).toEqual(['as', 'vip']);
    const removed = await call('POST', 'groups/assign', { ids: [made[0].id], name: 'vip', remove: true });
    expect(removed.body).toEqual({ name: 'vip', clients: 1 });
    await expectRefused('POST', 'groups/assign', { ids: [made[1].id, randomUUID()], name: 'vip2' }, 404, 'ids');
    const full = await createClient({
      interfaceIds: [iface.id],
      groups: Array.from({ length: 20 }, (_, i) => `g${i}`),
    });
    await expectRefused('POST', 'groups/assign', { ids: [full.id, made[1].id], name: 'one-more' }, 409, 'ids');
  });

  test('a routing rule naming a group keeps it from being renamed or deleted', async () => {
    const iface = await createInterface();
    await createClient({ interfaceIds: [iface.id], groups: ['routed'] });
    const rule = await call('POST', `routing/rules?nodeId=${iface.nodeId}`, {
      name: 'by group',
      groups: ['routed'],
      outboundTag: 'blocked',
    });
    expect(rule.status).toBe(201);
    await expectRefused('POST', 'groups/delete', { name: 'routed' }, 409, 'name');
    await expectRefused('POST', 'groups/rename', { name: 'routed', newName: 'r2' }, 409, 'name');
  });

  test('action runs a bulk action on the members as one job', async () => {
    const iface = await createInterface();
    const made = await Promise.all(
      [0, 1].map(() => createClient({ interfaceIds: [iface.id], groups: ['act'], expiresAt: '2031-01-01T00:00:00Z' })),
    );
    const started = await call('POST', 'groups/action', { name: 'act', action: 'extend', days: 1 });
    expect(started.status).toBe(202);
    const job = await waitFor('the job', async () => {
      const view = (await call('GET', `jobs/${started.body.id}`)).body;
      return view.state === 'completed' ? view : undefined;
    });
    expect(job.progress).toEqual({ done: 2, total: 2, changed: 2, skipped: 0, skippedReason: null });
    expect((await call('GET', `clients/${made[0].id}`)).body.expiresAt).toBe('2031-01-02T00:00:00.000Z');
    await expectRefused('POST', 'groups/action', { name: 'act', action: 'extend' }, 400, 'days');
    await expectRefused('POST', 'groups/action', { name: 'act', action: 'disable', days: 3 }, 400, 'days');
    await expectRefused('POST', 'groups/action', { name: 'no-such-group', action: 'disable' }, 404, 'name');
  });
});
