import type { PeerCounters } from '../../libs/contracts/agent-link.js';
import { UsageService } from '../../apps/controller/src/clients/usage.service.js';
import { DeliveryRepository } from '../../apps/controller/src/nodes/delivery/delivery.repository.js';
import { answer, fixtures } from '../support/fixtures.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';

/**
 * GET /api/sharing and its rule, driven through the service the agent link calls with endpoints
 * as WireGuard reports them (the real thing, two wireguard-go clients on one profile, is
 * test/e2e/sharing-tunnel.spec.ts); and the quotas the desired state carries to the agent
 * (enforced on real tunnels in test/e2e/agent-quota.spec.ts).
 */

let t: TestPanel;
let token: string;
let usage: UsageService;
let seq = 0;

beforeAll(async () => {
  t = await startTestPanel();
  token = await t.login();
  usage = t.panel.app.get(UsageService);
});

afterAll(async () => {
  await t?.stop();
});

const { call, createNodeWithInterface, createClient, accountsOf, getClient, revision } = fixtures(() => ({ t, token }));

async function clientOnNode(body: Record<string, unknown> = {}) {
  const { node, iface } = await createNodeWithInterface();
  const client = await createClient({ interfaceIds: [iface.id], ...body });
  const [account] = await accountsOf(client.id);
  const report = (endpoint: string, at: Date, bytes = 100): Promise<unknown> => {
    const peer: PeerCounters = {
      interface: iface.name,
      publicKey: account.public_key as string,
      rxBytes: bytes,
      txBytes: bytes,
      lastHandshake: at.getTime() - 1000,
      endpoint,
    };
    return usage.recordCounters(node.id, ++seq, [peer], at);
  };
  return { nodeId: node.id as string, client, account, report };
}

const sharing = async () => (await call('GET', 'sharing')).body;
const listed = async (clientId: string) =>
  (await sharing()).devices.find((device: { clientId: string }) => device.clientId === clientId);

test('a device over sharingMaxAddresses addresses in the window is listed with the evidence; one move is not', async () => {
  const { client, report } = await clientOnNode();
  const start = Date.now() - 60_000;
  await report('198.51.100.1:4000', new Date(start));
  await report('198.51.100.1:4001', new Date(start + 1000)); // the same place, another port: no move
  await report('203.0.113.2:5000', new Date(start + 2000));
  expect(await listed(client.id)).toBeUndefined();
  await report('[2001:db8::3]:6000', new Date(start + 3000));
  const device = await listed(client.id);
  expect(device).toMatchObject({ reason: 'many-addresses', clientName: client.name, clientStatus: 'active' });
  expect(device.addresses).toEqual([
    {
      address: '2001:db8::3',
      firstSeen: new Date(start + 3000).toISOString(),
      lastSeen: new Date(start + 3000).toISOString(),
      moves: 1,
    },
    {
      address: '203.0.113.2',
      firstSeen: new Date(start + 2000).toISOString(),
      lastSeen: new Date(start + 2000).toISOString(),
      moves: 1,
    },
    {
      address: '198.51.100.1',
      firstSeen: new Date(start).toISOString(),
      lastSeen: new Date(start).toISOString(),
      moves: 1,
    },
  ]);
  const body = await sharing();
  expect(body).toMatchObject({ windowMinutes: 60, maxAddresses: 3, action: 'flag' });
  // Flagging changes nothing.
  expect((await getClient(client.id)).status).toBe('active');
});

test('an endpoint going back and forth between two places is several at once; a device that last moved before the window is not listed', async () => {
  const { client, report } = await clientOnNode();
  const long = Date.now() - 3 * 3600_000;
  await report('198.51.100.10:1', new Date(long));
  await report('198.51.100.11:1', new Date(long + 1000));
  await report('198.51.100.10:1', new Date(long + 2000));
  await report('198.51.100.11:1', new Date(long + 3000));
  expect(await listed(client.id)).toBeUndefined();
  const now = Date.now() - 10_000;
  for (const [i, address] of ['198.51.100.10', '198.51.100.11', '198.51.100.10'].entries())
    await report(`${address}:2`, new Date(now + i * 1000));
  const device = await listed(client.id);
  expect(device.reason).toBe('several-at-once');
  expect(device.addresses.map((a: { address: string; moves: number }) => [a.address, a.moves])).toEqual([
    ['198.51.100.10', 4],
    ['198.51.100.11', 3],
  ]);
});

test('with sharingAction disable, the next moves disable the client and take its peers off its node', async () => {
  const { nodeId, client, report } = await clientOnNode();
  expect((await call('PATCH', 'settings', { sharingAction: 'disable', sharingMaxAddresses: 2 })).status).toBe(200);
  try {
    const before = await revision(nodeId);
    const now = Date.now() - 5000;
    await report('198.51.100.20:1', new Date(now));
    expect((await getClient(client.id)).status).toBe('active');
    await report('198.51.100.21:1', new Date(now + 1000));
    expect((await getClient(client.id)).status).toBe('disabled');
    expect(await revision(nodeId)).toBe(before + 1);
    expect((await listed(client.id)).clientStatus).toBe('disabled');
  } finally {
    await answer(t.client(token).PATCH('/api/settings', { body: { sharingAction: 'flag', sharingMaxAddresses: 3 } }));
  }
});

test('the sharing settings are bounded', async () => {
  for (const [body, field] of [
    [{ sharingMaxAddresses: 1 }, 'sharingMaxAddresses'],
    [{ sharingWindowMinutes: 0 }, 'sharingWindowMinutes'],
    [{ sharingWindowMinutes: 1441 }, 'sharingWindowMinutes'],
    [{ sharingAction: 'ban' }, 'sharingAction'],
  ] as const) {
    const refused = await call('PATCH', 'settings', body);
    expect([refused.status, refused.body.field]).toEqual([400, field]);
  }
});

test('the desired state carries each active quota client’s remaining bytes and addresses; others have none', async () => {
  const { nodeId, client, account, report } = await clientOnNode({ quotaBytes: 1_000_000 });
  const delivery = t.panel.app.get(DeliveryRepository);
  const first = (await delivery.desiredState(nodeId))!;
  expect(first.quotas).toEqual([{ client: client.id, remainingBytes: 1_000_000, ips: [account.ip] }]);
  await report('198.51.100.30:1', new Date(), 1000);
  expect((await delivery.desiredState(nodeId))!.quotas).toEqual([
    { client: client.id, remainingBytes: 998_000, ips: [account.ip] },
  ]);
  // Unlimited clients have no kernel quota; an exhausted one has no peers, so none either.
  const unlimited = await clientOnNode();
  expect((await delivery.desiredState(unlimited.nodeId))!.quotas).toBeUndefined();
  await report('198.51.100.30:1', new Date(), 1_000_000);
  expect((await getClient(client.id)).status).toBe('exhausted');
  expect((await delivery.desiredState(nodeId))!.quotas).toBeUndefined();
});
