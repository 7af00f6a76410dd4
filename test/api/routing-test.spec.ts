import { answer, fixtures, signedInPanel, type Schemas } from '../support/fixtures.js';

/**
 * `POST /api/routing/test` and `POST /api/routing/apply` (docs/outbounds.md, "Testing a route").
 * The matcher itself is proven against the agent's real ruleset in test/e2e/agent-hops.spec.ts;
 * here: what the controller feeds it (the routing delivery sends), validation and roles.
 */

const session = signedInPanel();
const f = fixtures(session, {
  unchanged: async () => [
    await session().t.query('select * from routing_rules order by id'),
    await f.count('outbounds'),
    await f.revisions(),
  ],
});
const { typed, createNodeWithInterface, createClient, createUser, expectRefused } = f;

type TestBody = Schemas['RouteTestDto'];

async function routeTest(body: TestBody, token?: string) {
  const response = await session().t.call('POST', 'routing/test', { token: token ?? session().token, body });
  return response;
}

async function ok(body: TestBody, token?: string) {
  const response = await routeTest(body, token);
  expect({ status: response.status, body: response.body }).toMatchObject({ status: 200 });
  return response.body as Schemas['RouteTestResultDto'];
}

async function createRule(nodeId: string, body: Schemas['CreateRuleDto']) {
  const created = await answer(typed().POST('/api/routing/rules', { params: { query: { nodeId } }, body }));
  expect(created.status).toBe(201);
  return created.body;
}

async function setup() {
  const { node, iface } = await createNodeWithInterface();
  const alice = await createClient({ interfaceIds: [iface.id], groups: ['staff'] });
  const bob = await createClient({ interfaceIds: [iface.id] });
  const hop = await answer(
    typed().POST('/api/outbounds', {
      body: { nodeId: node.id, tag: 'up', kind: 'socks', address: '203.0.113.50:1080' },
    }),
  );
  expect(hop.status).toBe(201);
  const off = await createRule(node.id, { name: 'disabled', ports: ['443'], outboundTag: 'blocked' });
  await answer(
    typed().PATCH('/api/routing/rules/{id}', { params: { path: { id: off.id } }, body: { enabled: false } }),
  );
  const web = await createRule(node.id, { name: 'alice web', clients: [alice.id], ports: ['443'], outboundTag: 'up' });
  const nets = await createRule(node.id, { name: 'no docs', destIps: ['198.51.100.0/24'], outboundTag: 'blocked' });
  const dns = await createRule(node.id, { name: 'staff udp', groups: ['staff'], network: 'udp', outboundTag: 'up' });
  const [aliceIp] = (await f.accountsOf(alice.id)).map((account) => String(account.ip));
  const [bobIp] = (await f.accountsOf(bob.id)).map((account) => String(account.ip));
  return { node, iface, alice, bob, aliceIp, bobIp, rules: { off, web, nets, dns } };
}

