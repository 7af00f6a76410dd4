import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireTools, TestNamespace } from '../support/netns.js';
import { randomSuffix } from '../support/random-suffix.js';
import { startAgent, type AgentProcess } from '../support/agent-process.js';
import { waitFor } from '../support/wait-for.js';
import { fixtures } from '../support/fixtures.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';
import { bringUpProfile, peersOf, pingOnce } from '../support/tunnel-client.js';

/**
 * Account sharing and first use on real tunnels: one device profile brought up by two
 * wireguard-go clients in two namespaces (two places) at once. WireGuard's endpoint for the peer
 * follows whichever sent last, the agent reports it, and GET /api/sharing lists the device with
 * both addresses; with the rule set to disable, the client is disabled and its peer leaves the
 * node. The client starts on first use: its first handshake starts its expiry.
 */

let nodeNs: TestNamespace;
let placeA: TestNamespace;
let placeB: TestNamespace;
let t: TestPanel;
let token: string;
let agent: AgentProcess | undefined;
let workDir: string;
const NODE_ADDRESS = '172.31.5.1';
const A_ADDRESS = '172.31.5.2';
const B_ADDRESS = '172.31.6.2';
const TUNNEL = '10.68.0.0/24';
const GATEWAY = '10.68.0.1';
const ifname = `ws${randomSuffix(8)}`;

const { call, createNode, createInterface, createClient, getClient, accountsOf, nodeInSync } = fixtures(() => ({
  t,
  token,
}));

beforeAll(async () => {
  if (process.getuid?.() !== 0) throw new Error('sharing-tunnel.spec needs root (network namespaces, wireguard-go)');
  await requireTools(
    ['wg', 'wg-quick', 'wireguard-go', 'ip', 'ping'],
    'wireguard-tools wireguard-go iproute2 iputils-ping',
  );
  workDir = mkdtempSync(join(tmpdir(), 'warren-e2e-'));
  nodeNs = await TestNamespace.create('warren-node');
  placeA = await TestNamespace.create('warren-place');
  placeB = await TestNamespace.create('warren-place');
  await nodeNs.vethTo(placeA, `${NODE_ADDRESS}/24`, `${A_ADDRESS}/24`);
  await nodeNs.vethTo(placeB, '172.31.6.1/24', `${B_ADDRESS}/24`);
  // The profile dials NODE_ADDRESS: from the second place it is reached through the node's other link.
  await placeB.exec('ip', 'route', 'add', '172.31.5.0/24', 'via', '172.31.6.1');
  t = await startTestPanel();
  token = await t.login();
}, 60_000);

afterAll(async () => {
  await agent?.stop().catch(() => undefined);
  for (const ns of [nodeNs, placeA, placeB]) await ns?.destroy().catch(() => undefined);
  if (agent) rmSync(agent.dataDir, { recursive: true, force: true });
  if (workDir) rmSync(workDir, { recursive: true, force: true });
  await t?.stop();
}, 60_000);

test('one profile used from two places at once is listed with both addresses, and the rule disables its client', async () => {
  const node = await createNode({ name: `e2e-${randomSuffix(6)}`, address: NODE_ADDRESS });
  const iface = await createInterface({
    nodeId: node.id,
    name: ifname,
    listenPort: 51822,
    subnet: TUNNEL,
    endpointHost: NODE_ADDRESS,
  });
  agent = startAgent({
    controllerUrl: t.api.replace(/\/api$/, ''),
    enrolSecret: node.enrolment!.secret,
    netns: nodeNs.name,
  });
  await nodeInSync(node.id).catch((error: Error) => {
    throw new Error(`${error.message}\n--- agent output\n${agent!.output()}`);
  });

  const client = await createClient({ interfaceIds: [iface.id], startOnFirstUse: true, durationDays: 3 });
  expect(client.expiresAt).toBeNull();
  const [account] = await accountsOf(client.id);
  await waitFor('the peer on the node', async () => (await peersOf(nodeNs, ifname)).includes(account.public_key));
  const profile = (await call('GET', `clients/${client.id}/configs`)).body.devices[0].profiles[0].body as string;

  // First use: the first handshake (from the first place) starts the period.
  await bringUpProfile(placeA, profile, workDir, TUNNEL);
  await waitFor('a ping from the first place', () => pingOnce(placeA, GATEWAY), 15_000);
  const started = await waitFor('the client to start on first use', async () => {
    const body = await getClient(client.id);
    return body.activatedAt ? body : undefined;
  }).catch(async (error: Error) => {
    throw new Error(
      `${error.message}\n${JSON.stringify(await getClient(client.id))}\n--- agent\n${agent!.output()}\n${await nodeNs.exec('wg', 'show', 'all', 'dump')}\n${JSON.stringify((await call('GET', `nodes/${node.id}`)).body)}`,
    );
  });
  expect(new Date(started.expiresAt!).getTime() - new Date(started.activatedAt!).getTime()).toBe(3 * 86_400_000);

  // The same profile from the second place, both sending at once.
  await bringUpProfile(placeB, profile, workDir, TUNNEL);
  const pingA = placeA.start('ping', '-i', '0.2', GATEWAY);
  const pingB = placeB.start('ping', '-i', '0.2', GATEWAY);
  try {
    const listed = await waitFor(
      'the device in GET /api/sharing',
      async () => {
        const body = (await call('GET', 'sharing')).body;
        return body.devices.find((d: { clientId: string }) => d.clientId === client.id);
      },
      60_000,
    );
    expect(listed.reason).toBe('several-at-once');
    expect(listed.addresses.map((a: { address: string }) => a.address).sort()).toEqual([A_ADDRESS, B_ADDRESS]);
    for (const address of listed.addresses) {
      expect(Date.parse(address.firstSeen)).toBeLessThanOrEqual(Date.parse(address.lastSeen));
      expect(address.moves).toBeGreaterThanOrEqual(1);
    }
    expect((await getClient(client.id)).status).toBe('active');

    // The rule: disable. The next moves disable the client, and its peer leaves the node.
    expect((await call('PATCH', 'settings', { sharingAction: 'disable' })).status).toBe(200);
    await waitFor(
      'the client disabled by the rule',
      async () => (await getClient(client.id)).status === 'disabled',
      60_000,
    );
    await waitFor(
      'the peer to leave the node',
      async () => !(await peersOf(nodeNs, ifname)).includes(account.public_key),
    );
  } finally {
    await pingA.stop();
    await pingB.stop();
  }
}, 180_000);
