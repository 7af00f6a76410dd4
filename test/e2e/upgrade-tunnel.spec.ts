import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../libs/net/free-port.js';
import { startAgent, type AgentProcess } from '../support/agent-process.js';
import { REDIS_URL } from '../support/environment.js';
import { dropRedisPrefix, testQueuePrefix } from '../support/leftovers.js';
import { requireTools, TestNamespace } from '../support/netns.js';
import { randomSuffix } from '../support/random-suffix.js';
import { startPanelProcess, type PanelProcess } from '../support/spawned-process.js';
import type { TestDatabase } from '../support/test-database.js';
import { bringUpProfile, peersOf, pingOnce, transferOf } from '../support/tunnel-client.js';
import { restoreFixture, upgradeFixtures } from '../support/upgrade-fixtures.js';
import { waitFor } from '../support/wait-for.js';

/**
 * A running agent keeps its tunnels through an upgrade (docs/operations.md, "Upgrading"): the
 * built panel runs on the newest upgrade fixture's database with a real agent (wireguard-go in a
 * namespace) linked and a client's tunnel up; it is stopped with SIGTERM as systemd stops it, and
 * the panel of this build starts on the same database, port and Redis. Meanwhile the tunnel
 * carries pings, and afterwards the interface is the same one (same index, same wireguard-go
 * process, same listen port, keys and peers): nothing was restarted, the revisions converge, and
 * every byte the node counted across the gap is in the client's usage once.
 * Needs root, wireguard-go, wireguard-tools, iproute2, iputils-ping.
 */

const NODE_ADDRESS = '172.31.0.1';
const TUNNEL = '10.68.0.0/24';
const GATEWAY = '10.68.0.1';
const ifname = `wu${randomSuffix(8)}`;

let nodeNs: TestNamespace;
let clientNs: TestNamespace;
let database: TestDatabase;
let panel: PanelProcess | undefined;
let agent: AgentProcess | undefined;
let workDir: string;
let env: Record<string, string>;
let origin: string;

beforeAll(async () => {
  if (process.getuid?.() !== 0) throw new Error('upgrade-tunnel.spec needs root (network namespaces, wireguard-go)');
  await requireTools(
    ['wg', 'wg-quick', 'wireguard-go', 'ip', 'ping'],
    'wireguard-tools wireguard-go iproute2 iputils-ping',
  );
  workDir = mkdtempSync(join(tmpdir(), 'warren-e2e-'));
  nodeNs = await TestNamespace.create('warren-node');
  clientNs = await TestNamespace.create('warren-client');
  await nodeNs.vethTo(clientNs, `${NODE_ADDRESS}/24`, '172.31.0.2/24');
  database = await restoreFixture(upgradeFixtures().at(-1)!);
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  // Both panels: the same database, data directory, port and queue prefix, as an upgrade in place.
  env = {
    DATABASE_URL: database.url,
    REDIS_URL,
    WARREN_PORT: String(port),
    WARREN_DATA_DIR: join(workDir, 'panel'),
    WARREN_QUEUE_PREFIX: testQueuePrefix(),
    WARREN_LOCAL_AGENT: 'off',
    WARREN_LOG_LEVEL: 'warn',
  };
}, 60_000);

afterAll(async () => {
  await agent?.stop().catch(() => undefined);
  await panel?.stop().catch(() => undefined);
  await nodeNs?.destroy().catch(() => undefined);
  await clientNs?.destroy().catch(() => undefined);
  if (agent) rmSync(agent.dataDir, { recursive: true, force: true });
  if (env) await dropRedisPrefix(REDIS_URL, env.WARREN_QUEUE_PREFIX);
  await database?.drop();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
}, 60_000);

