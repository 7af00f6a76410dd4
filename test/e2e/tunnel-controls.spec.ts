import { randomSuffix } from '../support/random-suffix.js';
import { tunnelLab } from '../support/tunnel-lab.js';
import {
  bringUpProfile,
  peersOf,
  pingOnce,
  sendThrough,
  transferOf,
  usageMatchesKernel,
} from '../support/tunnel-client.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Restart, stop and start on real tunnels (docs/interfaces.md, "Restart, stop, start"), and the
 * interface's server profile: the node's agent (the built binary) in one network namespace, a
 * client's wireguard-go peer in another. A restart re-creates the link (the handshake renews,
 * peers and address come back); a stop cuts the traffic and holds across an agent restart until
 * a start brings it back; through all of it the usage equals what the kernel counted on the
 * links, to the byte (nothing doubled, nothing dropped). Needs root, wireguard-go,
 * wireguard-tools, iproute2.
 */

const TUNNEL = '10.69.0.0/24';
const GATEWAY = '10.69.0.1';
const ifname = `wr${randomSuffix(8)}`;
const lab = tunnelLab({ spec: 'tunnel-controls.spec', base: 7 });

/** The node's latest handshake with this peer, in seconds (0: none). */
async function latestHandshake(publicKey: string): Promise<number> {
  const out = await lab.nodeNs.exec('wg', 'show', ifname, 'latest-handshakes');
  const line = out.split('\n').find((l) => l.startsWith(publicKey));
  return Number(line?.split('\t')[1] ?? 0);
}

async function linkIsUp(): Promise<boolean> {
  const out = await lab.nodeNs.exec('ip', '-o', 'link', 'show', 'dev', ifname);
  return /[<,]UP[,>]/.test(out);
}

