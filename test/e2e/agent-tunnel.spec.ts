import { randomSuffix } from '../support/random-suffix.js';
import { waitFor } from '../support/wait-for.js';
import { tunnelLab } from '../support/tunnel-lab.js';
import { bringUpProfile, peersOf, pingOnce, sendThrough, usageMatchesKernel } from '../support/tunnel-client.js';

/**
 * The whole path for real: a node created through the API, its agent (the built binary) enrolled
 * with the node's secret and applying inside a network namespace of this test, a client created
 * through the API whose profile brings up a wireguard-go peer in a second namespace, a handshake,
 * traffic, and the bytes back in the client's usage through the API; then the quota cuts the
 * peer off and a reset brings it back. Needs root, wireguard-go, wireguard-tools, iproute2.
 */

const TUNNEL = '10.66.0.0/24';
const GATEWAY = '10.66.0.1';
const ifname = `wa${randomSuffix(8)}`;
const lab = tunnelLab({ spec: 'agent-tunnel.spec' });
const { call, createClient, accountsOf, getClient } = lab;

test('a client created through the API gets a working tunnel on the node, and its traffic is counted to the byte', async () => {
  const { node, iface, synced } = await lab.startNode({ name: ifname, listenPort: 51820, subnet: TUNNEL });
  const nodeId: string = node.id;
  const { nodeNs, clientNs, workDir, t } = lab;
  // This machine has no AmneziaWG tools; everything standard WireGuard needs is there.
  expect(synced.agent.gaps).toEqual([expect.stringContaining('AmneziaWG')]);
  expect(synced.agent.lastApply).toMatchObject({ ok: true, interfaces: [{ name: ifname, state: 'up' }] });
  expect(await nodeNs.exec('ip', '-4', '-o', 'address', 'show', 'dev', ifname)).toContain(`inet ${GATEWAY}/24`);

  // The agent's system samples reach the snapshot and the node's history.
  const system = await waitFor('the node in GET /api/system with a sample', async () => {
    const body = (await call('GET', 'system')).body;
    const entry = body.nodes.find((n: { id: string }) => n.id === nodeId);
    return entry?.system ? entry : undefined;
  });
  expect(system.agent.state).toBe('connected');
  expect(system.sync).toMatchObject({ inSync: true });
  expect(system.system.memory.total).toBeGreaterThan(0);
  const history = await waitFor('samples in the node history', async () => {
    const body = (await call('GET', `system/history?range=5m&nodeId=${nodeId}`)).body;
    return body.series.memory.some((point: { v: number | null }) => point.v !== null) ? body : undefined;
  });
  expect(history.series.memory).toHaveLength(240);

  // The enrolment secret was for one use.
  const again = await t.call('POST', 'agent/enrol', { body: { secret: node.enrolment!.secret } });
  expect(again.status).toBe(401);

  const client = await createClient({ name: `e2e-${randomSuffix(6)}`, interfaceIds: [iface.id] });
  const [account] = await accountsOf(client.id);
  await waitFor('the peer on the node', async () => (await peersOf(nodeNs, ifname)).includes(account.public_key));

  const configs = await call('GET', `clients/${client.id}/configs`);
  const profile = configs.body.devices[0].profiles[0];
  await bringUpProfile(clientNs, profile.body, workDir, TUNNEL);
  await waitFor('a ping through the tunnel', () => pingOnce(clientNs, GATEWAY), 15_000);

  const sent = 2 * 1024 * 1024;
  await sendThrough(clientNs, nodeNs, GATEWAY, sent);
  // Usage through the API matches what the node's WireGuard counted, to the byte, once reported.
  const {
    rx,
    tx,
    usage: counted,
  } = await usageMatchesKernel({
    ns: nodeNs,
    ifname,
    publicKey: account.public_key,
    readUsage: () => getClient(client.id),
    what: 'the usage to reach the API',
  });
  // And that is what was sent, plus TCP/IP and WireGuard overhead of a few percent.
  expect(counted.upBytes).toBeGreaterThan(sent);
  expect(counted.upBytes).toBeLessThan(sent * 1.08);
  // The device and its account carry the same numbers, and it shows as online after its handshake.
  expect(counted.onlineNow).toBe(true);
  expect(counted.devices[0]).toMatchObject({ upBytes: rx, downBytes: tx, onlineNow: true });
  expect(counted.devices[0].accounts[0]).toMatchObject({
    upBytes: rx,
    downBytes: tx,
    lastEndpoint: expect.stringMatching(/^172\.31\.0\.2:\d+$/),
  });
  // Its usage history holds the same bytes (written in the same statement as the totals).
  const usage = await call('GET', `clients/${client.id}/usage?range=1h`);
  expect([usage.status, usage.body.upBytes, usage.body.downBytes]).toEqual([200, rx, tx]);

  // The quota: a little above what is used now; the next megabyte exhausts the client. The PATCH
  // gives the node a new revision that arms its kernel with the new allowance, so the megabyte is
  // cut where the quota ends (docs/agent-host.md, "Quotas"): the send need not finish.
  const patched = await call('PATCH', `clients/${client.id}`, { quotaBytes: counted.usedBytes + 200_000 });
  expect(patched.status).toBe(200);
  await sendThrough(clientNs, nodeNs, GATEWAY, 1024 * 1024, 15_000).catch(() => undefined);
  await waitFor('the client to be exhausted', async () => (await getClient(client.id)).status === 'exhausted');
  await waitFor(
    'the peer to leave the node',
    async () => !(await peersOf(nodeNs, ifname)).includes(account.public_key),
  );
  expect(await pingOnce(clientNs, GATEWAY)).toBe(false);

  // Reset restores it.
  expect((await call('POST', `clients/${client.id}/reset`)).status).toBe(200);
  await waitFor('the peer back on the node', async () => (await peersOf(nodeNs, ifname)).includes(account.public_key));
  await waitFor('a ping through the tunnel again', () => pingOnce(clientNs, GATEWAY), 15_000);
  const after = await getClient(client.id);
  expect(after.status).toBe('active');
}, 180_000);
