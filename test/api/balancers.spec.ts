import { fixtures, signedInPanel } from '../support/fixtures.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Balancers over the API (issue 26 item 1): validation, tags shared with outbounds, roles, the
 * 409s that keep hops and balancers in use, the revision each change moves, the audit, and the
 * route test's answer naming the balancer and its pick. What traffic does is
 * test/e2e/balancers.spec.ts.
 */

const session = signedInPanel();
const f = fixtures(session, { unchanged: async () => [await f.count('balancers'), await f.revisions()] });
const { call, createNode, expectRefused } = f;

interface BalancerView {
  id: string;
  nodeId: string;
  tag: string;
  strategy: string;
  hops: { id: string; tag: string; enabled: boolean; health: string | null; usable: boolean }[];
  overrideId: string | null;
  current: string[];
  warnings: { code: string; severity: string; message: string; action: string }[];
}

async function hop(nodeId: string, tag: string, host: string): Promise<string> {
  const created = await call('POST', 'outbounds', { nodeId, tag, kind: 'socks', address: `${host}:1080` });
  expect(created.status).toBe(201);
  return (created.body as { id: string }).id;
}

async function nodeWithHops() {
  const node = await createNode();
  const a = await hop(node.id, 'hop-a', '203.0.113.11');
  const b = await hop(node.id, 'hop-b', '203.0.113.12');
  return { node, a, b };
}

test('created, listed, changed, overridden and deleted; each change moves the node once', async () => {
  const { node, a, b } = await nodeWithHops();
  const before = await f.revision(node.id);
  const created = await call('POST', 'balancers', { nodeId: node.id, tag: 'pool', strategy: 'failover', hops: [a, b] });
  expect(created.status).toBe(201);
  const balancer = created.body as BalancerView;
  expect(balancer).toMatchObject({
    nodeId: node.id,
    tag: 'pool',
    strategy: 'failover',
    overrideId: null,
    // Never checked: usable, so failover takes the first in order.
    current: ['hop-a'],
    hops: [
      { id: a, tag: 'hop-a', enabled: true, health: null, usable: true },
      { id: b, tag: 'hop-b', enabled: true, health: null, usable: true },
    ],
  });
  expect(await f.revision(node.id)).toBe(before + 1);
  const listed = await call('GET', `balancers?nodeId=${node.id}`);
  expect(listed.body).toEqual([balancer]);

  const hashed = await call('PATCH', `balancers/${balancer.id}`, { strategy: 'hash', hops: [b, a] });
  expect(hashed.body).toMatchObject({ strategy: 'hash', current: ['hop-b', 'hop-a'] });
  expect(await f.revision(node.id)).toBe(before + 2);
  // The same again changes nothing and moves nothing.
  await call('PATCH', `balancers/${balancer.id}`, { strategy: 'hash' });
  expect(await f.revision(node.id)).toBe(before + 2);

  const pinned = await call('POST', `balancers/${balancer.id}/override`, { outboundId: a });
  expect(pinned.body).toMatchObject({ overrideId: a, current: ['hop-a'] });
  expect(await f.revision(node.id)).toBe(before + 3);
  const cleared = await call('POST', `balancers/${balancer.id}/override`, { outboundId: null });
  expect(cleared.body).toMatchObject({ overrideId: null, current: ['hop-b', 'hop-a'] });
  // An empty body clears too (the field is optional in the OpenAPI document).
  await call('POST', `balancers/${balancer.id}/override`, { outboundId: a });
  const emptied = await call('POST', `balancers/${balancer.id}/override`, {});
  expect(emptied.status).toBe(200);
  expect(emptied.body).toMatchObject({ overrideId: null, current: ['hop-b', 'hop-a'] });
  expect(await f.revision(node.id)).toBe(before + 6);

  // A disabled hop is not usable.
  await call('PATCH', `outbounds/${b}`, { enabled: false });
  const after = await call('GET', `balancers?nodeId=${node.id}`);
  expect((after.body as BalancerView[])[0]).toMatchObject({ current: ['hop-a'], warnings: [] });

  // Pinning it is accepted (as documented) but blocks the balancer's traffic: the answer, and every
  // read while it lasts, warn in the security warnings' shape; clearing the override ends it.
  const blocked = await call('POST', `balancers/${balancer.id}/override`, { outboundId: b });
  expect(blocked.status).toBe(200);
  expect(blocked.body).toMatchObject({ overrideId: b, current: [expect.stringMatching(/^(blocked|direct)$/)] });
  expect((blocked.body as BalancerView).warnings).toEqual([
    {
      code: 'override-hop-disabled',
      severity: 'warning',
      message: expect.stringContaining('disabled hop "hop-b"'),
      action: expect.stringContaining('Enable the hop "hop-b"'),
    },
  ]);
  const read = ((await call('GET', `balancers?nodeId=${node.id}`)).body as BalancerView[])[0];
  expect(read.warnings.map((warning) => warning.code)).toEqual(['override-hop-disabled']);
  const unpinned = await call('POST', `balancers/${balancer.id}/override`, { outboundId: null });
  expect((unpinned.body as BalancerView).warnings).toEqual([]);

  const deleted = await call('DELETE', `balancers/${balancer.id}`);
  expect(deleted.body).toEqual({ id: balancer.id, deleted: true });
  expect((await call('GET', `balancers?nodeId=${node.id}`)).body).toEqual([]);

  // Audited like outbounds: each change an entry on the balancer.
  const actions = await waitFor('the audit entries', async () => {
    const page = await call('GET', `logs?targetType=balancers&targetId=${balancer.id}`);
    const items = (page.body as { items: { action: string; outcome: string }[] }).items;
    return items.length >= 5 && items.every((item) => item.outcome === 'success') && items.map((item) => item.action);
  });
  expect(new Set(actions)).toEqual(
    new Set(['balancers.create', 'balancers.update', 'balancers.override', 'balancers.delete']),
  );
  // The deletion lists the balancer's own values as old, as every deletion does (docs/audit.md):
  // its scalar fields, not the hops' health or the pick of the moment.
  const page = await call('GET', `logs?targetType=balancers&targetId=${balancer.id}`);
  const removal = (
    page.body as { items: { action: string; target: { name: string }; changes: { field: string }[] }[] }
  ).items.find((item) => item.action === 'balancers.delete')!;
  expect(removal.target.name).toBe('pool');
  expect(removal.changes).toEqual(
    expect.arrayContaining([
      { field: 'tag', old: 'pool' },
      { field: 'strategy', old: 'hash' },
    ]),
  );
  expect(removal.changes.map((change) => change.field)).not.toEqual(expect.arrayContaining(['hops']));
});