test('restart renews the handshake, stop holds the tunnel down across an agent restart until start, and the usage stays exact', async () => {
  const { call, createClient, getClient, accountsOf, getNode, nodeInSync } = lab;
  const { node, iface } = await lab.startNode({ name: ifname, listenPort: 51824, subnet: TUNNEL });
  const client = await createClient({ name: `e2e-${randomSuffix(6)}`, interfaceIds: [iface.id] });
  const [account] = await accountsOf(client.id);
  const key = account.public_key as string;
  await waitFor('the peer on the node', async () => (await peersOf(lab.nodeNs, ifname)).includes(key));
  const configs = await call('GET', `clients/${client.id}/configs`);
  // No keepalive from the client: a quiet link stays quiet, so what the old link counted before a
  // restart is known to the byte.
  const body = (configs.body.devices[0].profiles[0].body as string).replace(/^PersistentKeepalive.*\n/m, '');
  await bringUpProfile(lab.clientNs, body, lab.workDir, TUNNEL);
  await waitFor('a ping through the tunnel', () => pingOnce(lab.clientNs, GATEWAY), 15_000);

  /**
   * WireGuard's counters start from 0 on a re-created link (a restart): the usage is what the
   * earlier links counted (`carried`) plus what the current one counts, to the byte.
   */
  const carried = { rx: 0, tx: 0 };
  const usageMatchesKernelNow = (what: string) =>
    usageMatchesKernel({
      ns: lab.nodeNs,
      ifname,
      publicKey: key,
      readUsage: () => getClient(client.id),
      what,
      carried,
      context: () => `--- agent output\n${lab.agent.output().slice(-4000)}`,
    });
  /**
   * Before a restart: the link quiet (its counters unchanged for longer than WireGuard's passive
   * keepalive, 10 s) and the usage equal to them. What the old link counted is then known.
   */
  const quietThenCarry = async () => {
    let last = { at: Date.now(), reading: '' };
    const [rx, tx] = await waitFor(
      'the link to fall quiet with the usage counted',
      async () => {
        const reading = (await transferOf(lab.nodeNs, ifname, key)) ?? [0, 0];
        if (JSON.stringify(reading) !== last.reading) last = { at: Date.now(), reading: JSON.stringify(reading) };
        if (Date.now() - last.at < 11_000) return undefined;
        const body = await getClient(client.id);
        return body.upBytes === carried.rx + reading[0] && body.downBytes === carried.tx + reading[1]
          ? reading
          : undefined;
      },
      60_000,
      500,
    );
    carried.rx += rx;
    carried.tx += tx;
  };
  await sendThrough(lab.clientNs, lab.nodeNs, GATEWAY, 512 * 1024);
  await usageMatchesKernelNow('the usage to reach the API');

  // The profile: the server side as the node runs it, secrets withheld.
  const profile = await call('GET', `interfaces/${iface.id}/profile`);
  expect(profile.status).toBe(200);
  expect(profile.body).toMatchObject({ id: iface.id, filename: `${ifname}.conf`, mimeType: 'text/plain', peers: 1 });
  expect(profile.body.body).toContain(`Address = ${GATEWAY}/24`);
  expect(profile.body.body).toContain('ListenPort = 51824');
  expect(profile.body.body).toContain(`PublicKey = ${key}\nAllowedIPs = ${account.ip}/32`);
  const [secrets] = await lab.t.query<{ private_key: string }>('select private_key from interfaces where id = $1', [
    iface.id,
  ]);
  expect(profile.body.body).not.toContain(secrets.private_key);
  expect(profile.body.body).not.toContain(account.preshared_key);
  expect(profile.body.body).not.toMatch(/^PrivateKey/m);
  // What the node loaded has the same peers.
  expect((await lab.nodeNs.exec('wg', 'show', ifname, 'allowed-ips')).trim()).toBe(`${key}\t${account.ip}/32`);

  // Restart the interface: the node takes it down and up, every session ends, the peer handshakes again.
  const before = await latestHandshake(key);
  expect(before).toBeGreaterThan(0);
  await quietThenCarry();
  const restarted = await call('POST', `interfaces/${iface.id}/restart`);
  expect(restarted.status).toBe(200);
  expect(restarted.body).toMatchObject({ id: iface.id, nodeId: node.id });
  await waitFor(
    'the restart applied',
    async () => (await getNode(node.id)).appliedRevision >= restarted.body.revision,
    30_000,
  );
  await waitFor(
    'a new handshake after the restart',
    async () => (await pingOnce(lab.clientNs, GATEWAY)) && (await latestHandshake(key)) > before,
    60_000,
  );
  expect(await lab.nodeNs.exec('ip', '-4', '-o', 'address', 'show', 'dev', ifname)).toContain(`inet ${GATEWAY}/24`);
  expect(await peersOf(lab.nodeNs, ifname)).toEqual([key]);
  await sendThrough(lab.clientNs, lab.nodeNs, GATEWAY, 512 * 1024);
  const across = await usageMatchesKernelNow('the usage across the restart');
  // What the new link counted alone: the data sent after the restart.
  expect(across.rx - carried.rx).toBeGreaterThan(512 * 1024);

  // Stop: every interface of the node down, the tunnel carries nothing, the node says stopped.
  const stopped = await call('POST', 'tunnels/stop', { nodeId: node.id });
  expect(stopped.status).toBe(200);
  expect(stopped.body).toMatchObject({ nodeId: node.id, tunnelsStopped: true, interfaces: 1 });
  const synced = await nodeInSync(node.id);
  expect(synced.tunnelsStopped).toBe(true);
  expect(synced.agent.lastApply).toMatchObject({ ok: true, interfaces: [{ name: ifname, state: 'down' }] });
  expect(await linkIsUp()).toBe(false);
  expect(await pingOnce(lab.clientNs, GATEWAY)).toBe(false);
  expect((await call('GET', `interfaces/${iface.id}`)).body.running).toBe(false);
  // Again: nothing to change, no revision.
  const again = await call('POST', 'tunnels/stop', { nodeId: node.id });
  expect(again.body).toMatchObject({ tunnelsStopped: true, revision: null });

  // The agent restarts: it re-applies what it recorded, and the interface stays down.
  await lab.agent.stop();
  lab.agent.restart();
  await waitFor('the agent linked again', async () => (await getNode(node.id)).agent.state === 'connected', 30_000);
  await nodeInSync(node.id);
  expect(await linkIsUp()).toBe(false);
  expect(await pingOnce(lab.clientNs, GATEWAY)).toBe(false);
  await usageMatchesKernelNow('the usage while stopped');

  // A restart is refused while stopped; start brings the tunnel back, with a new handshake.
  const refused = await call('POST', 'tunnels/restart', { nodeId: node.id });
  expect(refused.status).toBe(409);
  expect(refused.body.field).toBe('nodeId');
  const started = await call('POST', 'tunnels/start', { nodeId: node.id });
  expect(started.body).toMatchObject({ nodeId: node.id, tunnelsStopped: false });
  expect((await nodeInSync(node.id)).tunnelsStopped).toBe(false);
  expect(await linkIsUp()).toBe(true);
  await waitFor('traffic through the tunnel again', () => pingOnce(lab.clientNs, GATEWAY), 60_000);
  await sendThrough(lab.clientNs, lab.nodeNs, GATEWAY, 256 * 1024);
  await usageMatchesKernelNow('the usage after the start');

  // The node's restart: every interface of it, the handshake renewed again, the usage exact.
  const beforeNodeRestart = await latestHandshake(key);
  await quietThenCarry();
  const nodeRestart = await call('POST', 'tunnels/restart', { nodeId: node.id });
  expect(nodeRestart.body).toMatchObject({ nodeId: node.id, tunnelsStopped: false, interfaces: 1 });
  await waitFor(
    'the node restart applied',
    async () => (await getNode(node.id)).appliedRevision >= nodeRestart.body.revision,
    30_000,
  );
  await waitFor(
    'a new handshake after the node restart',
    async () => (await pingOnce(lab.clientNs, GATEWAY)) && (await latestHandshake(key)) > beforeNodeRestart,
    60_000,
  );
  await sendThrough(lab.clientNs, lab.nodeNs, GATEWAY, 256 * 1024);
  await usageMatchesKernelNow('the usage after the node restart');
}, 360_000);
