import { randomUUID } from 'node:crypto';
import type { components } from '#libs/api-client/index.js';
import { nodeQueueName } from '#libs/contracts/node-queue.js';
import { DeliveryService } from '../../apps/controller/src/nodes/delivery/delivery.service.js';
import { REDIS_URL } from '../support/environment.js';
import { answer, fixtures } from '../support/fixtures.js';
import { dropRedisPrefix, testQueuePrefix } from '../support/leftovers.js';
import { currentApplyJob, queuesOf } from '../support/node-queue.js';
import { createTestDatabase } from '../support/test-database.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';
import { refusal } from '../support/refusal.js';
import { waitFor } from '../support/wait-for.js';

let t: TestPanel;
let token: string;

beforeAll(async () => {
  t = await startTestPanel();
  token = await t.login();
});
afterAll(async () => {
  await t?.stop();
});

const { call, typed, createNode, createInterface, createUser, count } = fixtures(() => ({ t, token }));

/** PATCH /api/nodes/{id} through the typed client, answered as `{status, body}`. */
const patchNode = (id: string, body: components['schemas']['UpdateNodeDto']) =>
  answer(typed().PATCH('/api/nodes/{id}', { params: { path: { id } }, body }));

type Case = [string, unknown, number, string];

describe('the local node', () => {
  test('exists from the first start and is listed first; with WARREN_LOCAL_AGENT=off (every test panel) it is unmanaged', async () => {
    const list = await answer(typed().GET('/api/nodes'));
    expect(list.status).toBe(200);
    const local = list.body[0];
    expect(local).toMatchObject({
      isLocal: true,
      address: '127.0.0.1',
      note: '',
      desiredRevision: 1,
      appliedRevision: 0,
      inSync: false,
      interfaceCount: 0,
      // Not an offline node waiting for an agent: none is meant to run (issue 19 item 18).
      agent: { state: 'unmanaged', version: null, lastSeenAt: null, gaps: [], lastApply: null },
    });
    expect(list.body.filter((node: { isLocal: boolean }) => node.isLocal)).toHaveLength(1);
    expect((await answer(typed().GET('/api/nodes/{id}', { params: { path: { id: local.id } } }))).status).toBe(200);
  });

  test('cannot be enrolled over the API (its agent gets its credential from the panel at start)', async () => {
    const local = (await answer(typed().GET('/api/nodes'))).body[0];
    const before = await t.query('select enrolment_hash, credential_hash from node_agents where node_id = $1', [
      local.id,
    ]);
    const refused = await call('POST', `nodes/${local.id}/enrolment`);
    expect(refused).toMatchObject({
      status: 409,
      body: refusal('id', expect.stringContaining('enrolled by the panel itself')),
    });
    expect(
      await t.query('select enrolment_hash, credential_hash from node_agents where node_id = $1', [local.id]),
    ).toEqual(before);
  });

  test('can be renamed and described', async () => {
    const local = (await answer(typed().GET('/api/nodes'))).body[0];
    const patched = await patchNode(local.id, { name: 'controller-host', note: 'runs the panel' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      id: local.id,
      name: 'controller-host',
      note: 'runs the panel',
      isLocal: true,
    });
    // Metadata does not change what the host must look like: no revision bump.
    expect(patched.body.desiredRevision).toBe(local.desiredRevision);
  });
});

