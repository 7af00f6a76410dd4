import { applyJobSchema } from '#libs/contracts/node-queue.js';
import { enrol, helloAs, closeLinks } from '../support/agent-link-client.js';
import { answer, fixtures, signedInPanel, type Schemas } from '../support/fixtures.js';
import { currentApplyJob } from '../support/node-queue.js';
import { waitFor } from '../support/wait-for.js';

const session = signedInPanel();
const f = fixtures(session, {
  unchanged: async () => [
    await session().t.query('select * from routing_rules order by id'),
    await session().t.query('select * from routing_basics order by node_id'),
    await f.count('outbounds'),
    await f.revisions(),
  ],
});
const { typed, createNode, createNodeWithInterface, createClient, expectRefused } = f;
afterAll(() => closeLinks());

type RuleBody = Schemas['CreateRuleDto'];

async function routingOf(nodeId?: string) {
  const read = await answer(typed().GET('/api/routing', { params: { query: nodeId ? { nodeId } : {} } }));
  expect(read.status).toBe(200);
  return read.body;
}

async function createRule(body: RuleBody, nodeId?: string) {
  const created = await answer(
    typed().POST('/api/routing/rules', { params: { query: nodeId ? { nodeId } : {} }, body }),
  );
  expect({ status: created.status, body: created.body }).toMatchObject({ status: 201 });
  return created.body;
}

async function createHop(tag: string, nodeId?: string) {
  const created = await answer(
    typed().POST('/api/outbounds', { body: { nodeId, tag, kind: 'socks', address: '203.0.113.50:1080' } }),
  );
  expect(created.status).toBe(201);
  return created.body;
}

async function desired(nodeId: string) {
  return applyJobSchema.parse((await currentApplyJob(session().t, nodeId)).data);
}

test('a node routes everything direct until told otherwise', async () => {
  const node = await createNode();
  expect(await routingOf(node.id)).toEqual({
    nodeId: node.id,
    basic: {
      defaultOutbound: 'direct',
      blockBitTorrent: false,
      blockIps: [],
      blockDomains: [],
      blockPorts: [],
      directIps: [],
      directDomains: [],
      failClosed: true, // fail closed by default (issue 19 item 8)
    },
    rules: [],
  });
  const local = await routingOf();
  expect(local.rules).toEqual([]);
});

test('PUT /api/routing changes the basic settings (absent fields kept, lists normalised) and bumps the node', async () => {
  const node = await createNode();
  await createHop('via', node.id);
  const before = await f.revision(node.id);
  const put = await answer(
    typed().PUT('/api/routing', {
      params: { query: { nodeId: node.id } },
      body: {
        defaultOutbound: 'via',
        blockBitTorrent: true,
        blockIps: ['192.0.2.1', '10.0.0.0/8', '192.0.2.1/32'],
        blockDomains: ['Ads.Example.com.'],
        blockPorts: ['25', '6881-6889'],
        failClosed: true,
      },
    }),
  );
  expect(put.body.basic).toEqual({
    defaultOutbound: 'via',
    blockBitTorrent: true,
    blockIps: ['192.0.2.1/32', '10.0.0.0/8'],
    blockDomains: ['ads.example.com'],
    blockPorts: ['25', '6881-6889'],
    directIps: [],
    directDomains: [],
    failClosed: true,
  });
  expect(await f.revision(node.id)).toBe(before + 1);
  const again = await answer(
    typed().PUT('/api/routing', {
      params: { query: { nodeId: node.id } },
      body: { directDomains: ['intranet.example'] },
    }),
  );
  expect(again.body.basic).toMatchObject({
    defaultOutbound: 'via',
    failClosed: true,
    directDomains: ['intranet.example'],
  });
  // The same again changes nothing and bumps nothing.
  await answer(typed().PUT('/api/routing', { params: { query: { nodeId: node.id } }, body: { failClosed: true } }));
  expect(await f.revision(node.id)).toBe(before + 2);

  const job = await desired(node.id);
  expect(job.routing).toMatchObject({
    defaultOutbound: 'via',
    failClosed: true,
    blockBitTorrent: true,
    blockPorts: ['25', '6881-6889'],
    directDomains: ['intranet.example'],
    rules: [],
  });
});

