import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tar from 'tar';
import { startAgent, type AgentProcess } from '../support/agent-process.js';
import { fixtures } from '../support/fixtures.js';
import { requireTools, TestNamespace } from '../support/netns.js';
import { randomSuffix } from '../support/random-suffix.js';
import { peersOf } from '../support/tunnel-client.js';
import { startTestPanel, type TestPanel } from '../support/test-panel.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Backups with a real agent: the built agent in a network namespace of the test's own applying
 * with wireguard-go, the real panel on PostgreSQL and Redis. A backup carries the node's host
 * state as its agent collected it; a restore while the agent is connected brings the host back
 * to the restored desired state. Needs root.
 */

const NODE_ADDRESS = '172.31.9.1';

let t: TestPanel;
let token: string;
let ns: TestNamespace;
let agent: AgentProcess;
const api = fixtures(() => ({ t, token }));

beforeAll(async () => {
  if (process.getuid?.() !== 0) throw new Error('backup-agents.spec needs root (network namespaces, wireguard-go)');
  await requireTools(['wg', 'wireguard-go', 'ip', 'nft'], 'wireguard-tools wireguard-go iproute2 nftables');
  t = await startTestPanel();
  token = await t.login();
  ns = await TestNamespace.create('warren-bk');
});
afterAll(async () => {
  await agent?.stop();
  if (agent) rmSync(agent.dataDir, { recursive: true, force: true });
  await ns?.destroy();
  await t?.stop();
});

test('a backup holds the node’s host state from its agent; restoring it while the agent is connected brings the host back to the backup’s peers', async () => {
  const node = await api.createNode({ name: `backup-${randomSuffix(6)}`, address: NODE_ADDRESS });
  const ifname = `wb${randomSuffix(8)}`;
  const iface = await api.createInterface({
    nodeId: node.id,
    name: ifname,
    listenPort: 51820,
    subnet: '10.67.0.0/24',
    endpointHost: NODE_ADDRESS,
    natInterface: 'lo',
  });
  agent = startAgent({
    controllerUrl: t.api.replace(/\/api$/, ''),
    enrolSecret: node.enrolment!.secret,
    netns: ns.name,
  });
  await api.nodeInSync(node.id).catch((error: Error) => {
    throw new Error(`${error.message}\n--- agent output\n${agent.output().slice(-6000)}`);
  });

  const kept = await api.createClient({ interfaceIds: [iface.id] });
  const keptKey = (await api.accountsOf(kept.id))[0].public_key as string;
  await api.nodeInSync(node.id);
  expect(await peersOf(ns, ifname)).toEqual([keptKey]);

  const made = await t.call('POST', 'backups', { token });
  expect(made.status).toBe(201);
  const manifest = await manifestOf(made.body.name);
  const entry = manifest.nodes.find((n: { id: string }) => n.id === node.id);
  expect(entry).toMatchObject({ state: 'collected', file: `nodes/${node.id}/host-state.json` });
  const hostState = JSON.parse(partOf(made.body.name, entry.file).toString());
  const configs = hostState.files.filter((f: { path: string }) => f.path.endsWith('.conf'));
  expect(configs.map((f: { contentBase64: string }) => Buffer.from(f.contentBase64, 'base64').toString())).toEqual([
    expect.stringContaining(keptKey),
  ]);
  expect(hostState.nftables).toContain('table ip warren');
  const revisionAtBackup = (await api.getNode(node.id)).desiredRevision;

  // After the backup: the client is gone, another one came.
  expect((await t.call('DELETE', `clients/${kept.id}`, { token })).status).toBe(200);
  const later = await api.createClient({ interfaceIds: [iface.id] });
  const laterKey = (await api.accountsOf(later.id))[0].public_key as string;
  await api.nodeInSync(node.id);
  expect(await peersOf(ns, ifname)).toEqual([laterKey]);
  const revisionBeforeRestore = (await api.getNode(node.id)).desiredRevision;

  const restored = await t.call('POST', `backups/${made.body.name}/restore`, { token });
  expect(restored.status).toBe(200);
  // The agent, cut off by the restore, links again with its (restored, unchanged) credential and applies.
  const synced = await api.nodeInSync(node.id, 60_000);
  expect(synced.desiredRevision).toBeGreaterThan(Math.max(revisionAtBackup, revisionBeforeRestore));
  await waitFor(
    'the host back at the backup’s peers',
    async () => ((await peersOf(ns, ifname)).join() === keptKey ? true : undefined),
    30_000,
  );
  expect((await t.call('GET', `clients/${kept.id}`, { token })).status).toBe(200);
  expect((await t.call('GET', `clients/${later.id}`, { token })).status).toBe(404);
}, 180_000);

function archivePath(name: string): string {
  return join(t.config.backupDir, name);
}

function partOf(name: string, path: string): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'warren-bk-'));
  try {
    tar.extract({ file: archivePath(name), cwd: dir, sync: true });
    return readFileSync(join(dir, path));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function manifestOf(name: string) {
  return JSON.parse(partOf(name, 'manifest.json').toString());
}
