import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAgent, type AgentProcess } from '../support/agent-process.js';
import { fixtures } from '../support/fixtures.js';
import { requireTools, TestNamespace } from '../support/netns.js';
import { randomSuffix } from '../support/random-suffix.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';
import { bringUpProfile, peersOf, pingOnce } from '../support/tunnel-client.js';
import { waitFor } from '../support/wait-for.js';

/**
 * What a customer holding only links gets, for real: a config fetched from the public
 * subscription link (no credentials) brings up a wireguard-go tunnel that answers a ping, and so
 * does one fetched through a one-time link. Needs root, wireguard-go, wireguard-tools, iproute2.
 */
let nodeNs: TestNamespace;
let clientNs: TestNamespace;
let t: TestPanel;
let token: string;
let agent: AgentProcess | undefined;
let workDir: string;
const NODE_ADDRESS = '172.31.4.1';
const TUNNEL = '10.67.0.0/24';
const GATEWAY = '10.67.0.1';
const ifname = `ws${randomSuffix(8)}`;

const { call, createNode, createInterface, createClient, accountsOf, nodeInSync } = fixtures(() => ({ t, token }));

beforeAll(async () => {
  if (process.getuid?.() !== 0)
    throw new Error('subscription-tunnel.spec needs root (network namespaces, wireguard-go)');
  await requireTools(
    ['wg', 'wg-quick', 'wireguard-go', 'ip', 'ping'],
    'wireguard-tools wireguard-go iproute2 iputils-ping',
  );
  workDir = mkdtempSync(join(tmpdir(), 'warren-e2e-'));
  nodeNs = await TestNamespace.create('warren-node');
  clientNs = await TestNamespace.create('warren-client');
  await nodeNs.vethTo(clientNs, `${NODE_ADDRESS}/24`, '172.31.4.2/24');
  t = await startTestPanel({ WARREN_BASE_PATH: '/x7k2' });
  token = await t.login();
}, 60_000);

afterAll(async () => {
  await agent?.stop().catch(() => undefined);
  await nodeNs?.destroy().catch(() => undefined);
  await clientNs?.destroy().catch(() => undefined);
  if (agent) rmSync(agent.dataDir, { recursive: true, force: true });
  if (workDir) rmSync(workDir, { recursive: true, force: true });
  await t?.stop();
}, 60_000);

test('a config from the public link, and one from a one-time link, bring up working tunnels', async () => {
  const node = await createNode({ name: `e2e-${randomSuffix(6)}`, address: NODE_ADDRESS });
  const iface = await createInterface({
    nodeId: node.id,
    name: ifname,
    listenPort: 51820,
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

  const client = await createClient({ interfaceIds: [iface.id], deviceLimit: 2, deviceNames: ['phone', 'laptop'] });
  const accounts = await accountsOf(client.id);
  await waitFor('both peers on the node', async () => {
    const peers = await peersOf(nodeNs, ifname);
    return accounts.every((account) => peers.includes(account.public_key as string));
  });

  // The subscription link, fetched as an app would: no credentials at all.
  const link = (await call('GET', `clients/${client.id}/subscription`)).body as { formats: { conf: string } };
  const fetched = await fetch(link.formats.conf);
  expect(fetched.status).toBe(200);
  expect(fetched.headers.get('subscription-userinfo')).toMatch(/^upload=\d+; download=\d+; total=0; expire=0$/);
  const phone = await bringUpProfile(clientNs, await fetched.text(), workDir, TUNNEL);
  await waitFor('a ping through the tunnel from the subscription link', () => pingOnce(clientNs, GATEWAY), 15_000);
  await clientNs.exec('ip', 'link', 'delete', phone);

  // A one-time link for the second device: it works once.
  const once = (await call('POST', `devices/${client.devices[1].id}/profile/link`, { minutes: 5 })).body as {
    url: string;
  };
  const config = await fetch(once.url);
  expect(config.status).toBe(200);
  await bringUpProfile(clientNs, await config.text(), workDir, TUNNEL);
  await waitFor('a ping through the tunnel from the one-time link', () => pingOnce(clientNs, GATEWAY), 15_000);
  expect((await fetch(once.url)).status).toBe(404);
}, 180_000);