test('bad basic settings are refused with the field at fault and nothing applied', async () => {
  const node = await createNode();
  const hop = await createHop('off', node.id);
  await answer(typed().PATCH('/api/outbounds/{id}', { params: { path: { id: hop.id } }, body: { enabled: false } }));
  const path = `routing?nodeId=${node.id}`;
  await expectRefused('PUT', path, { defaultOutbound: 'nope' }, 400, 'defaultOutbound');
  await expectRefused('PUT', path, { defaultOutbound: 'off' }, 400, 'defaultOutbound', /disabled/);
  await expectRefused('PUT', path, { blockIps: ['10.0.0.0/8', '10.0.0.300'] }, 400, 'blockIps.1');
  await expectRefused('PUT', path, { blockPorts: ['0'] }, 400, 'blockPorts.0');
  await expectRefused('PUT', path, { blockPorts: ['90-80'] }, 400, 'blockPorts.0');
  await expectRefused('PUT', path, { directDomains: ['ok.example', 'not a domain'] }, 400, 'directDomains.1');
  await expectRefused('PUT', path, { failClosed: 'yes' }, 400, 'failClosed');
  await expectRefused(
    'PUT',
    'routing?nodeId=00000000-0000-4000-8000-000000000000',
    { failClosed: true },
    404,
    'nodeId',
  );
});

test('rules: created at the end of the order, changed, deleted; each change bumps the node', async () => {
  const node = await createNode();
  await createHop('hop1', node.id);
  const before = await f.revision(node.id);
  const first = await createRule(
    { name: 'web via hop', ports: ['443', '80'], network: 'tcp', outboundTag: 'hop1' },
    node.id,
  );
  const second = await createRule({ name: 'drop dns', ports: ['53'], outboundTag: 'blocked' }, node.id);
  expect(first).toMatchObject({
    nodeId: node.id,
    position: 0,
    enabled: true,
    outboundTag: 'hop1',
    hits: 0,
    ports: ['443', '80'],
    network: 'tcp',
  });
  expect(second.position).toBe(1);
  expect(await f.revision(node.id)).toBe(before + 2);
  const changed = await answer(
    typed().PATCH('/api/routing/rules/{id}', {
      params: { path: { id: first.id } },
      body: { outboundTag: 'direct', network: null, destIps: ['198.51.100.0/24'] },
    }),
  );
  expect(changed.body).toMatchObject({
    outboundTag: 'direct',
    network: null,
    destIps: ['198.51.100.0/24'],
    ports: ['443', '80'],
  });
  expect((await routingOf(node.id)).rules.map((rule) => rule.id)).toEqual([first.id, second.id]);
  const deleted = await answer(typed().DELETE('/api/routing/rules/{id}', { params: { path: { id: second.id } } }));
  expect(deleted.body).toEqual({ id: second.id, deleted: true });
  expect((await routingOf(node.id)).rules.map((rule) => rule.id)).toEqual([first.id]);
  expect(await f.revision(node.id)).toBe(before + 4);
});

test('bad rules are refused with the field at fault and nothing applied', async () => {
  const { node } = await createNodeWithInterface();
  const other = await createNodeWithInterface();
  const path = `routing/rules?nodeId=${node.id}`;
  await expectRefused('POST', path, { name: 'r', ports: ['443'], outboundTag: 'missing' }, 400, 'outboundTag');
  await createHop('elsewhere', other.node.id);
  await expectRefused('POST', path, { name: 'r', ports: ['443'], outboundTag: 'elsewhere' }, 400, 'outboundTag');
  await expectRefused('POST', path, { name: 'r', outboundTag: 'direct' }, 400, 'sourceIps', /at least one criterion/);
  await expectRefused('POST', path, { name: 'r', network: null, ports: [], outboundTag: 'direct' }, 400, 'sourceIps');
  await expectRefused('POST', path, { name: ' ', ports: ['1'], outboundTag: 'direct' }, 400, 'name');
  await expectRefused('POST', path, { name: 'r', ports: ['443', 'https'], outboundTag: 'direct' }, 400, 'ports.1');
  await expectRefused(
    'POST',
    path,
    { name: 'r', sourceIps: ['10.0.0.0/33'], outboundTag: 'direct' },
    400,
    'sourceIps.0',
  );
  await expectRefused('POST', path, { name: 'r', domains: ['-bad-.example'], outboundTag: 'direct' }, 400, 'domains.0');
  await expectRefused('POST', path, { name: 'r', network: 'sctp', outboundTag: 'direct' }, 400, 'network');
  await expectRefused(
    'POST',
    path,
    { name: 'r', clients: ['00000000-0000-4000-8000-000000000000'], outboundTag: 'direct' },
    400,
    'clients.0',
  );
  await expectRefused('POST', path, { name: 'r', clients: ['nope'], outboundTag: 'direct' }, 400, 'clients.0');
  await expectRefused(
    'POST',
    path,
    { name: 'r', interfaces: [other.iface.id], outboundTag: 'direct' },
    400,
    'interfaces.0',
  );
  await expectRefused('POST', path, { name: 'r', ports: ['1'], outboundTag: 'direct', hits: 5 }, 400, 'hits');
  const rule = await createRule({ name: 'ok', ports: ['1'], outboundTag: 'direct' }, node.id);
  await expectRefused('PATCH', `routing/rules/${rule.id}`, { outboundTag: 'missing' }, 400, 'outboundTag');
  await expectRefused('PATCH', `routing/rules/${rule.id}`, { ports: [] }, 400, 'sourceIps');
  await expectRefused('PATCH', 'routing/rules/00000000-0000-4000-8000-000000000000', { enabled: false }, 404, 'id');
});

