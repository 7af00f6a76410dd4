import { importClients } from '../support/client-import.js';
import { keyPair, wgEasyClientConfig, wgEasyFile } from '../support/old-panels.js';
import { randomSuffix } from '../support/random-suffix.js';
import { tunnelLab } from '../support/tunnel-lab.js';
import { bringUpProfile, peersOf, pingOnce, sendThrough } from '../support/tunnel-client.js';
import { waitFor } from '../support/wait-for.js';

/**
 * A customer moving from wg-easy keeps the profile wg-easy gave them: the old panel's wg0.json is
 * imported onto an interface given the old server's key, port and endpoint, and the client config
 * wg-easy would have rendered (its own format, untouched) brings up a real wireguard-go peer that
 * handshakes with the node's agent and passes traffic, counted to the imported client. Needs root,
 * wireguard-go, wireguard-tools, iproute2.
 */

const NODE_ADDRESS = '172.31.3.1';
const GATEWAY = '10.67.0.1';
const PORT = 51820;
const ifname = `wi${randomSuffix(8)}`;
/** The old panel's server key, and the customer's tunnel of the first test (the second replaces it). */
const server = keyPair();
let firstTunnel: string | undefined;
let ifaceId: string;

const lab = tunnelLab({ spec: 'import-tunnel.spec', base: 3 });
const { call, getClient } = lab;

test("a wg-easy customer's old profile connects to Warren after the import and passes traffic", async () => {
  const { iface } = await lab.startNode({ name: ifname, listenPort: PORT, subnet: '10.67.0.0/24' });
  const { nodeNs, clientNs, workDir, t, token } = lab;

  ifaceId = iface.id;
  // The old panel: its server key and three customers on 10.67.0.2...
  const file = wgEasyFile(3, '10.67', { server, namePrefix: 'easy-' });
  const customer = Object.values(file.clients)[1];
  const oldProfile = wgEasyClientConfig(customer, {
    serverPublicKey: server.publicKey,
    host: NODE_ADDRESS,
    port: PORT,
  });

  // The interface takes the old server's key (the template, as the owner), so old profiles name the right peer.
  const template = await call('GET', 'template?section=interfaces');
  expect(template.status).toBe(200);
  const row = template.body.interfaces.find((entry: { name: string }) => entry.name === ifname);
  const put = await call('PUT', 'template?section=interfaces', {
    interfaces: [{ ...row, privateKey: server.privateKey }],
  });
  expect(put.status).toBe(200);

  const imported = await importClients(t, token, file, { interfaceId: iface.id });
  expect(imported.status).toBe(200);
  expect(imported.body).toMatchObject({ summary: { created: 3, refused: 0 }, warnings: [] });
  await waitFor('the imported peers on the node', async () => {
    const peers = await peersOf(nodeNs, ifname);
    return Object.values(file.clients).every((client) => peers.includes(client.publicKey));
  });

  // wg-easy writes Address = x/24; the route to the gateway alone leaves that one in place.
  firstTunnel = await bringUpProfile(clientNs, oldProfile, workDir, `${GATEWAY}/32`);
  await waitFor('a ping through the tunnel with the old profile', () => pingOnce(clientNs, GATEWAY), 20_000);
  await sendThrough(clientNs, nodeNs, GATEWAY, 256 * 1024);
  const list = await call('GET', `clients?search=${customer.name}`);
  const counted = await waitFor('the traffic counted to the imported client', async () => {
    const body = await getClient(list.body.items[0].id);
    return body.upBytes > 256 * 1024 ? body : undefined;
  });
  expect(counted).toMatchObject({ name: customer.name, status: 'active' });
  expect(counted.devices[0].accounts[0]).toMatchObject({ ip: customer.address, publicKey: customer.publicKey });
}, 180_000);

test('a wg-easy peer without a preshared key keeps its profile too: the node holds no preshared key for it', async () => {
  if (!firstTunnel) throw new Error('needs the first test: its node, interface (with the old server key) and agent');
  const { nodeNs, clientNs, workDir, t, token } = lab;
  const file = wgEasyFile(1, '10.67', { server, namePrefix: 'bare-', first: 20 });
  const [bare] = Object.values(file.clients);
  delete (bare as { preSharedKey?: string }).preSharedKey;
  const imported = await importClients(t, token, file, { interfaceId: ifaceId });
  expect(imported.status).toBe(200);
  expect(imported.body.warnings).toEqual([expect.stringMatching(/1 rows have peers without a preshared key/)]);
  await waitFor('the imported peer on the node', async () => (await peersOf(nodeNs, ifname)).includes(bare.publicKey));
  const presharedKeys = await nodeNs.exec('wg', 'show', ifname, 'preshared-keys');
  expect(presharedKeys).toContain(`${bare.publicKey}\t(none)`);

  // The profile wg-easy rendered for it has no PresharedKey line: it connects as it is.
  const oldProfile = wgEasyClientConfig(bare, { serverPublicKey: server.publicKey, host: NODE_ADDRESS, port: PORT });
  expect(oldProfile).not.toContain('PresharedKey');
  await clientNs.exec('ip', 'link', 'del', firstTunnel);
  await bringUpProfile(clientNs, oldProfile, workDir, `${GATEWAY}/32`);
  await waitFor(
    'a ping through the tunnel with the profile without a preshared key',
    () => pingOnce(clientNs, GATEWAY),
    20_000,
  );
}, 120_000);
