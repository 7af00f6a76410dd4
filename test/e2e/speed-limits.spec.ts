import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { iperf, startIperfServer } from '../support/iperf.js';
import { randomSuffix } from '../support/random-suffix.js';
import { tunnelLab } from '../support/tunnel-lab.js';
import { bringUpProfile, pingOnce } from '../support/tunnel-client.js';
import { waitFor } from '../support/wait-for.js';

/**
 * A client's speed limit on real tunnels: panel, agent (the built binary) in a node namespace,
 * two clients' wireguard-go devices in namespaces of their own, iperf3 through the tunnel. A
 * 10 Mbit/s client measures 10 Mbit/s ±10% down and up while an unlimited client beside it, at
 * the same time, is not slowed; 10 → 20 Mbit/s takes effect on a running flow without a new
 * handshake; no limit, no tc state; the interface deleted, its ifb gone. The rates are a band
 * (behaviour), not a speed target. Needs root, wireguard-go, wireguard-tools, iproute2, iperf3.
 */

const TUNNEL = '10.67.0.0/24';
const GATEWAY = '10.67.0.1';
const ifname = `ws${randomSuffix(8)}`;
const LIMIT = 10_000_000;
const within = (rate: number): [number, number] => [rate * 0.9, rate * 1.1];
// The second client reaches the node's endpoint address through a link of its own.
const lab = tunnelLab({
  spec: 'speed-limits.spec',
  places: 2,
  tools: { commands: ['tc', 'iperf3'], packages: 'iperf3' },
});
const { call, createClient, nodeInSync } = lab;

/** The clients' HTB classes on a device as `tc` prints them (one line each; not the groups' pass-through ones, 1:<group>). */
async function classes(dev: string): Promise<string[]> {
  return (await lab.nodeNs.exec('tc', 'class', 'show', 'dev', dev))
    .split('\n')
    .filter((l) => l && !l.startsWith('class htb 1:'));
}

/** The node's tc and ifb: what `tc qdisc show` lists for the tunnel, and the ifb devices. */
async function hostShaping(): Promise<{ tunnel: string[]; ifbs: string[] }> {
  const qdiscs = (await lab.nodeNs.exec('tc', 'qdisc', 'show')).split('\n');
  const links = await lab.nodeNs.exec('ip', '-o', 'link', 'show', 'type', 'ifb');
  return {
    tunnel: qdiscs.filter((l) => l.includes(` dev ${ifname} `) && !/ 0: /.test(l)).map((l) => l.split(' ')[1]),
    ifbs: [...links.matchAll(/^\d+: (\S+?)[:@]/gm)].map((m) => m[1]),
  };
}

async function latestHandshake(publicKey: string): Promise<number> {
  const out = await lab.nodeNs.exec('wg', 'show', ifname, 'latest-handshakes');
  const line = out.split('\n').find((l) => l.startsWith(publicKey));
  return Number(line?.split('\t')[1] ?? 0);
}