test('POST /api/routing/rules/order sets the order; unknown ids are a 404, repeated or missing ones a 400 on ids', async () => {
  const node = await createNode();
  const rules = [];
  for (const name of ['a', 'b', 'c'])
    rules.push(await createRule({ name, ports: ['1'], outboundTag: 'direct' }, node.id));
  const [a, b, c] = rules.map((rule) => rule.id);
  const path = `routing/rules/order?nodeId=${node.id}`;
  await expectRefused('POST', path, { ids: [c, a, '00000000-0000-4000-8000-000000000000'] }, 404, 'ids');
  await expectRefused('POST', path, { ids: [c, a, a] }, 400, 'ids');
  await expectRefused('POST', path, { ids: [c, a] }, 400, 'ids');
  await expectRefused('POST', path, { ids: [c, a, b, 'x'] }, 400, 'ids');
  const otherNode = await createNode();
  const foreign = await createRule({ name: 'z', ports: ['1'], outboundTag: 'direct' }, otherNode.id);
  await expectRefused('POST', path, { ids: [c, a, foreign.id] }, 404, 'ids');

  const before = await f.revision(node.id);
  const ordered = await answer(
    typed().POST('/api/routing/rules/order', { params: { query: { nodeId: node.id } }, body: { ids: [c, a, b] } }),
  );
  expect(ordered.body.rules.map((rule) => [rule.id, rule.position])).toEqual([
    [c, 0],
    [a, 1],
    [b, 2],
  ]);
  expect(await f.revision(node.id)).toBe(before + 1);
  expect((await desired(node.id)).routing!.rules.map((rule) => rule.id)).toEqual([c, a, b]);
});

test('an outbound still used by rules or as the default cannot be deleted (409 naming the rules); renaming it keeps them', async () => {
  const node = await createNode();
  const hop = await createHop('busy', node.id);
  const one = await createRule({ name: 'first user', ports: ['1'], outboundTag: 'busy' }, node.id);
  const two = await createRule({ name: 'second user', ports: ['2'], outboundTag: 'busy' }, node.id);
  const refused = await expectRefused('DELETE', `outbounds/${hop.id}`, undefined, 409, '');
  expect(refused.error).toContain('"first user"');
  expect(refused.error).toContain('"second user"');
  expect(refused.error).toContain(one.id);

  const renamed = await answer(
    typed().PATCH('/api/outbounds/{id}', { params: { path: { id: hop.id } }, body: { tag: 'busy2' } }),
  );
  expect(renamed.status).toBe(200);
  expect((await routingOf(node.id)).rules.map((rule) => rule.outboundTag)).toEqual(['busy2', 'busy2']);

  for (const rule of [one, two])
    await answer(typed().DELETE('/api/routing/rules/{id}', { params: { path: { id: rule.id } } }));
  await answer(
    typed().PUT('/api/routing', { params: { query: { nodeId: node.id } }, body: { defaultOutbound: 'busy2' } }),
  );
  await expectRefused('DELETE', `outbounds/${hop.id}`, undefined, 409, '', /default/);
  await expectRefused('PATCH', `outbounds/${hop.id}`, { enabled: false }, 409, 'enabled', /default/);
  await answer(
    typed().PUT('/api/routing', { params: { query: { nodeId: node.id } }, body: { defaultOutbound: 'direct' } }),
  );
  const deleted = await answer(typed().DELETE('/api/outbounds/{id}', { params: { path: { id: hop.id } } }));
  expect(deleted.status).toBe(200);
});

