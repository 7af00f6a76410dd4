import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDnsResponder } from '../support/dns-responder.js';
import { fixtures } from '../support/fixtures.js';
import { requireTools, TestNamespace } from '../support/netns.js';
import { randomSuffix } from '../support/random-suffix.js';
import { startAgent, type AgentProcess } from '../support/agent-process.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';
import { bringUpProfile, pingOnce, resolveIn } from '../support/tunnel-client.js';
import { waitFor } from '../support/wait-for.js';

/**
 * A full-tunnel client resolves names with the profile the panel gives it, untouched: an
 * interface created with no `dns` at all, its node's agent (the built binary) applying in a
 * namespace with NAT out of its uplink, a client whose profile is brought up in a second
 * namespace with every route through the tunnel, and a DNS server of the test's own on 1.1.1.1
 * (the panel's default resolver) in a third namespace that plays the internet. Nothing leaves
 * the namespaces. Needs root, wireguard-go, wireguard-tools, iproute2 and nftables.
 */

const NODE_ADDRESS = '172.31.0.1';
const CLIENT_ADDRESS = '172.31.0.2';
const NODE_UPLINK = '203.0.113.1';
const INTERNET_ROUTER = '203.0.113.2';
const TUNNEL = '10.68.0.0/24';
const GATEWAY = '10.68.0.1';
const NAME = 'host.warren.test';
const NAME_ADDRESS = '192.0.2.77';

let nodeNs: TestNamespace | undefined;
let clientNs: TestNamespace | undefined;
let internetNs: TestNamespace | undefined;
let t: TestPanel;
let token: string;
let agent: AgentProcess | undefined;
let workDir: string;

/** What the first test brought up, for the second: the node and the client whose profile is up. */
let broughtUp: { nodeId: string } | undefined;

const { call, typed, createNode, createInterface, createClient, getClient, getNode } = fixtures(() => ({
  t,
  token,
}));

beforeAll(async () => {
  if (process.getuid?.() !== 0) throw new Error('profiles-dns.spec needs root (network namespaces, wireguard-go)');
  await requireTools(
    ['wg', 'wg-quick', 'wireguard-go', 'ip', 'ping', 'nft'],
    'wireguard-tools wireguard-go iproute2 iputils-ping nftables',
  );
  workDir = mkdtempSync(join(tmpdir(), 'warren-dns-'));
  nodeNs = await TestNamespace.create('warren-dn');
  clientNs = await TestNamespace.create('warren-dc');
  internetNs = await TestNamespace.create('warren-di');
  t = await startTestPanel();
  token = await t.login();
}, 60_000);

afterAll(async () => {
  await agent?.stop().catch(() => undefined);
  for (const ns of [nodeNs, clientNs, internetNs]) await ns?.destroy().catch(() => undefined);
  if (nodeNs) rmSync(`/etc/netns/${nodeNs.name}`, { recursive: true, force: true });
  if (agent) rmSync(agent.dataDir, { recursive: true, force: true });
  if (workDir) rmSync(workDir, { recursive: true, force: true });
  await t?.stop();
}, 60_000);