describe('nodes', () => {
  test('create, read, list, change', async () => {
    const created = await answer(
      typed().POST('/api/nodes', { body: { name: 'fra-1', address: 'fra-1.example.com', note: 'Frankfurt' } }),
    );
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'fra-1',
      address: 'fra-1.example.com',
      note: 'Frankfurt',
      isLocal: false,
      desiredRevision: 1,
      appliedRevision: 0,
      inSync: false,
      interfaceCount: 0,
      tunnelsStopped: false,
      agent: { state: 'never-enrolled', version: null, lastSeenAt: null, gaps: [], lastApply: null },
      enrolment: {
        secret: expect.stringMatching(/^wne_[0-9A-Za-z]{46}$/),
        expiresAt: expect.any(String),
        // A plain-http panel prints no installer piped into bash: the agent's own command, the secret in its environment.
        command: expect.stringMatching(
          /^WARREN_ENROL_SECRET='wne_[0-9A-Za-z]{46}' warren-agent --controller 'http:\/\/127\.0\.0\.1:\d+'$/,
        ),
        agentCommand: expect.stringMatching(
          /^WARREN_ENROL_SECRET='wne_[0-9A-Za-z]{46}' warren-agent --controller 'http:\/\/127\.0\.0\.1:\d+'$/,
        ),
      },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(created.body.enrolment!.command).toContain(created.body.enrolment!.secret);
    const { enrolment: _enrolment, ...stored } = created.body;
    expect((await answer(typed().GET('/api/nodes/{id}', { params: { path: { id: created.body.id } } }))).body).toEqual(
      stored,
    );
    expect((await answer(typed().GET('/api/nodes'))).body.map((node: { id: string }) => node.id)).toContain(
      created.body.id,
    );

    const patched = await patchNode(created.body.id, { address: '2001:db8::7', note: '' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'fra-1', address: '2001:db8::7', note: '' });
    expect(
      (await answer(typed().POST('/api/nodes', { body: { name: 'ams-1', address: '198.51.100.9' } }))).body.note,
    ).toBe('');
  });

  test('interfaceCount counts each node\u2019s interfaces', async () => {
    const node = await createNode();
    for (let i = 0; i < 3; i++) {
      const created = await call('POST', 'interfaces', {
        nodeId: node.id,
        name: `wg${i}`,
        listenPort: 51820 + i,
        subnet: `10.1.${i}.0/24`,
        endpointHost: 'vpn.example.com',
      });
      expect(created.status).toBe(201);
    }
    expect((await answer(typed().GET('/api/nodes/{id}', { params: { path: { id: node.id } } }))).body).toMatchObject({
      interfaceCount: 3,
      desiredRevision: 4,
    });
    const listed = (await answer(typed().GET('/api/nodes'))).body.find(
      (entry: { id: string }) => entry.id === node.id,
    )!;
    expect(listed.interfaceCount).toBe(3);
  });

  describe('bad input: 4xx with {error, field}, nothing written', () => {
    beforeAll(async () => {
      await createNode({ name: 'taken' });
    });

    const cases: Case[] = [
      ['duplicate name', { name: 'taken', address: 'a.example.com' }, 409, 'name'],
      ['name missing', { address: 'a.example.com' }, 400, 'name'],
      ['name empty', { name: '', address: 'a.example.com' }, 400, 'name'],
      ['name too long', { name: 'x'.repeat(65), address: 'a.example.com' }, 400, 'name'],
      ['name with a newline', { name: 'a\nb', address: 'a.example.com' }, 400, 'name'],
      ['name of the wrong type', { name: 12, address: 'a.example.com' }, 400, 'name'],
      ['address missing', { name: 'new' }, 400, 'address'],
      ['address not a host', { name: 'new', address: 'not a host' }, 400, 'address'],
      ['address with a port', { name: 'new', address: 'a.example.com:22' }, 400, 'address'],
      ['address too long', { name: 'new', address: `${'a'.repeat(60)}.`.repeat(5) + 'com' }, 400, 'address'],
      ['note too long', { name: 'new', address: 'a.example.com', note: 'x'.repeat(513) }, 400, 'note'],
      ['note null', { name: 'new', address: 'a.example.com', note: null }, 400, 'note'],
      ['unknown field', { name: 'new', address: 'a.example.com', isLocal: true }, 400, 'isLocal'],
      ['revision given', { name: 'new', address: 'a.example.com', desiredRevision: 9 }, 400, 'desiredRevision'],
    ];

    test.each(cases)('%s', async (...[, body, status, field]: Case) => {
      const before = await count('nodes');
      const response = await call('POST', 'nodes', body);
      expect({ status: response.status, body: response.body }).toEqual({
        status,
        body: refusal(field),
      });
      expect(await count('nodes')).toBe(before);
    });

    test('refused changes leave the node as it was', async () => {
      // The enrolment secret is in the creation answer only.
      const { enrolment: _enrolment, ...node } = await createNode();
      const cases: [unknown, number, string][] = [
        [{ name: 'taken' }, 409, 'name'],
        [{ name: null }, 400, 'name'],
        [{ address: 'bad address' }, 400, 'address'],
        [{ isLocal: true }, 400, 'isLocal'],
        [{ appliedRevision: 5 }, 400, 'appliedRevision'],
      ];
      for (const [body, status, field] of cases) {
        const response = await call('PATCH', `nodes/${node.id}`, body);
        expect({ body, status: response.status, field: response.body.field }).toEqual({ body, status, field });
      }
      expect((await call('GET', `nodes/${node.id}`)).body).toEqual(node);
    });
  });

  test('parallel creations with one name: exactly one wins', async () => {
    const before = await count('nodes');
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => call('POST', 'nodes', { name: 'raced', address: 'r.example.com' })),
    );
    expect(responses.map((response) => response.status).sort()).toEqual([
      201, 409, 409, 409, 409, 409, 409, 409, 409, 409,
    ]);
    expect(
      responses.filter((response) => response.status === 409).every((response) => response.body.field === 'name'),
    ).toBe(true);
    expect(await count('nodes')).toBe(before + 1);
  });

  test('unknown ids are 404 naming id', async () => {
    for (const id of [randomUUID(), 'nope']) {
      for (const [method, body] of [
        ['GET', undefined],
        ['PATCH', { note: 'x' }],
        ['DELETE', undefined],
      ] as const) {
        const response = await call(method, `nodes/${id}`, body);
        expect({ method, status: response.status, body: response.body }).toEqual({
          method,
          status: 404,
          body: refusal('id', 'node not found'),
        });
      }
    }
  });
});