test('bad input is a 400 naming the field; nothing is written', async () => {
  const { node, a, b } = await nodeWithHops();
  const other = await nodeWithHops();
  const body = { nodeId: node.id, tag: 'pool', strategy: 'failover', hops: [a, b] };
  await expectRefused('POST', 'balancers', { ...body, strategy: 'random' }, 400, 'strategy');
  await expectRefused('POST', 'balancers', { ...body, tag: 'no spaces' }, 400, 'tag');
  await expectRefused('POST', 'balancers', { ...body, hops: [] }, 400, 'hops');
  await expectRefused('POST', 'balancers', { ...body, hops: [a, a] }, 400, 'hops.1', /twice/);
  await expectRefused('POST', 'balancers', { ...body, hops: [a, 'nope'] }, 400, 'hops.1');
  // Wrong types name the entry too, on create and on change.
  await expectRefused('POST', 'balancers', { ...body, hops: [1, 2] }, 400, 'hops');
  await expectRefused('POST', 'balancers', { ...body, hops: [a, null] }, 400, 'hops');
  await expectRefused('POST', 'balancers', { ...body, hops: [a, other.a] }, 400, 'hops.1', /not a hop of this node/);
  const direct = ((await call('GET', `outbounds?nodeId=${node.id}`)).body as { id: string; tag: string }[]).find(
    (outbound) => outbound.tag === 'direct',
  )!;
  await expectRefused('POST', 'balancers', { ...body, hops: [direct.id] }, 400, 'hops.0');
  await expectRefused('POST', 'balancers', { ...body, extra: 1 }, 400, 'extra');
  // Tags are shared with outbounds (rules name either) and the built-ins.
  await expectRefused('POST', 'balancers', { ...body, tag: 'hop-a' }, 409, 'tag', /outbound/);
  await expectRefused('POST', 'balancers', { ...body, tag: 'Direct' }, 409, 'tag', /built-in/);

  const made = (await call('POST', 'balancers', body)).body as BalancerView;
  await expectRefused('POST', 'balancers', body, 409, 'tag', /balancer/);
  await expectRefused(
    'POST',
    'outbounds',
    { nodeId: node.id, tag: 'pool', kind: 'socks', address: '203.0.113.9:1080' },
    409,
    'tag',
  );
  await expectRefused('POST', `balancers/${made.id}/override`, { outboundId: other.a }, 400, 'outboundId');
  await expectRefused('PATCH', `balancers/${made.id}`, { nodeId: other.node.id }, 400, 'nodeId');
  await expectRefused('PATCH', `balancers/${made.id}`, { hops: null }, 400, 'hops');
  await expectRefused('PATCH', `balancers/${made.id}`, { hops: [b, 7] }, 400, 'hops');
  await expectRefused('PATCH', 'balancers/00000000-0000-4000-8000-000000000000', { tag: 'x' }, 404, 'id');
  await expectRefused('DELETE', 'balancers/not-an-id', undefined, 404, 'id');
});