describe('POST /api/routing/test', () => {
  test('names the rule that decides (position, matched criteria) and the hop, or the default', async () => {
    const { node, alice, aliceIp, bobIp, rules } = await setup();
    const web = await ok({ nodeId: node.id, clientId: alice.id, destination: '203.0.113.9', port: 443 });
    expect(web).toMatchObject({
      nodeId: node.id,
      source: { address: aliceIp, clientId: alice.id },
      destination: { address: '203.0.113.9', domain: null, resolved: null },
      protocol: 'tcp',
      port: 443,
      step: 'rule',
      rule: { id: rules.web.id, name: 'alice web', position: rules.web.position },
      matched: ['clients', 'ports'],
      outbound: 'up',
    });
    expect(web.source.interface).toMatch(/^wg|^[a-z]/);
    // The disabled rule before it (port 443 → blocked) is not part of the node's routing.
    expect(web.rule?.id).not.toBe(rules.off.id);

    const bob = await ok({ nodeId: node.id, source: bobIp, destination: '203.0.113.9', port: 443 });
    expect(bob).toMatchObject({ step: 'default', rule: null, outbound: 'direct', source: { clientId: null } });
    const docs = await ok({ nodeId: node.id, source: bobIp, destination: '198.51.100.7', port: 80 });
    expect(docs).toMatchObject({
      step: 'rule',
      rule: { id: rules.nets.id },
      matched: ['destIps'],
      outbound: 'blocked',
    });
    const udp = await ok({ nodeId: node.id, source: aliceIp, destination: '203.0.113.9', port: 53, protocol: 'udp' });
    expect(udp).toMatchObject({ rule: { id: rules.dns.id }, matched: ['network', 'groups'], outbound: 'up' });
    // The SOCKS hop carries TCP only: the answer says what happens to this UDP.
    expect(udp.notes.join(' ')).toMatch(/TCP only/);
    const icmp = await ok({ nodeId: node.id, source: aliceIp, destination: '203.0.113.9', protocol: 'icmp', port: 80 });
    expect(icmp).toMatchObject({ port: null, step: 'default', outbound: 'direct' });
  });

  test('the basic lists decide before the rules', async () => {
    const { node, alice } = await setup();
    const put = await answer(
      typed().PUT('/api/routing', {
        params: { query: { nodeId: node.id } },
        body: { blockPorts: ['443'], directIps: ['203.0.113.0/24'] },
      }),
    );
    expect(put.status).toBe(200);
    expect(await ok({ nodeId: node.id, clientId: alice.id, destination: '203.0.113.9', port: 443 })).toMatchObject({
      step: 'block-list',
      matched: ['blockPorts'],
      outbound: 'blocked',
      rule: null,
    });
    expect(await ok({ nodeId: node.id, clientId: alice.id, destination: '203.0.113.9', port: 80 })).toMatchObject({
      step: 'direct-list',
      matched: ['directIps'],
      outbound: 'direct',
    });
  });

  test('bad input is a 400 naming the field; an unknown node or client a 404', async () => {
    const { node, alice, aliceIp } = await setup();
    const other = await createNodeWithInterface();
    const path = 'routing/test';
    const base = { nodeId: node.id, destination: '203.0.113.9' };
    await expectRefused('POST', path, base, 400, 'clientId');
    await expectRefused('POST', path, { ...base, clientId: alice.id, source: aliceIp }, 400, 'source');
    await expectRefused('POST', path, { ...base, source: 'not-an-address' }, 400, 'source');
    await expectRefused('POST', path, { ...base, source: '192.0.2.1' }, 400, 'source', /tunnel/);
    await expectRefused('POST', path, { ...base, source: aliceIp, destination: 'not a domain' }, 400, 'destination');
    await expectRefused('POST', path, { ...base, source: aliceIp, destination: '2001:db8::1' }, 400, 'destination');
    await expectRefused('POST', path, { ...base, source: aliceIp, destination: 'nothing.invalid' }, 400, 'destination');
    await expectRefused('POST', path, { ...base, source: aliceIp, port: 0 }, 400, 'port');
    await expectRefused('POST', path, { ...base, source: aliceIp, port: '443' }, 400, 'port');
    await expectRefused('POST', path, { ...base, source: aliceIp, protocol: 'sctp' }, 400, 'protocol');
    await expectRefused('POST', path, { ...base, source: aliceIp, extra: 1 }, 400, 'extra');
    await expectRefused('POST', path, { ...base, clientId: '00000000-0000-4000-8000-000000000000' }, 404, 'clientId');
    await expectRefused('POST', path, { ...base, clientId: 'nope' }, 404, 'clientId');
    await expectRefused(
      'POST',
      path,
      { ...base, nodeId: '00000000-0000-4000-8000-000000000000', clientId: alice.id },
      404,
      'nodeId',
    );
    // alice has no device on the other node.
    await expectRefused('POST', path, { ...base, nodeId: other.node.id, clientId: alice.id }, 400, 'clientId');
  });

  test('staff test any route; a reseller only from their own clients (another’s is a 404)', async () => {
    const { node, alice, bob, aliceIp } = await setup();
    const viewer = await createUser('viewer');
    expect(
      (await ok({ nodeId: node.id, clientId: alice.id, destination: '203.0.113.9', port: 443 }, viewer.token)).outbound,
    ).toBe('up');
    const reseller = await createUser('reseller');
    await session().t.query('update clients set owner_id = $1 where id = $2', [reseller.id, alice.id]);
    const own = await ok(
      { nodeId: node.id, clientId: alice.id, destination: '203.0.113.9', port: 443 },
      reseller.token,
    );
    expect(own.outbound).toBe('up');
    const another = await routeTest({ nodeId: node.id, clientId: bob.id, destination: '203.0.113.9' }, reseller.token);
    expect({ status: another.status, body: another.body }).toMatchObject({ status: 404, body: { field: 'clientId' } });
    const bySource = await routeTest({ nodeId: node.id, source: aliceIp, destination: '203.0.113.9' }, reseller.token);
    expect({ status: bySource.status, body: bySource.body }).toMatchObject({
      status: 403,
      body: { field: 'clientId' },
    });
  });
});

describe('POST /api/routing/apply', () => {
  test("moves the node's revision (every node's without nodeId) and answers the new revisions", async () => {
    const { node } = await setup();
    const other = await createNodeWithInterface();
    const before = await f.revisions();
    const one = await answer(typed().POST('/api/routing/apply', { body: { nodeId: node.id } }));
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ nodes: [{ nodeId: node.id, revision: before[node.id] + 1 }] });
    expect(await f.revision(other.node.id)).toBe(before[other.node.id]);

    const all = await answer(typed().POST('/api/routing/apply', { body: {} }));
    expect(all.status).toBe(200);
    const after = await f.revisions();
    expect(all.body?.nodes.map((n) => n.nodeId).sort()).toEqual(Object.keys(after).sort());
    expect(after[node.id]).toBe(before[node.id] + 2);
    expect(after[other.node.id]).toBe(before[other.node.id] + 1);
  });

  test('owner and admin only; an unknown node is a 404', async () => {
    await expectRefused('POST', 'routing/apply', { nodeId: '00000000-0000-4000-8000-000000000000' }, 404, 'nodeId');
    await expectRefused('POST', 'routing/apply', { nodeId: 5 }, 400, 'nodeId');
    for (const role of ['viewer', 'reseller'] as const) {
      const user = await createUser(role);
      const refused = await session().t.call('POST', 'routing/apply', { token: user.token, body: {} });
      expect(refused.status).toBe(403);
    }
    const admin = await createUser('admin');
    expect((await session().t.call('POST', 'routing/apply', { token: admin.token, body: {} })).status).toBe(200);
  });
});
