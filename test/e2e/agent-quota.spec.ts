import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomSuffix } from '../support/random-suffix.js';
import { waitFor } from '../support/wait-for.js';
import { tunnelLab } from '../support/tunnel-lab.js';
import { bringUpProfile, peersOf, pingOnce } from '../support/tunnel-client.js';

/**
 * Exact quotas on real tunnels: the kernel (an nftables quota the agent keeps per client) drops a
 * client's traffic where WireGuard's count reaches its quota, without waiting for the next
 * counter report. A download at 100 Mbit/s (iperf3, paced) through wireguard-go in namespaces
 * overshoots the quota by at most 64 KiB as the panel counts it; raising the quota re-admits
 * the client at once; an agent restarted halfway re-applies the same state without granting the
 * consumed half again. The agent reports every 2 s, as in production: the report-based cut alone
 * would let through megabytes at this speed.
 */

const MAX_OVERSHOOT = 64 * 1024;
const TUNNEL = '10.67.0.0/24';
const GATEWAY = '10.67.0.1';
const ifname = `wq${randomSuffix(8)}`;
const lab = tunnelLab({
  spec: 'agent-quota.spec',
  base: 4,
  tools: { commands: ['nft', 'iperf3'], packages: 'nftables iperf3' },
});
const { call, createClient, getClient, accountsOf } = lab;

/**
 * One iperf3 download at 100 Mbit/s from the node's namespace (`limit`: -t or -n), until it ends
 * or `stop()` says so; whether it ended well. Its one-second rates go to `rates`.
 */
async function iperf3(limit: string[], stop = async () => false, rates: string[] = []): Promise<boolean> {
  const port = String(20000 + Math.floor(Math.random() * 20000));
  const server = lab.nodeNs.start('iperf3', '-s', '-1', '-B', GATEWAY, '-p', port);
  try {
    await waitFor('iperf3 to listen', async () => (await lab.nodeNs.exec('ss', '-ltn')).includes(`${GATEWAY}:${port}`));
    const download = lab.clientNs.start(
      'iperf3',
      ...['-c', GATEWAY, '-p', port, '-R', '-b', '100M', ...limit, '-f', 'm', '--forceflush'],
      ...['--connect-timeout', '3000', '--rcv-timeout', '3000'],
    );
    await waitFor(
      'the download to end',
      async () => download.child.exitCode !== null || download.child.signalCode !== null || (await stop()),
      20_000,
      250,
    ).catch(() => undefined);
    const ok = download.child.exitCode === 0;
    await download.stop();
    rates.push(
      ...download
        .output()
        .split('\n')
        .filter((line) => /sec .* Mbits\/sec/.test(line)),
    );
    return ok;
  } finally {
    await server.stop();
  }
}

/** The agent's quota arms (quotas.json: remaining, WireGuard bytes since, ratio), for a failure's message. */
function armsNow(): string {
  try {
    return `quotas.json: ${readFileSync(join(lab.agent.dataDir, 'host', 'quotas.json'), 'utf8')}`;
  } catch (error) {
    return `quotas.json: ${(error as Error).message}`;
  }
}

/** The client's usage once the reports after the traffic have arrived and nothing moves. */
function settledUsage(clientId: string): Promise<number> {
  let last = -1;
  return waitFor(
    'the usage to settle',
    async () => {
      const used = (await getClient(clientId)).usedBytes;
      const settled = used === last;
      last = used;
      return settled ? used : undefined;
    },
    30_000,
    2500,
  );
}

/**
 * Downloads at 100 Mbit/s from an iperf3 server on the node until the client is exhausted (the
 * kernel stops the flow; the panel then marks it), then the usage once it no longer moves. A
 * download that gives up while the kernel holds the client (its limit falls a little short
 * until the next report round re-grants the rest) is started again.
 */