/** JSON to and from the panel process's API. */
async function call(method: string, path: string, token?: string, body?: unknown) {
  const response = await fetch(`${origin}/api/${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

async function created(method: string, path: string, token: string, body: unknown) {
  const answer = await call(method, path, token, body);
  expect({ path, status: answer.status, body: answer.body }).toMatchObject({ path, status: 201 });
  return answer.body;
}

async function signIn(): Promise<string> {
  const { owner } = upgradeFixtures().at(-1)!.manifest;
  const answer = await call('POST', 'auth/login', undefined, owner);
  expect(answer.status).toBe(200);
  return answer.body.token as string;
}

/** The node once its agent is linked and it applied its desired revision. */
async function inSync(token: string, nodeId: string) {
  return waitFor(
    'the agent linked and the node in sync',
    async () => {
      const node = (await call('GET', `nodes/${nodeId}`, token)).body;
      return node.agent?.state === 'connected' && node.inSync ? node : undefined;
    },
    60_000,
    200,
  ).catch((error: Error) => {
    throw new Error(`${error.message}\n--- agent output\n${agent!.output().slice(-4000)}`);
  });
}

/**
 * What a restarted interface would not keep: its index, the wireguard-go process serving it,
 * and its keys, listen port and peers (`wg show dump` less the handshake times and counters).
 */
async function interfaceIdentity() {
  const index = (await nodeNs.exec('ip', '-o', 'link', 'show', 'dev', ifname)).split(':')[0];
  const [self, ...peers] = (await nodeNs.exec('wg', 'show', ifname, 'dump')).trim().split('\n');
  const processes: number[] = [];
  for (const pid of await nodeNs.pids()) {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0');
      if (argv.some((arg) => arg.endsWith('wireguard-go')) && argv.includes(ifname)) processes.push(pid);
    } catch {
      // exited meanwhile
    }
  }
  return {
    index,
    processes,
    self,
    peers: peers.map((line) => {
      const [publicKey, presharedKey, , allowedIps] = line.split('\t');
      return { publicKey, presharedKey, allowedIps };
    }),
  };
}

test('the panel stopped with SIGTERM and the new build started on its database: the tunnel carries on, nothing on the node restarts', async () => {
  panel = await startPanelProcess(env);
  let token = await signIn();
  const node = await created('POST', 'nodes', token, { name: `upgrade-${randomSuffix(6)}`, address: NODE_ADDRESS });
  const iface = await created('POST', 'interfaces', token, {
    nodeId: node.id,
    name: ifname,
    listenPort: 51820,
    subnet: TUNNEL,
    endpointHost: NODE_ADDRESS,
  });
  agent = startAgent({ controllerUrl: origin, enrolSecret: node.enrolment.secret, netns: nodeNs.name });
  await inSync(token, node.id);

  const client = await created('POST', 'clients', token, {
    name: `upgrade-${randomSuffix(6)}`,
    interfaceIds: [iface.id],
  });
  const publicKey: string = client.devices[0].accounts[0].publicKey;
  await waitFor('the peer on the node', async () => (await peersOf(nodeNs, ifname)).includes(publicKey));
  const configs = (await call('GET', `clients/${client.id}/configs`, token)).body;
  const clientIf = await bringUpProfile(clientNs, configs.devices[0].profiles[0].body, workDir, TUNNEL);
  await waitFor('a ping through the tunnel', () => pingOnce(clientNs, GATEWAY), 30_000);
  const before = await interfaceIdentity();
  expect(before.processes).toHaveLength(1);
  expect(before.peers.map((peer) => peer.publicKey)).toEqual([publicKey]);

  // The old panel goes as systemd stops it; the agent loses its link and keeps the host as it is.
  await panel.stop();
  expect((await panel.spawned.exited).signal ?? 'exited').not.toBe('SIGKILL');
  panel = undefined;
  const [rxAtStop] = (await transferOf(nodeNs, ifname, publicKey))!;
  await waitFor('a ping through the tunnel while no panel runs', () => pingOnce(clientNs, GATEWAY), 15_000);
  expect((await transferOf(nodeNs, ifname, publicKey))![0]).toBeGreaterThan(rxAtStop);
  expect(await interfaceIdentity()).toEqual(before);

  // The new build on the same database (its migrations run first), port and Redis.
  panel = await startPanelProcess(env);
  token = await signIn();
  const synced = await inSync(token, node.id);
  expect(synced.appliedRevision).toBe(synced.desiredRevision);
  expect(await pingOnce(clientNs, GATEWAY)).toBe(true);
  expect(await interfaceIdentity()).toEqual(before);

  // And it still changes the node: a client added now reaches the same interface, in place.
  const second = await created('POST', 'clients', token, {
    name: `upgrade-${randomSuffix(6)}`,
    interfaceIds: [iface.id],
  });
  const secondKey: string = second.devices[0].accounts[0].publicKey;
  await waitFor('the new peer on the node', async () => (await peersOf(nodeNs, ifname)).includes(secondKey));
  await inSync(token, node.id);
  const after = await interfaceIdentity();
  expect({ ...after, peers: after.peers.filter((peer) => peer.publicKey !== secondKey) }).toEqual(before);
  expect(await pingOnce(clientNs, GATEWAY)).toBe(true);

  // Every byte the node counted, before, during and after the gap, reaches the client's usage
  // once: the tunnel is silenced (its last packet is the node's reply) and the figures compared.
  await clientNs.exec('ip', 'link', 'del', 'dev', clientIf);
  let last = '';
  await waitFor(
    'the client usage to equal the node counters',
    async () => {
      const [rx, tx] = (await transferOf(nodeNs, ifname, publicKey))!;
      const usage = (await call('GET', `clients/${client.id}`, token)).body;
      last = `node rx ${rx} tx ${tx}, API up ${usage.upBytes} down ${usage.downBytes}`;
      return usage.upBytes === rx && usage.downBytes === tx;
    },
    30_000,
    200,
  ).catch((error: Error) => {
    throw new Error(`${error.message} (${last})`);
  });
}, 300_000);
