import { randomSuffix } from '../support/random-suffix.js';
import { tunnelLab } from '../support/tunnel-lab.js';
import { bringUpProfile, peersOf, pingOnce } from '../support/tunnel-client.js';
import { waitFor } from '../support/wait-for.js';

/**
 * What a customer holding only links gets, for real: a config fetched from the public
 * subscription link (no credentials) brings up a wireguard-go tunnel that answers a ping, and so
 * does one fetched through a one-time link. Needs root, wireguard-go, wireguard-tools, iproute2.
 */

const TUNNEL = '10.67.0.0/24';
const GATEWAY = '10.67.0.1';
const ifname = `ws${randomSuffix(8)}`;
const lab = tunnelLab({ spec: 'subscription-tunnel.spec', base: 4, panelEnv: { WARREN_BASE_PATH: '/x7k2' } });
const { call, createClient, accountsOf } = lab;

test('a config from the public link, and one from a one-time link, bring up working tunnels', async () => {
  const { iface } = await lab.startNode({ name: ifname, listenPort: 51820, subnet: TUNNEL });
  const { nodeNs, clientNs, workDir } = lab;

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
  // The link itself is a page with a button (a chat preview spends nothing); the button's URL spends it.
  const config = await fetch(`${once.url}?download=1`);
  expect(config.status).toBe(200);
  await bringUpProfile(clientNs, await config.text(), workDir, TUNNEL);
  await waitFor('a ping through the tunnel from the one-time link', () => pingOnce(clientNs, GATEWAY), 15_000);
  expect((await fetch(`${once.url}?download=1`)).status).toBe(404);
}, 180_000);