async function downloadUntilExhausted(clientId: string): Promise<number> {
  const rates: string[] = [];
  const exhausted = async () => (await getClient(clientId)).status === 'exhausted';
  await waitFor(
    'the client to be exhausted',
    async () => {
      if (await exhausted()) return true;
      await iperf3(['-t', '8'], exhausted, rates);
      return exhausted();
    },
    120_000,
    0,
  ).catch(async (error: Error) => {
    const used = (await getClient(clientId)).usedBytes;
    const table = await lab.nodeNs.exec('nft', 'list', 'table', 'ip', 'warren_quota').catch(String);
    throw new Error(
      `${error.message}: used ${used}\n${table}\n${armsNow()}\n${rates.join('\n')}\n${lab.agent.output()}`,
    );
  });
  // The rate before the cut, as iperf3 measured it each second (kept in the test's output).
  console.log(rates.slice(0, 3).join('\n'));
  // What was counted after the cut reaches the panel with the next reports.
  return settledUsage(clientId);
}

test('the kernel cuts a 100 Mbit/s download within 64 KiB of the quota, a raised quota re-admits at once, and an agent restart grants nothing twice', async () => {
  const { node, iface } = await lab.startNode(
    { name: ifname, listenPort: 51821, subnet: TUNNEL },
    { agentEnv: { WARREN_AGENT_REPORT_INTERVAL_MS: '2000' } },
  );
  const { nodeNs, clientNs, workDir, agent: started } = lab;

  const quota = 32 * 1024 * 1024;
  const client = await createClient({ interfaceIds: [iface.id], quotaBytes: quota });
  const [account] = await accountsOf(client.id);
  await waitFor('the peer on the node', async () => (await peersOf(nodeNs, ifname)).includes(account.public_key));
  // The node's kernel holds the client's quota (the same apply sets it just after the peer).
  await waitFor('the client’s quota in the kernel', async () =>
    (await nodeNs.exec('nft', 'list', 'table', 'ip', 'warren_quota').catch(String)).includes(
      `quota c_${client.id.replaceAll('-', '')}`,
    ),
  );

  const configs = await call('GET', `clients/${client.id}/configs`);
  await bringUpProfile(clientNs, configs.body.devices[0].profiles[0].body, workDir, TUNNEL);
  await waitFor('a ping through the tunnel', () => pingOnce(clientNs, GATEWAY), 15_000);

  const used = await downloadUntilExhausted(client.id);
  const overshoot = used - quota;
  console.log(`quota overshoot at 100 Mbit/s: ${overshoot} bytes over ${quota} (used ${used})`);
  expect(overshoot).toBeGreaterThanOrEqual(0);
  expect(overshoot).toBeLessThanOrEqual(MAX_OVERSHOOT);

  // Raising the quota brings the peer back and traffic passes again, at once (a new revision).
  const raised = await call('PATCH', `clients/${client.id}`, { quotaBytes: used + 16 * 1024 * 1024 });
  expect(raised.status).toBe(200);
  expect(raised.body.status).toBe('active');
  await waitFor('a ping through the tunnel again', () => pingOnce(clientNs, GATEWAY), 15_000);

  // Half of it, then the agent restarts and re-applies the same state (the same remaining bytes):
  // the kernel's quota keeps what it consumed, or the rest would be granted a second time.
  const half = await iperf3(['-n', '8M']);
  expect(half).toBe(true);
  const halfUsed = await settledUsage(client.id);
  expect(halfUsed - used).toBeGreaterThan(8 * 1024 * 1024);
  await started.stop();
  started.restart();
  await waitFor(
    'the agent linked again',
    async () => (await call('GET', `nodes/${node.id}`)).body.agent.state === 'connected',
  );
  await waitFor('a ping after the restart', () => pingOnce(clientNs, GATEWAY), 15_000);

  // What the rest is granted with (an overshoot here comes from the ratio the arm learnt).
  console.log(`before the last download: ${armsNow()}`);
  const second = await downloadUntilExhausted(client.id);
  const secondOvershoot = second - (used + 16 * 1024 * 1024);
  console.log(`quota overshoot after a raise: ${secondOvershoot} bytes`);
  expect(secondOvershoot).toBeGreaterThanOrEqual(0);
  expect(secondOvershoot).toBeLessThanOrEqual(MAX_OVERSHOOT);
}, 360_000);
