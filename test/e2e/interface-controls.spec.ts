import { randomSuffix } from '../support/random-suffix.js';
import { tunnelLab } from '../support/tunnel-lab.js';
import { bringUpProfile, peersOf, pingOnce, sendThrough, transferOf } from '../support/tunnel-client.js';
import { waitFor } from '../support/wait-for.js';

/**
 * An interface's controls on a real tunnel (docs/interfaces.md, "Controls"): the node's agent
 * (the built binary) in one network namespace, a client's wireguard-go peer in another. Reset
 * usage zeroes the accounts and counting goes on from there exactly as the kernel counts; clear
 * takes the peer off the node, and the tunnel carries nothing. Needs root, wireguard-go,
 * wireguard-tools, iproute2.
 */

const TUNNEL = '10.67.0.0/24';
const GATEWAY = '10.67.0.1';
const ifname = `wc${randomSuffix(8)}`;
const lab = tunnelLab({ spec: 'interface-controls.spec', base: 4 });
const { call, createClient, accountsOf, getClient } = lab;

test('reset-usage zeroes the accounts and counting goes on exactly; clear takes the peer off the node', async () => {
  const { iface } = await lab.startNode({ name: ifname, listenPort: 51821, subnet: TUNNEL }, { timeoutMs: 60_000 });
  const { nodeNs, clientNs, workDir } = lab;
  const client = await createClient({ name: `e2e-${randomSuffix(6)}`, interfaceIds: [iface.id] });
  const [account] = await accountsOf(client.id);
  await waitFor('the peer on the node', async () => (await peersOf(nodeNs, ifname)).includes(account.public_key));
  const configs = await call('GET', `clients/${client.id}/configs`);
  await bringUpProfile(clientNs, configs.body.devices[0].profiles[0].body, workDir, TUNNEL);
  await waitFor('a ping through the tunnel', () => pingOnce(clientNs, GATEWAY), 15_000);
  await sendThrough(clientNs, nodeNs, GATEWAY, 1024 * 1024);
  const [rx1, tx1] = (await transferOf(nodeNs, ifname, account.public_key))!;
  await waitFor('the usage to reach the API', async () => {
    const body = await getClient(client.id);
    return body.upBytes === rx1 && body.downBytes === tx1 ? body : undefined;
  });

  // Nothing flows now: the reset takes exactly what the kernel counted so far.
  const reset = await call('POST', `interfaces/${iface.id}/reset-usage`);
  expect(reset.status).toBe(200);
  expect(reset.body).toMatchObject({ accounts: 1, bytes: rx1 + tx1 });
  const zeroed = await getClient(client.id);
  expect([zeroed.upBytes, zeroed.downBytes, zeroed.usedBytes]).toEqual([0, 0, 0]);
  expect(zeroed.devices[0].accounts[0]).toMatchObject({ upBytes: 0, downBytes: 0 });

  // Counting goes on from zero: what the kernel counts after the reset, to the byte.
  await sendThrough(clientNs, nodeNs, GATEWAY, 512 * 1024);
  const [rx2, tx2] = (await transferOf(nodeNs, ifname, account.public_key))!;
  const counted = await waitFor('the new usage to reach the API', async () => {
    const body = await getClient(client.id);
    return body.upBytes === rx2 - rx1 && body.downBytes === tx2 - tx1 ? body : undefined;
  });
  expect(counted.usedBytes).toBe(rx2 - rx1 + (tx2 - tx1));
  expect(counted.upBytes).toBeGreaterThan(512 * 1024);

  // Clear: the account goes, the peer leaves the node, the tunnel carries nothing.
  const cleared = await call('POST', `interfaces/${iface.id}/clear`, { confirm: ifname });
  expect(cleared.body).toMatchObject({ accountsRemoved: 1, clientsDetached: 1 });
  await waitFor(
    'the peer to leave the node',
    async () => !(await peersOf(nodeNs, ifname)).includes(account.public_key),
  );
  expect(await pingOnce(clientNs, GATEWAY)).toBe(false);
  expect(await accountsOf(client.id)).toEqual([]);
  // The interface itself stays up on the node.
  expect(await nodeNs.exec('ip', '-4', '-o', 'address', 'show', 'dev', ifname)).toContain(`inet ${GATEWAY}/24`);
}, 240_000);