test('the desired state carries the routing resolved for the node: clients and groups as tunnel addresses, interfaces as names, disabled rules and hops handled', async () => {
  const { node, iface } = await createNodeWithInterface();
  const other = await createNodeWithInterface();
  const alice = await createClient({ interfaceIds: [iface.id], groups: ['staff'] });
  const bob = await createClient({ interfaceIds: [iface.id], groups: ['guests'] });
  const carol = await createClient({ interfaceIds: [other.iface.id], groups: ['staff'] });
  const ipOf = async (clientId: string) => (await f.accountsOf(clientId)).map((account) => `${account.ip}/32`);
  const hop = await createHop('up', node.id);

  const byClient = await createRule({ name: 'alice via hop', clients: [alice.id], outboundTag: 'up' }, node.id);
  const byGroup = await createRule(
    { name: 'staff', groups: ['staff'], ports: ['443'], outboundTag: 'direct' },
    node.id,
  );
  const nobody = await createRule({ name: 'carol only', clients: [carol.id], outboundTag: 'blocked' }, node.id);
  const byInterface = await createRule(
    { name: 'on the tunnel', interfaces: [iface.id], destIps: ['198.51.100.0/24'], outboundTag: 'blocked' },
    node.id,
  );
  const off = await createRule({ name: 'disabled', ports: ['22'], outboundTag: 'blocked' }, node.id);
  await answer(
    typed().PATCH('/api/routing/rules/{id}', { params: { path: { id: off.id } }, body: { enabled: false } }),
  );
  const narrowed = await createRule(
    { name: 'bob, inside 192.0.2.0/24 only', clients: [bob.id], sourceIps: ['192.0.2.0/24'], outboundTag: 'direct' },
    node.id,
  );

  const routing = (await desired(node.id)).routing!;
  expect(routing.rules.map((rule) => rule.id)).toEqual([
    byClient.id,
    byGroup.id,
    nobody.id,
    byInterface.id,
    narrowed.id,
  ]);
  expect(routing.rules[0]).toEqual({
    id: byClient.id,
    outbound: 'up',
    sourceIps: await ipOf(alice.id),
    sourcePorts: [],
    network: null,
    destIps: [],
    domains: [],
    ports: [],
    inInterfaces: [],
    matchesNothing: false,
  });
  expect(routing.rules[1]).toMatchObject({ sourceIps: await ipOf(alice.id), ports: ['443'], matchesNothing: false });
  // carol has no device on this node: the rule must not fall back to "any source".
  expect(routing.rules[2]).toMatchObject({ sourceIps: [], matchesNothing: true });
  expect(routing.rules[3]).toMatchObject({
    inInterfaces: [iface.name],
    destIps: ['198.51.100.0/24'],
    matchesNothing: false,
  });
  // bob's address is not inside 192.0.2.0/24: every given criterion must match, so nothing does.
  expect(routing.rules[4]).toMatchObject({ sourceIps: [], matchesNothing: true });

  // A group change moves a client in or out of a group rule.
  await answer(
    typed().PATCH('/api/clients/{id}', { params: { path: { id: bob.id } }, body: { groups: ['guests', 'staff'] } }),
  );
  const regrouped = (await desired(node.id)).routing!;
  expect([...regrouped.rules[1].sourceIps].sort()).toEqual([...(await ipOf(alice.id)), ...(await ipOf(bob.id))].sort());

  // A disabled hop is not delivered; its rules go to blocked (fail closed, the default), or direct when fail open.
  await answer(typed().PATCH('/api/outbounds/{id}', { params: { path: { id: hop.id } }, body: { enabled: false } }));
  let state = await desired(node.id);
  expect(state.outbounds).toEqual([]);
  expect(state.routing!.rules[0].outbound).toBe('blocked');
  expect(state.routing!.failClosed).toBe(true);
  await answer(typed().PUT('/api/routing', { params: { query: { nodeId: node.id } }, body: { failClosed: false } }));
  state = await desired(node.id);
  expect(state.routing!.rules[0].outbound).toBe('direct');
});

test("rule-hits from the node's agent add up into its rules' hits; another node's rule ids change nothing", async () => {
  const { t } = session();
  const node = await createNode();
  const other = await createNode();
  const rule = await createRule({ name: 'counted', ports: ['443'], outboundTag: 'direct' }, node.id);
  const foreign = await createRule({ name: 'not yours', ports: ['443'], outboundTag: 'direct' }, other.id);
  const { credential } = await enrol(t, node.enrolment!.secret);
  const link = await helloAs(t, credential);
  link.send({
    type: 'rule-hits',
    rules: [
      { id: rule.id, packets: 5 },
      { id: foreign.id, packets: 7 },
    ],
  });
  link.send({ type: 'rule-hits', rules: [{ id: rule.id, packets: 3 }] });
  await waitFor('the hits added up', async () => (await routingOf(node.id)).rules[0].hits === 8);
  expect((await routingOf(other.id)).rules[0].hits).toBe(0);
  link.socket.terminate();
});

test('deleting a node takes its hops, rules and basics with it', async () => {
  const node = await createNode();
  await createHop('gone', node.id);
  await createRule({ name: 'gone too', ports: ['1'], outboundTag: 'gone' }, node.id);
  await answer(
    typed().PUT('/api/routing', { params: { query: { nodeId: node.id } }, body: { defaultOutbound: 'gone' } }),
  );
  const deleted = await answer(typed().DELETE('/api/nodes/{id}', { params: { path: { id: node.id } } }));
  expect(deleted.status).toBe(200);
  for (const table of ['outbounds', 'routing_rules', 'routing_basics']) {
    expect(await session().t.query(`select 1 from ${table} where node_id = $1`, [node.id])).toEqual([]);
  }
});
