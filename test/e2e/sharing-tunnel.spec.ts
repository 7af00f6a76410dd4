import { randomSuffix } from '../support/random-suffix.js';
import { waitFor } from '../support/wait-for.js';
import { tunnelLab } from '../support/tunnel-lab.js';
import { bringUpProfile, peersOf, pingOnce } from '../support/tunnel-client.js';

/**
 * Account sharing and first use on real tunnels: one device profile brought up by two
 * wireguard-go clients in two namespaces (two places) at once. WireGuard's endpoint for the peer
 * follows whichever sent last, the agent reports it, and GET /api/sharing lists the device with
 * both addresses; with the rule set to disable, the client is disabled and its peer leaves the
 * node. The client starts on first use: its first handshake starts its expiry.
 */

const TUNNEL = '10.68.0.0/24';
const GATEWAY = '10.68.0.1';
const ifname = `ws${randomSuffix(8)}`;
// Two places: the profile dials the node's address, from the second place through its own link.
const lab = tunnelLab({ spec: 'sharing-tunnel.spec', base: 5, places: 2 });
const A_ADDRESS = lab.placeAddress(0);
const B_ADDRESS = lab.placeAddress(1);
const { call, createClient, getClient, accountsOf } = lab;

test('one profile used from two places at once is listed with both addresses, and the rule disables its client', async () => {
  const { node, iface } = await lab.startNode({ name: ifname, listenPort: 51822, subnet: TUNNEL });
  const { nodeNs, workDir, agent } = lab;
  const [placeA, placeB] = lab.places;

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
      `${error.message}\n${JSON.stringify(await getClient(client.id))}\n--- agent\n${agent.output()}\n${await nodeNs.exec('wg', 'show', 'all', 'dump')}\n${JSON.stringify((await call('GET', `nodes/${node.id}`)).body)}`,
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
