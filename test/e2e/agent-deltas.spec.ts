import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { applyJobId, nodeQueueName } from '#libs/contracts/node-queue.js';
import { queuesOf } from '../support/node-queue.js';
import { randomSuffix } from '../support/random-suffix.js';
import { waitFor } from '../support/wait-for.js';
import { tunnelLab } from '../support/tunnel-lab.js';
import { bringUpProfile, peersOf, pingOnce, sendThrough, usageMatchesKernel } from '../support/tunnel-client.js';

/**
 * Incremental desired state (docs/agents.md, "Deltas"): with the real agent in a namespace, a
 * device added, a client's speed limit changed and a device deleted each reach the node as a
 * delta the agent applies alone (its log says so, and its apply journal holds each), while a
 * tunnel already up keeps carrying traffic that is counted to the byte. Then a delta is lost on
 * the way (dropped from the node's queue while the agent is held off it): the next delta does
 * not fit, the agent says so, and the whole state brings the node back in sync.
 * Needs root, wireguard-go, wireguard-tools, iproute2, tc.
 */

const TUNNEL = '10.67.0.0/24';
const GATEWAY = '10.67.0.1';
const ifname = `wd${randomSuffix(8)}`;
// The delivery sweep would repair the dropped job below on its own (a whole state for a job gone):
// kept out of the way, so the gap is what brings the node back.
const lab = tunnelLab({ spec: 'agent-deltas.spec', panelEnv: { WARREN_DELIVERY_SWEEP_MS: '600000' } });
const { call, createClient, accountsOf, getClient, revision } = lab;

/** The agent's apply journal: the deltas applied since the last whole state (apply-record.ts). */
function journalRevisions(): number[] {
  let text: string;
  try {
    text = readFileSync(join(lab.agent.dataDir, 'applied.json.journal'), 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { delta: { revision: number } }).delta.revision);
}

/** Waits until the agent applied `target` as a delta on its own (its log line and its journal). */
async function appliedAsDelta(target: number, peers: number): Promise<void> {
  await waitFor(`revision ${target} applied as a delta`, async () =>
    lab.agent.output().includes(`revision ${target}: delta of ${peers} peers applied alone`),
  );
  expect(journalRevisions()).toContain(target);
}

test('changes reach the node as deltas, and a lost delta is made good by the whole state', async () => {
  const { node, iface } = await lab.startNode({ name: ifname, listenPort: 51820, subnet: TUNNEL });
  const nodeId: string = node.id;
  const { nodeNs, clientNs, workDir } = lab;

  // A client with a working tunnel, carrying traffic through everything that follows.
  const steady = await createClient({ name: `steady-${randomSuffix(6)}`, interfaceIds: [iface.id] });
  const [steadyAccount] = await accountsOf(steady.id);
  await waitFor('the steady peer on the node', async () =>
    (await peersOf(nodeNs, ifname)).includes(steadyAccount.public_key),
  );
  const configs = await call('GET', `clients/${steady.id}/configs`);
  await bringUpProfile(clientNs, configs.body.devices[0].profiles[0].body, workDir, TUNNEL);
  await waitFor('a ping through the tunnel', () => pingOnce(clientNs, GATEWAY), 15_000);
  await sendThrough(clientNs, nodeNs, GATEWAY, 512 * 1024);

  // (a) A device added: one peer, as a delta.
  const other = await createClient({ name: `other-${randomSuffix(6)}`, interfaceIds: [iface.id], deviceLimit: 0 });
  await lab.nodeInSync(nodeId);
  const added = await call('POST', `clients/${other.id}/devices`, { name: 'tablet' });
  expect(added.status).toBe(201);
  const [tablet] = (await accountsOf(other.id)).filter((account) => account.device_id === added.body.id);
  await waitFor('the tablet on the node', async () => (await peersOf(nodeNs, ifname)).includes(tablet.public_key));
  await appliedAsDelta(await revision(nodeId), 1);
  await lab.nodeInSync(nodeId);

  // A client's speed limit changed: no peer moves, its class is made on the tunnel.
  expect((await call('PATCH', `clients/${other.id}`, { rateBitsPerSec: 8_000_000 })).status).toBe(200);
  await appliedAsDelta(await revision(nodeId), 0);
  await lab.nodeInSync(nodeId);
  expect(await nodeNs.exec('tc', 'class', 'show', 'dev', ifname)).toContain('rate 8Mbit');

  // The device deleted: its peer leaves, as a delta.
  expect((await call('DELETE', `devices/${added.body.id}`)).status).toBe(200);
  await waitFor(
    'the tablet gone from the node',
    async () => !(await peersOf(nodeNs, ifname)).includes(tablet.public_key),
  );
  await appliedAsDelta(await revision(nodeId), 1);
  await lab.nodeInSync(nodeId);

  // The steady tunnel never stopped: it still works, and its bytes are counted exactly once.
  expect(await pingOnce(clientNs, GATEWAY)).toBe(true);
  await sendThrough(clientNs, nodeNs, GATEWAY, 512 * 1024);
  await usageMatchesKernel({
    ns: nodeNs,
    ifname,
    publicKey: steadyAccount.public_key,
    readUsage: () => getClient(steady.id),
    what: "the steady client's usage to match the node's counters",
    timeoutMs: 60_000,
    context: () => lab.agent.output(),
  });

  // (b) A delta lost: the agent is held off its queue, a device is added and its delta's job
  // dropped before the agent sees it; the next device's delta then names a base it never got.
  const queue = queuesOf(lab.t).queue(nodeQueueName(nodeId));
  await queue.pause();
  try {
    const before = await revision(nodeId);
    const lost = await call('POST', `clients/${other.id}/devices`, { name: 'laptop' });
    expect(lost.status).toBe(201);
    const lostRevision = await waitFor('the first addition delivered', async () => {
      const now = await revision(nodeId);
      return now > before && (await queue.getJob(applyJobId(nodeId, now))) ? now : undefined;
    });
    expect((await queue.getJob(applyJobId(nodeId, lostRevision)))!.data).toMatchObject({
      kind: 'delta',
      baseRevision: before,
    });
    await queue.remove(applyJobId(nodeId, lostRevision));
    const next = await call('POST', `clients/${other.id}/devices`, { name: 'phone' });
    expect(next.status).toBe(201);
    const nextRevision = await waitFor('the second addition delivered', async () => {
      const now = await revision(nodeId);
      return now > lostRevision && (await queue.getJob(applyJobId(nodeId, now))) ? now : undefined;
    });
    expect((await queue.getJob(applyJobId(nodeId, nextRevision)))!.data).toMatchObject({
      kind: 'delta',
      baseRevision: lostRevision,
    });
  } finally {
    await queue.resume();
  }
  const synced = await lab.nodeInSync(nodeId).catch((error: Error) => {
    throw new Error(`${error.message}\n--- agent output\n${lab.agent.output()}`);
  });
  expect(synced.agent!.lastApply).toMatchObject({ ok: true, revision: await revision(nodeId) });
  expect(lab.agent.output()).toContain('asking for the whole state');
  const keys = (await accountsOf(other.id)).map((account) => account.public_key);
  expect(keys).toHaveLength(3);
  const live = await peersOf(nodeNs, ifname);
  for (const key of keys) expect(live).toContain(key);
  // The whole state replaced the journal; the steady tunnel still works.
  expect(journalRevisions()).toEqual([]);
  expect(await pingOnce(clientNs, GATEWAY)).toBe(true);
}, 240_000);