test('a full-tunnel client resolves a name through the tunnel with the default DNS of its profile', async () => {
  // The node: clients reach it on one link, and its uplink leads to "the internet", where
  // 1.1.1.1 is a DNS server of this test.
  await nodeNs!.vethTo(clientNs!, `${NODE_ADDRESS}/24`, `${CLIENT_ADDRESS}/24`);
  const uplink = await nodeNs!.vethTo(internetNs!, `${NODE_UPLINK}/24`, `${INTERNET_ROUTER}/24`);
  await nodeNs!.exec('ip', 'route', 'add', 'default', 'via', INTERNET_ROUTER);
  await internetNs!.exec('ip', 'address', 'add', '1.1.1.1/32', 'dev', 'lo');
  const dns = await startDnsResponder(internetNs!, '1.1.1.1', { [NAME]: NAME_ADDRESS });

  const node = await createNode({ name: `dns-${randomSuffix(6)}`, address: NODE_ADDRESS });
  // No dns given: the default is what is being proven.
  const iface = await createInterface({
    nodeId: node.id,
    name: `wd${randomSuffix(8)}`,
    listenPort: 51830,
    subnet: TUNNEL,
    endpointHost: NODE_ADDRESS,
    natInterface: uplink.mine,
  });
  expect(iface.dns).toEqual(['1.1.1.1', '1.0.0.1']);
  agent = startAgent({
    controllerUrl: t.api.replace(/\/api$/, ''),
    enrolSecret: node.enrolment!.secret,
    netns: nodeNs!.name,
  });
  await waitFor(
    'the agent to connect and apply the node',
    async () => {
      const state = await getNode(node.id);
      return state.agent.state === 'connected' && state.inSync;
    },
    30_000,
  ).catch((error: Error) => {
    throw new Error(`${error.message}\n--- agent output\n${agent!.output()}`);
  });

  const client = await createClient({ interfaceIds: [iface.id] });
  const configs = await call('GET', `clients/${client.id}/configs`);
  const profile: string = configs.body.devices[0].profiles[0].body;
  expect(profile).toMatch(/^DNS = 1\.1\.1\.1, 1\.0\.0\.1$/m);
  expect(profile).toMatch(/^AllowedIPs = 0\.0\.0\.0\/0, ::\/0$/m);
  const ifname = await bringUpProfile(clientNs!, profile, workDir, TUNNEL);
  // Full tunnel, as wg-quick would route AllowedIPs 0.0.0.0/0 (the endpoint stays on its own link).
  await clientNs!.exec('ip', 'route', 'add', 'default', 'dev', ifname);
  await waitFor('a ping through the tunnel', () => pingOnce(clientNs!, GATEWAY), 15_000);

  // The client asks the first resolver of its profile, as its stub resolver would.
  const resolver = /^DNS = ([^,\s]+)/m.exec(profile)![1];
  const addresses = await waitFor(
    'the name to resolve through the tunnel',
    () => resolveIn(clientNs!, resolver, NAME),
    15_000,
  );
  expect(addresses).toEqual([NAME_ADDRESS]);
  // The query went through the tunnel and out of the node's uplink, masqueraded.
  expect(dns.queries()).toContain(`${NAME} from ${NODE_UPLINK}`);
  // What the old default did: nothing answers DNS on the gateway.
  await expect(resolveIn(clientNs!, GATEWAY, NAME)).rejects.toThrow(/ECONNREFUSED|ETIMEOUT/);

  // The interface list tells what runs and who is on it, from the same agent reports.
  const entry = await waitFor('the interface to show its client online, with its traffic', async () => {
    const [listed] = (await call('GET', `interfaces?nodeId=${node.id}`)).body as {
      running: boolean;
      online: number;
      usedBytes: number;
    }[];
    const used = (await getClient(client.id)).usedBytes;
    return listed.running && listed.online === 1 && used > 0 && listed.usedBytes === used ? listed : undefined;
  });
  expect(entry).toMatchObject({ id: iface.id, running: true, online: 1, devices: 1 });
  broughtUp = { nodeId: node.id };
});

test('a domain rule fills from a client whose profile names 1.1.1.1: its DNS is redirected to the node’s resolver (issue 19 item 10)', async () => {
  if (!broughtUp) throw new Error('needs the tunnel the first test brings up');
  const { nodeId } = broughtUp;
  // The node's resolver (dnsmasq, run by the agent through `ip netns exec`) forwards to the
  // node's own resolvers: here the test's DNS server on 1.1.1.1, nothing off this machine.
  mkdirSync(`/etc/netns/${nodeNs!.name}`, { recursive: true });
  writeFileSync(`/etc/netns/${nodeNs!.name}/resolv.conf`, 'nameserver 1.1.1.1\n');
  await internetNs!.exec('ip', 'address', 'add', `${NAME_ADDRESS}/32`, 'dev', 'lo');
  await waitFor('the name’s address reachable through the tunnel', () => pingOnce(clientNs!, NAME_ADDRESS), 15_000);

  // A rule blocking the name: it matches the addresses the node's resolver handed out for it.
  const rule = await typed().POST('/api/routing/rules', {
    params: { query: { nodeId } },
    body: { name: 'no host', domains: [NAME], outboundTag: 'blocked' },
  });
  expect(rule.response.status).toBe(201);
  await waitFor('the node to apply the rule', async () => (await getNode(nodeId)).inSync, 30_000);
  // Nothing resolved since: the address is still reachable.
  expect(await pingOnce(clientNs!, NAME_ADDRESS)).toBe(true);

  // The client asks the resolver of its unmodified profile (1.1.1.1) through the tunnel.
  expect(await waitFor('the name to resolve', () => resolveIn(clientNs!, '1.1.1.1', NAME), 15_000)).toEqual([
    NAME_ADDRESS,
  ]);
  // The node's resolver answered it, so the rule's set holds the address and the rule drops it.
  expect(await nodeNs!.exec('nft', 'list', 'table', 'ip', 'warren_routing')).toContain(NAME_ADDRESS);
  await waitFor('traffic to the name dropped by the rule', async () => !(await pingOnce(clientNs!, NAME_ADDRESS)));
});