describe('deleting nodes', () => {
  test('a node without interfaces goes at once', async () => {
    const node = await createNode();
    expect((await answer(typed().DELETE('/api/nodes/{id}', { params: { path: { id: node.id } } }))).body).toEqual({
      id: node.id,
      deleted: true,
      interfacesRemoved: 0,
    });
    expect((await call('GET', `nodes/${node.id}`)).status).toBe(404);
  });

  test('a node with interfaces refuses, saying how many, unless ?force=true', async () => {
    const node = await createNode();
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const created = await call('POST', 'interfaces', {
        nodeId: node.id,
        name: `wg${i}`,
        listenPort: 51820 + i,
        subnet: `10.2.${i}.0/24`,
        endpointHost: 'vpn.example.com',
      });
      ids.push(created.body.id);
    }
    await call('POST', 'hosts', { interfaceId: ids[0], name: 'alt', address: 'alt.example.com' });

    const refused = await call('DELETE', `nodes/${node.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      error: '2 interfaces are still on this node; delete them or pass ?force=true',
      field: '',
    });
    expect((await call('DELETE', `nodes/${node.id}?force=false`)).status).toBe(409);
    for (const bad of ['yes', '1', 'True']) {
      const response = await call('DELETE', `nodes/${node.id}?force=${bad}`);
      expect({ bad, status: response.status, body: response.body }).toEqual({
        bad,
        status: 400,
        body: refusal('force', '"force" must be true or false.'),
      });
    }
    expect((await call('DELETE', `nodes/${node.id}?forced=true`)).body.field).toBe('forced');
    expect(
      (await answer(typed().GET('/api/nodes/{id}', { params: { path: { id: node.id } } }))).body.interfaceCount,
    ).toBe(2);

    const forced = await answer(
      typed().DELETE('/api/nodes/{id}', { params: { path: { id: node.id }, query: { force: 'true' } } }),
    );
    expect(forced.body).toEqual({ id: node.id, deleted: true, interfacesRemoved: 2 });
    expect(await t.query('select id from interfaces where id = any($1::uuid[])', [ids])).toHaveLength(0);
    expect(await t.query('select id from hosts where interface_id = any($1::uuid[])', [ids])).toHaveLength(0);
  });

  test('one interface is counted in the singular', async () => {
    const node = await createNode();
    await call('POST', 'interfaces', {
      nodeId: node.id,
      name: 'wg0',
      listenPort: 51820,
      subnet: '10.3.0.0/24',
      endpointHost: 'vpn.example.com',
    });
    expect((await call('DELETE', `nodes/${node.id}`)).body.error).toBe(
      '1 interface is still on this node; delete it or pass ?force=true',
    );
  });
});

describe('enrolling a node again', () => {
  // An agent enrolled with the secret receives the node's desired state: its interfaces' private
  // keys and its hops' passwords, which only the owner is ever shown (issue 19, the re-trial).
  test('only the owner enrols again a node holding interfaces or hops; an admin may enrol a bare one', async () => {
    const admin = await createUser('admin');
    const bare = await createNode();
    const asAdmin = (id: string) => t.call('POST', `nodes/${id}/enrolment`, { token: admin.token });
    expect((await asAdmin(bare.id)).status).toBe(201);

    const holding = await createNode();
    await createInterface({ nodeId: holding.id });
    const before = await t.query('select enrolment_hash from node_agents where node_id = $1', [holding.id]);
    const refused = await asAdmin(holding.id);
    expect(refused).toMatchObject({ status: 403, body: refusal('id', expect.stringContaining('only the owner')) });
    expect(await t.query('select enrolment_hash from node_agents where node_id = $1', [holding.id])).toEqual(before);
    expect((await call('POST', `nodes/${holding.id}/enrolment`)).status).toBe(201);
  });
});

describe('the local node and WARREN_LOCAL_AGENT (issue 19 item 18)', () => {
  // One database and one queue prefix through restarts of the panel with the local agent off and
  // on (`external`: the panel hands the credential over and starts no agent, so nothing touches
  // this host).
  const prefix = testQueuePrefix();
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let p: TestPanel | undefined;
  let pToken = '';
  const f = fixtures(() => ({ t: p!, token: pToken }));
  const restart = async (localAgent: 'off' | 'external') => {
    await p?.stop();
    p = undefined;
    p = await startTestPanel({ WARREN_LOCAL_AGENT: localAgent, WARREN_QUEUE_PREFIX: prefix }, { database });
    pToken = await p.login();
  };
  const localNode = async () =>
    (await answer(f.typed().GET('/api/nodes'))).body.find((node: { isLocal: boolean }) => node.isLocal);
  /** Apply jobs still to be taken from the node's queue. */
  const waitingJobs = async (nodeId: string) => {
    const counts = await queuesOf(p!).queue(nodeQueueName(nodeId)).getJobCounts('waiting', 'delayed', 'prioritized');
    return counts.waiting + counts.delayed + counts.prioritized;
  };
  /** Whatever delivery would do for the node now, done: a sweep, and every delivery it started. */
  const deliveryDone = async () => {
    const delivery = p!.panel.app.get(DeliveryService);
    await delivery.sweep();
    await delivery.settled();
  };

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await p?.stop();
    await dropRedisPrefix(REDIS_URL, prefix);
    await database?.drop();
  });

  test('off: the local node is unmanaged, gets no job, and counts as neither offline nor behind', async () => {
    await restart('off');
    const local = (await localNode())!;
    expect(local.agent.state).toBe('unmanaged');
    await f.createInterface({ nodeId: local.id });
    await deliveryDone();
    expect(await waitingJobs(local.id)).toBe(0);
    expect((await f.getNode(local.id)).agent.state).toBe('unmanaged');
    const overview = await p!.call('GET', 'overview/full', { token: pToken });
    expect(overview.body.panel.nodes).toEqual({ total: 1, inSync: 0, behind: 0, offline: 0, unmanaged: 1 });
    expect(overview.body.telemetry.nodes[0].agent.state).toBe('unmanaged');
    const metrics = await fetch(`${p!.api}/metrics`, { headers: { authorization: `Bearer ${pToken}` } });
    const text = await metrics.text();
    expect(text).toMatch(/^warren_nodes\{state="offline"\} 0$/m);
    expect(text).toMatch(/^warren_nodes\{state="behind"\} 0$/m);
    expect(text).toMatch(/^warren_nodes\{state="unmanaged"\} 1$/m);
    // No in-sync series that an alert on 0 would fire on, and nothing waiting on its queue.
    expect(text).not.toContain(`warren_node_in_sync{node="${local.id}"}`);
    expect(text).toMatch(new RegExp(`^warren_node_queue_jobs\\{node="${local.id}",state="waiting"\\} 0$`, 'm'));
  });

  test('turned on, the same node is managed again: its agent is waited for and its state delivered; it cannot be deleted', async () => {
    await restart('external');
    const local = (await localNode())!;
    // The panel issued the local agent's credential; the agent (its own unit) has not linked yet.
    expect(local).toMatchObject({ interfaceCount: 1, agent: { state: 'enrolled' } });
    expect((await currentApplyJob(p!, local.id)).data.interfaces).toHaveLength(1);
    const overview = await p!.call('GET', 'overview/full', { token: pToken });
    expect(overview.body.panel.nodes).toMatchObject({ offline: 1, unmanaged: 0 });
    for (const path of [`nodes/${local.id}`, `nodes/${local.id}?force=true`]) {
      expect(await f.call('DELETE', path)).toMatchObject({
        status: 409,
        body: {
          error: expect.stringMatching(/^the local node cannot be deleted: this panel runs its agent/),
          field: '',
        },
      });
    }
  });

  test('turned off again: the apply job left waiting is withdrawn, and the node can be deleted and stays deleted', async () => {
    await restart('off');
    const local = (await localNode())!;
    expect(local.agent.state).toBe('unmanaged');
    await waitFor('the waiting apply job withdrawn', async () => (await waitingJobs(local.id)) === 0);
    // The usual rule for interfaces still holds: one is on it.
    expect((await f.call('DELETE', `nodes/${local.id}`)).status).toBe(409);
    expect(await f.call('DELETE', `nodes/${local.id}?force=true`)).toMatchObject({
      status: 200,
      body: { id: local.id, deleted: true, interfacesRemoved: 1 },
    });
    expect(await localNode()).toBeUndefined();
    // Not made again by a restart with the local agent off...
    await restart('off');
    expect(await localNode()).toBeUndefined();
    expect(
      await f.call('POST', 'interfaces', {
        name: 'wg9',
        listenPort: 51829,
        subnet: '10.9.9.0/24',
        endpointHost: 'vpn.example.com',
      }),
    ).toMatchObject({ status: 404, body: { field: 'nodeId' } });
    // ...only by one with the local agent on, which needs its node.
    await restart('external');
    expect(await localNode()).toMatchObject({ agent: { state: 'enrolled' }, interfaceCount: 0 });
  });
});