test('a hop of a balancer, and a balancer a rule targets, cannot be deleted (409)', async () => {
  const { node, a, b } = await nodeWithHops();
  const made = (await call('POST', 'balancers', { nodeId: node.id, tag: 'pool', strategy: 'failover', hops: [a, b] }))
    .body as BalancerView;
  await expectRefused('DELETE', `outbounds/${a}`, undefined, 409, '', /balancer "pool"/);

  const rule = await call('POST', `routing/rules?nodeId=${node.id}`, {
    name: 'via pool',
    outboundTag: 'pool',
    destIps: ['198.51.100.0/24'],
  });
  expect(rule.status).toBe(201);
  expect(rule.body).toMatchObject({ outboundTag: 'pool', outboundId: null, balancerId: made.id });
  await expectRefused('DELETE', `balancers/${made.id}`, undefined, 409, '', /rule "via pool"/);
  // Renaming the balancer keeps the rule on it.
  await call('PATCH', `balancers/${made.id}`, { tag: 'pool-2' });
  const routing = await call('GET', `routing?nodeId=${node.id}`);
  expect((routing.body as { rules: { outboundTag: string }[] }).rules[0].outboundTag).toBe('pool-2');
  // Taken out of the balancer, a hop can go.
  await call('PATCH', `balancers/${made.id}`, { hops: [b] });
  expect((await call('DELETE', `outbounds/${a}`)).status).toBe(200);
  // The rule moved to a hop, the balancer can go.
  const ruleId = (rule.body as { id: string }).id;
  const moved = await call('PATCH', `routing/rules/${ruleId}`, { outboundTag: 'hop-b' });
  expect(moved.body).toMatchObject({ outboundTag: 'hop-b', outboundId: b, balancerId: null });
  expect((await call('DELETE', `balancers/${made.id}`)).status).toBe(200);
});

test('the route test names the balancer and the hop it picks for the source now', async () => {
  const node = await createNode();
  const iface = await f.createInterface({ nodeId: node.id, subnet: '10.91.0.0/24' });
  const a = await hop(node.id, 'hop-a', '203.0.113.11');
  const b = await hop(node.id, 'hop-b', '203.0.113.12');
  const made = (await call('POST', 'balancers', { nodeId: node.id, tag: 'pool', strategy: 'hash', hops: [a, b] }))
    .body as BalancerView;
  await call('POST', `routing/rules?nodeId=${node.id}`, { name: 'via pool', outboundTag: 'pool', ports: ['443'] });
  const test = (source: string) =>
    call('POST', 'routing/test', { nodeId: node.id, source, destination: '198.51.100.7', port: 443 });
  // hash: the address's last octet modulo the usable hops.
  expect((await test('10.91.0.2')).body).toMatchObject({ step: 'rule', balancer: 'pool', outbound: 'hop-a' });
  expect((await test('10.91.0.3')).body).toMatchObject({ balancer: 'pool', outbound: 'hop-b' });
  await call('POST', `balancers/${made.id}/override`, { outboundId: b });
  expect((await test('10.91.0.2')).body).toMatchObject({ balancer: 'pool', outbound: 'hop-b' });
  // Not through the rule: no balancer.
  const other = await call('POST', 'routing/test', {
    nodeId: node.id,
    source: '10.91.0.2',
    destination: '198.51.100.7',
    port: 80,
  });
  expect(other.body).toMatchObject({ step: 'default', balancer: null, outbound: 'direct' });
  expect(iface.id).toEqual(expect.any(String));
});

test('viewers read balancers; only owners and admins change them', async () => {
  const { node, a, b } = await nodeWithHops();
  const viewer = await f.createUser('viewer');
  const admin = await f.createUser('admin');
  const { t } = session();
  expect((await t.call('GET', `balancers?nodeId=${node.id}`, { token: viewer.token })).status).toBe(200);
  const body = { nodeId: node.id, tag: 'pool', strategy: 'failover', hops: [a, b] };
  expect((await t.call('POST', 'balancers', { token: viewer.token, body })).status).toBe(403);
  const made = await t.call('POST', 'balancers', { token: admin.token, body });
  expect(made.status).toBe(201);
  const id = (made.body as { id: string }).id;
  expect(
    (await t.call('POST', `balancers/${id}/override`, { token: viewer.token, body: { outboundId: a } })).status,
  ).toBe(403);
  expect((await t.call('DELETE', `balancers/${id}`, { token: viewer.token })).status).toBe(403);
});