test('a 10 Mbit/s client gets 10 Mbit/s each way beside an unlimited one; changed in place, removed cleanly', async () => {
  const { node, iface } = await lab.startNode({ name: ifname, listenPort: 51821, subnet: TUNNEL });
  const { nodeNs, workDir, agent } = lab;
  const [limitedNs, freeNs] = lab.places;
  // No limit on the interface yet: nothing of ours on it.
  expect(await hostShaping()).toEqual({ tunnel: [], ifbs: [] });

  const limited = await createClient({
    name: `lim-${randomSuffix(6)}`,
    interfaceIds: [iface.id],
    rateBitsPerSec: LIMIT,
  });
  const free = await createClient({ name: `free-${randomSuffix(6)}`, interfaceIds: [iface.id] });
  const synced = await nodeInSync(node.id);
  expect(synced.agent.lastApply).toMatchObject({ ok: true, interfaces: [{ name: ifname, state: 'up', peers: 2 }] });
  // The root HTB, one group's HTB, the ingress.
  expect(await hostShaping()).toMatchObject({
    tunnel: ['htb', 'htb', 'ingress'],
    ifbs: [expect.stringMatching(/^ifb/)],
  });
  const [ifb] = (await hostShaping()).ifbs;
  // One class per direction, for the limited client only.
  expect(await classes(ifname)).toEqual([expect.stringContaining('rate 10Mbit ceil 10Mbit')]);
  expect(await classes(ifb)).toEqual([expect.stringContaining('rate 10Mbit ceil 10Mbit')]);

  const profileOf = async (id: string) =>
    (await call('GET', `clients/${id}/configs`)).body.devices[0].profiles[0].body as string;
  await bringUpProfile(limitedNs, await profileOf(limited.id), workDir, TUNNEL);
  await bringUpProfile(freeNs, await profileOf(free.id), workDir, TUNNEL);
  await waitFor(
    'pings through both tunnels',
    async () => (await pingOnce(limitedNs, GATEWAY)) && pingOnce(freeNs, GATEWAY),
    15_000,
  );

  await startIperfServer(nodeNs, GATEWAY, 5201);
  await startIperfServer(nodeNs, GATEWAY, 5202);
  const measured: Record<string, number> = {};
  for (const direction of ['down', 'up'] as const) {
    // Alone: the band. Then both at once: the unlimited client beside it is not slowed, and the
    // limit holds against it. (Alone first because this 2-core host is shared: beside a flow of
    // 150 Mbit/s through wireguard-go the limited sender itself may get too little CPU to fill 10.)
    // Measured again (up to three runs) when it falls short of the band: on this shared host a
    // starved sender only ever lowers a rate, while the ceiling is checked on every run.
    const [low, high] = within(LIMIT);
    let alone = 0;
    for (let run = 0; run < 3 && alone < low; run++) {
      const rate = (await iperf(limitedNs, GATEWAY, 5201, direction, 5)).bitsPerSecond;
      expect(rate).toBeLessThanOrEqual(high);
      alone = Math.max(alone, rate);
    }
    measured[`limited ${direction}`] = alone;
    const [slow, fast] = await Promise.all([
      iperf(limitedNs, GATEWAY, 5201, direction, 5),
      iperf(freeNs, GATEWAY, 5202, direction, 5),
    ]);
    measured[`limited ${direction} beside`] = slow.bitsPerSecond;
    measured[`unlimited ${direction} beside`] = fast.bitsPerSecond;
  }
  console.log(`speed limits (bits/s): ${JSON.stringify(measured)}`);
  for (const direction of ['down', 'up']) {
    const [low, high] = within(LIMIT);
    expect(measured[`limited ${direction}`]).toBeGreaterThanOrEqual(low);
    expect(measured[`limited ${direction}`]).toBeLessThanOrEqual(high);
    expect(measured[`limited ${direction} beside`]).toBeLessThanOrEqual(high);
    expect(measured[`unlimited ${direction} beside`]).toBeGreaterThan(3 * LIMIT);
  }

  // 10 → 20 Mbit/s while a flow runs: the class changes in place (its byte count goes on), the
  // peer keeps its session (no new handshake, unless the 2-minute rekey happens to fall in).
  const [account] = (await call('GET', `clients/${limited.id}`)).body.devices[0].accounts as { publicKey: string }[];
  const handshake = await latestHandshake(account.publicKey);
  expect(handshake).toBeGreaterThan(0);
  const flow = iperf(limitedNs, GATEWAY, 5201, 'down', 12);
  await waitFor(
    'the flow to be shaped',
    async () => /Sent [1-9]\d{6,} bytes/.test(await nodeNs.exec('tc', '-s', 'class', 'show', 'dev', ifname)),
    10_000,
  );
  expect((await call('PATCH', `clients/${limited.id}`, { rateBitsPerSec: 2 * LIMIT })).status).toBe(200);
  await nodeInSync(node.id);
  expect(await classes(ifname)).toEqual([expect.stringContaining('rate 20Mbit ceil 20Mbit')]);
  expect(await classes(ifb)).toEqual([expect.stringContaining('rate 20Mbit ceil 20Mbit')]);
  const during = await flow;
  // 12 s, part at 10 and part at 20 Mbit/s: more than 10 alone could carry, and no break.
  expect(during.bitsPerSecond).toBeGreaterThan(LIMIT * 1.1);
  const after = await latestHandshake(account.publicKey);
  if (after !== handshake) expect(after - handshake).toBeGreaterThanOrEqual(120);
  const [down20, up20] = [
    await iperf(limitedNs, GATEWAY, 5201, 'down', 5),
    await iperf(limitedNs, GATEWAY, 5201, 'up', 5),
  ];
  console.log(`after the change to 20 Mbit/s (bits/s): down ${down20.bitsPerSecond}, up ${up20.bitsPerSecond}`);
  for (const run of [down20, up20]) {
    expect(run.bitsPerSecond).toBeGreaterThanOrEqual(within(2 * LIMIT)[0]);
    expect(run.bitsPerSecond).toBeLessThanOrEqual(within(2 * LIMIT)[1]);
  }

  // The limit removed: no class, no qdisc, no ifb; the client goes at full speed.
  expect((await call('PATCH', `clients/${limited.id}`, { rateBitsPerSec: 0 })).status).toBe(200);
  await nodeInSync(node.id);
  expect(await hostShaping()).toEqual({ tunnel: [], ifbs: [] });
  expect((await iperf(limitedNs, GATEWAY, 5201, 'down', 3)).bitsPerSecond).toBeGreaterThan(3 * LIMIT);

  // Limited again, then the interface deleted: its ifb and the agent's record of it go too.
  expect((await call('PATCH', `clients/${limited.id}`, { rateBitsPerSec: LIMIT })).status).toBe(200);
  await nodeInSync(node.id);
  expect((await hostShaping()).ifbs).toEqual([ifb]);
  expect((await call('DELETE', `interfaces/${iface.id}?force=true`)).status).toBe(200);
  await nodeInSync(node.id);
  expect((await hostShaping()).ifbs).toEqual([]);
  const record = JSON.parse(readFileSync(join(agent.dataDir, 'host', 'shaping.json'), 'utf8')) as object;
  expect(record).toEqual({});
}, 240_000);
