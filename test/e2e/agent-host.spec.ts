import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { applyResultSchema } from '../../libs/contracts/node-queue.js';
import { generateKeyPair, generatePresharedKey, publicKeyFromPrivate } from '../../libs/wireguard/keys.js';
import { probeHost, type HostProbe } from '../../apps/agent/src/host/capabilities.js';
import { CommandRunner } from '../../apps/agent/src/host/command-runner.js';
import { CounterReader, type PeerReading } from '../../apps/agent/src/host/counters.js';
import { DEFAULT_NAT_TABLE } from '../../apps/agent/src/host/nat.js';
import { WireGuardHost } from '../../apps/agent/src/host/wireguard-host.js';
import { readUapiCounters } from '../../apps/agent/src/host/uapi-counters.js';
import { socketPath, wireguardGoPids } from '../../apps/agent/src/host/wireguard-link.js';
import { desiredInterface, desiredPeer, desiredState } from '../support/desired-state.js';
import { readHostFacts, type HostFacts } from '../support/host-facts.js';
import { requireTools, TestNamespace } from '../support/netns.js';
import { randomSuffix } from '../support/random-suffix.js';
import { waitFor } from '../support/wait-for.js';

/**
 * The agent's host drivers against the real tools: wireguard-go, wg, ip and nft in network
 * namespaces of this test's own (a "server" one the drivers manage, a "client" one joined to it
 * by a veth pair). Every WireGuardHost here has its own state directory, so each test's
 * interfaces are foreign to the others' hosts. Needs root and the Debian packages
 * wireguard-tools, wireguard-go, nftables, iproute2 and iputils-ping (.ci/run installs them).
 */

const suffix = randomSuffix(5);
const usedNames = new Set<string>();
/** Unique on the machine: wireguard-go's sockets are shared by every namespace. */
function ifname(role: string): string {
  const name = `wh${suffix}${role}`;
  usedNames.add(name);
  return name;
}
const SERVER_VETH_IP = '192.0.2.1';
const CLIENT_VETH_IP = '192.0.2.2';

let server: TestNamespace | undefined;
let client: TestNamespace | undefined;
let veth: { mine: string; theirs: string };
let runner: CommandRunner;
/** What the agent's probe found here. */
let hostProbe: HostProbe;
/**
 * The probe the hosts below get: the one found, with the kernel module left out, so that the tests
 * of the wireguard-go driver (its daemon, sockets and pids) run the same on a host that has it.
 */
let probe: HostProbe;
let facts: HostFacts;
let workDir: string;

beforeAll(async () => {
  if (process.getuid?.() !== 0) throw new Error('agent-host.spec needs root (network namespaces, wireguard-go)');
  await requireTools(
    ['wg', 'wireguard-go', 'ip', 'nft', 'ping'],
    'wireguard-tools wireguard-go iproute2 nftables iputils-ping',
  );
  workDir = mkdtempSync(join(tmpdir(), 'warren-agent-host-'));
  server = await TestNamespace.create('warren-ah');
  client = await TestNamespace.create('warren-ah');
  veth = await server.vethTo(client, `${SERVER_VETH_IP}/24`, `${CLIENT_VETH_IP}/24`);
  runner = new CommandRunner({ namespace: server.name });
  hostProbe = await probeHost(runner);
  probe = withoutKernelModule(hostProbe);
  facts = await readHostFacts(server);
});

function withoutKernelModule(found: HostProbe): HostProbe {
  return { ...found, capabilities: { ...found.capabilities, wireguardKernel: false } };
}

afterAll(async () => {
  await server?.destroy().catch((e) => console.error('destroying the server namespace failed:', e));
  await client?.destroy().catch((e) => console.error('destroying the client namespace failed:', e));
  if (workDir) rmSync(workDir, { recursive: true, force: true });
  // Sockets of a daemon killed hard would outlive it; only the names this file used are ours.
  for (const name of usedNames) rmSync(`/var/run/wireguard/${name}.sock`, { force: true });
});

/** A host with a state directory of its own; `probe: null` leaves the probing to the host. */
function newHost(options: { natTable?: string; runner?: CommandRunner; probe?: HostProbe | null } = {}): {
  host: WireGuardHost;
  stateDir: string;
} {
  const stateDir = join(mkdtempSync(join(workDir, 'state-')), 'agent');
  const given = options.probe === undefined ? probe : (options.probe ?? undefined);
  const host = new WireGuardHost({
    runner: options.runner ?? runner,
    probe: given,
    stateDir,
    natTable: options.natTable,
  });
  return { host, stateDir };
}

interface DumpPeer {
  presharedKey: string;
  endpoint: string;
  allowedIps: string;
}
async function wgDump(name: string): Promise<{ privateKey: string; listenPort: number; peers: Map<string, DumpPeer> }> {
  const [self, ...lines] = (await server!.exec('wg', 'show', name, 'dump'))
    .trim()
    .split('\n')
    .map((l) => l.split('\t'));
  const peers = new Map<string, DumpPeer>();
  for (const [key, presharedKey, endpoint, allowedIps] of lines) peers.set(key, { presharedKey, endpoint, allowedIps });
  return { privateKey: self[0], listenPort: Number(self[2]), peers };
}

interface IpAddr {
  ifindex: number;
  mtu: number;
  flags: string[];
  addr_info: { family: string; local: string; prefixlen: number }[];
}
async function ipAddr(name: string): Promise<IpAddr> {
  return (JSON.parse(await server!.exec('ip', '-j', 'address', 'show', 'dev', name)) as IpAddr[])[0];
}
async function linkExists(name: string): Promise<boolean> {
  return server!.exec('ip', 'link', 'show', 'dev', name).then(
    () => true,
    () => false,
  );
}
const inet = (a: IpAddr) => a.addr_info.filter((i) => i.family === 'inet').map((i) => `${i.local}/${i.prefixlen}`);

test('the probe finds the tools installed here, and the kernel module and AmneziaWG as the host has them', () => {
  expect(hostProbe.capabilities).toEqual({
    root: true,
    wireguardKernel: facts.wireguardKernel,
    wireguardGo: true,
    wg: true,
    nft: true,
    ip: true,
  });
  expect(hostProbe.amnezia).toBe(facts.amnezia);
  expect(hostProbe.gaps.some((gap) => /AmneziaWG/.test(gap))).toBe(!facts.amnezia);
});

test('apply creates the interface with address, MTU, up and the exact peers; a second apply changes only what changed', async () => {
  const { host, stateDir } = newHost();
  const name = ifname('m');
  const [kept, rekeyed, dropped] = [
    desiredPeer('10.81.0.2'),
    desiredPeer('10.81.0.3', { presharedKey: null }),
    desiredPeer('10.81.0.4'),
  ];
  const first = desiredInterface(name, 81, { peers: [kept, rekeyed, dropped] });

  const result = await host.apply(desiredState(1, [first]));
  expect(applyResultSchema.parse(result)).toEqual(result);
  expect(result).toMatchObject({
    revision: 1,
    ok: true,
    interfaces: [{ name, state: 'up', driver: 'wireguard-go', peers: 3 }],
  });

  let dump = await wgDump(name);
  expect(dump.privateKey).toBe(first.privateKey);
  expect(dump.listenPort).toBe(first.listenPort);
  expect(new Map([...dump.peers].map(([k, p]) => [k, [p.presharedKey, p.allowedIps]]))).toEqual(
    new Map([
      [kept.publicKey, [kept.presharedKey, '10.81.0.2/32']],
      [rekeyed.publicKey, ['(none)', '10.81.0.3/32']],
      [dropped.publicKey, [dropped.presharedKey, '10.81.0.4/32']],
    ]),
  );
  const link = await ipAddr(name);
  expect(inet(link)).toEqual(['10.81.0.1/24']);
  expect(link.mtu).toBe(1380);
  expect(link.flags).toContain('UP');
  // The config holds the private key.
  expect(statSync(stateDir).mode & 0o777).toBe(0o700);
  expect(statSync(join(stateDir, `${name}.conf`)).mode & 0o777).toBe(0o600);

  // State a replaced peer would lose: an endpoint (as if the device had connected).
  await server!.exec('wg', 'set', name, 'peer', kept.publicKey, 'endpoint', '192.0.2.77:51001');
  await server!.exec('wg', 'set', name, 'peer', rekeyed.publicKey, 'endpoint', '192.0.2.78:51002');
  // And an address nobody asked for.
  await server!.exec('ip', 'address', 'add', '10.99.0.9/32', 'dev', name);

  const added = desiredPeer('10.81.0.5');
  const newPsk = generatePresharedKey();
  const second = { ...first, mtu: 1400, peers: [kept, { ...rekeyed, presharedKey: newPsk }, added] };
  expect(await host.apply(desiredState(2, [second]))).toMatchObject({
    revision: 2,
    ok: true,
    interfaces: [{ name, state: 'up', peers: 3 }],
  });

  dump = await wgDump(name);
  expect([...dump.peers.keys()].sort()).toEqual([kept.publicKey, rekeyed.publicKey, added.publicKey].sort());
  expect(dump.peers.get(kept.publicKey)).toEqual({
    presharedKey: kept.presharedKey,
    endpoint: '192.0.2.77:51001',
    allowedIps: '10.81.0.2/32',
  });
  // Changed in place (syncconf), not removed and re-added: the endpoint survived.
  expect(dump.peers.get(rekeyed.publicKey)).toEqual({
    presharedKey: newPsk,
    endpoint: '192.0.2.78:51002',
    allowedIps: '10.81.0.3/32',
  });
  expect(dump.peers.get(added.publicKey)).toMatchObject({ presharedKey: added.presharedKey, endpoint: '(none)' });
  const after = await ipAddr(name);
  expect(after.ifindex).toBe(link.ifindex);
  expect(inet(after)).toEqual(['10.81.0.1/24']);
  expect(after.mtu).toBe(1400);

  // The same state again: nothing to do, nothing disturbed, syncconf skipped (the file is only
  // ever written right before it).
  const configFile = join(stateDir, `${name}.conf`);
  const written = statSync(configFile).mtimeMs;
  await new Promise((resolve) => setTimeout(resolve, 20));
  const again = await host.apply(desiredState(3, [second]));
  expect(statSync(configFile).mtimeMs).toBe(written);
  expect(again).toMatchObject({ revision: 3, ok: true, interfaces: [{ name, state: 'up', peers: 3 }] });
  expect((await wgDump(name)).peers).toEqual(dump.peers);
  expect((await ipAddr(name)).ifindex).toBe(link.ifindex);

  // A peer removed by hand: the unchanged config is loaded again rather than trusted.
  await server!.exec('wg', 'set', name, 'peer', added.publicKey, 'remove');
  expect((await host.apply(desiredState(4, [second]))).ok).toBe(true);
  expect([...(await wgDump(name)).peers.keys()]).toContain(added.publicKey);
  expect(statSync(configFile).mtimeMs).toBeGreaterThan(written);
});

test('a real handshake and ping through the tunnel, then the counters show traffic for that peer only', async () => {
  const { host } = newHost();
  const name = ifname('t');
  const clientName = ifname('c');
  const clientKeys = generateKeyPair();
  const desired = desiredInterface(name, 82, {
    peers: [
      desiredPeer('10.82.0.2', { publicKey: clientKeys.publicKey, presharedKey: null }),
      desiredPeer('10.82.0.3'),
    ],
  });
  expect((await host.apply(desiredState(1, [desired]))).ok).toBe(true);

  const keyFile = join(workDir, 'client.key');
  writeFileSync(keyFile, clientKeys.privateKey, { mode: 0o600 });
  await client!.wireguardGo(clientName);
  const serverPublic = publicKeyFromPrivate(desired.privateKey);
  await client!.exec(
    'wg',
    'set',
    clientName,
    'private-key',
    keyFile,
    'peer',
    serverPublic,
    'endpoint',
    `${SERVER_VETH_IP}:${desired.listenPort}`,
    'allowed-ips',
    '10.82.0.0/24',
  );
  await client!.exec('ip', 'address', 'add', '10.82.0.2/32', 'dev', clientName);
  await client!.exec('ip', 'link', 'set', clientName, 'up');
  await client!.exec('ip', 'route', 'add', '10.82.0.0/24', 'dev', clientName);
  const ping = await client!.exec('ping', '-c', '3', '-i', '0.2', '-W', '3', '10.82.0.1');
  expect(ping).toMatch(/3 received/);

  // A foreign WireGuard interface in the same namespace must not show up in the readings.
  const foreign = ifname('g');
  await server!.wireguardGo(foreign);
  await server!.exec('wg', 'set', foreign, 'peer', generateKeyPair().publicKey, 'allowed-ips', '10.250.0.1/32');

  const readings = await new CounterReader(runner, () => host.managedInterfaces()).read();
  expect(readings).toHaveLength(2);
  expect(new Set(readings.map((r) => r.interface))).toEqual(new Set([name]));
  const reading = readings.find((r) => r.publicKey === clientKeys.publicKey)!;
  expect(reading.rxBytes).toBeGreaterThan(0);
  expect(reading.txBytes).toBeGreaterThan(0);
  expect(reading.lastHandshake).toBeGreaterThan(Date.now() - 60_000);
  expect(reading.endpoint).toMatch(new RegExp(`^${CLIENT_VETH_IP.replace(/\./g, '\\.')}:\\d+$`));
  const idle = readings.find((r) => r.publicKey !== clientKeys.publicKey)!;
  expect(idle).toMatchObject({ rxBytes: 0, txBytes: 0, lastHandshake: null, endpoint: null });

  // Those readings came from wireguard-go's UAPI socket; `wg show all dump` of the same interface
  // (the reader's way before, and still for kernel interfaces) says exactly the same, to the byte.
  // The tunnel is quiet now (no keepalive), so nothing moves between the two reads. wireguard-go
  // lists peers in its map's order, different at each read: compared by key.
  const byKey = (list: PeerReading[]) => [...list].sort((a, b) => a.publicKey.localeCompare(b.publicKey));
  const viaWg = async () =>
    byKey(await new CounterReader(runner, () => host.managedInterfaces(), { uapi: false }).read());
  expect(byKey(await readUapiCounters(socketPath(name), name))).toEqual(await viaWg());
  expect(byKey(readings)).toEqual(await viaWg());
  // More traffic: both ways see it, and agree again.
  await client!.exec('ping', '-c', '2', '-i', '0.2', '-s', '1000', '-W', '3', '10.82.0.1');
  const after = byKey(await readUapiCounters(socketPath(name), name));
  const moved = after.find((r) => r.publicKey === clientKeys.publicKey)!;
  expect(moved.rxBytes).toBeGreaterThan(reading.rxBytes + 2000);
  expect(after).toEqual(await viaWg());
});

test('NAT: the agent table masquerades the subnet out of natInterface, and is gone when no interface wants NAT', async () => {
  const table = `warren_${suffix}`;
  const { host } = newHost({ natTable: table });
  const name = ifname('n');
  const desired = desiredInterface(name, 83, { natInterface: veth.mine, peers: [desiredPeer('10.83.0.2')] });
  const result = await host.apply(desiredState(1, [desired]));
  expect(result).toMatchObject({ ok: true, interfaces: [{ name, state: 'up' }] });
  expect(result.interfaces[0].error).toBeUndefined();

  const ruleset = JSON.parse(await server!.exec('nft', '-j', 'list', 'table', 'ip', table)) as {
    nftables: { rule?: { expr: unknown[] }; chain?: Record<string, unknown> }[];
  };
  const rules = ruleset.nftables.filter((o) => o.rule).map((o) => o.rule);
  expect(rules).toHaveLength(1);
  expect(rules[0]?.expr).toEqual([
    {
      match: {
        op: '==',
        left: { payload: { protocol: 'ip', field: 'saddr' } },
        right: { prefix: { addr: '10.83.0.0', len: 24 } },
      },
    },
    { match: { op: '==', left: { meta: { key: 'oifname' } }, right: veth.mine } },
    { masquerade: null },
  ]);
  expect(ruleset.nftables.find((o) => o.chain)?.chain).toMatchObject({ type: 'nat', hook: 'postrouting' });
  expect((await server!.exec('cat', '/proc/sys/net/ipv4/ip_forward')).trim()).toBe('1');

  expect((await host.apply(desiredState(2, [{ ...desired, natInterface: null }]))).ok).toBe(true);
  await expect(server!.exec('nft', 'list', 'table', 'ip', table)).rejects.toThrow(/No such file or directory/);
  await host.apply(desiredState(3, []));
});

test("wireguard-go's daemon runs in a session of its own: a Ctrl-C to the agent's process group leaves the tunnel up", async () => {
  const { host } = newHost();
  const name = ifname('s');
  expect((await host.apply(desiredState(1, [desiredInterface(name, 86)]))).ok).toBe(true);
  const [daemon] = wireguardGoPids(name);
  const sessionAndGroup = (pid: number | string) => {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /s, '')
      .split(' ');
    return { group: fields[2], session: fields[3] };
  };
  const agent = sessionAndGroup('self');
  const started = sessionAndGroup(daemon);
  expect(started.session).not.toBe(agent.session);
  expect(started.group).not.toBe(agent.group);
  await host.apply(desiredState(2, []));
});

test('an interface deleted behind the agent is reported missing and re-created by the next apply', async () => {
  const { host } = newHost();
  const name = ifname('v');
  const other = ifname('w');
  const peers = [desiredPeer('10.84.0.2'), desiredPeer('10.84.0.3')];
  const desired = desiredState(1, [desiredInterface(name, 84, { peers }), desiredInterface(other, 85)]);
  expect((await host.apply(desired)).ok).toBe(true);
  expect(await host.missingInterfaces()).toEqual([]);
  const before = await ipAddr(name);

  await server!.exec('ip', 'link', 'del', 'dev', name);
  await waitFor('the daemon to go', () => !existsSync(`/var/run/wireguard/${name}.sock`), 5000, 50);
  expect(await host.missingInterfaces()).toEqual([name]);

  expect(await host.apply({ ...desired, revision: 2 })).toMatchObject({
    ok: true,
    interfaces: [
      { name, state: 'up', peers: 2 },
      { name: other, state: 'up' },
    ],
  });
  expect(await host.missingInterfaces()).toEqual([]);
  const after = await ipAddr(name);
  expect(after.ifindex).not.toBe(before.ifindex);
  expect(inet(after)).toEqual(['10.84.0.1/24']);
  expect(after.flags).toContain('UP');
  expect([...(await wgDump(name)).peers.keys()].sort()).toEqual(peers.map((p) => p.publicKey).sort());
  await host.apply(desiredState(3, []));
});

test('an interface no longer desired is removed with its daemon; an interface the agent did not create is left alone', async () => {
  const { host, stateDir } = newHost();
  const [kept, gone, foreign] = [ifname('k'), ifname('r'), ifname('f')];
  await server!.wireguardGo(foreign);
  const foreignBefore = await ipAddr(foreign);

  const keptIface = desiredInterface(kept, 86, { peers: [desiredPeer('10.86.0.2')] });
  expect((await host.apply(desiredState(1, [keptIface, desiredInterface(gone, 87)]))).ok).toBe(true);
  expect(wireguardGoPids(gone)).toHaveLength(1);
  expect(host.managedInterfaces().sort()).toEqual([gone, kept].sort());

  const result = await host.apply(desiredState(2, [keptIface]));
  expect(result.interfaces).toEqual([
    { name: kept, state: 'up', driver: 'wireguard-go', peers: 1 },
    { name: gone, state: 'removed', driver: 'wireguard-go', peers: 0 },
  ]);
  expect(await linkExists(gone)).toBe(false);
  expect(existsSync(`/var/run/wireguard/${gone}.sock`)).toBe(false);
  expect(existsSync(join(stateDir, `${gone}.conf`))).toBe(false);
  expect(wireguardGoPids(gone)).toEqual([]);
  expect(host.managedInterfaces()).toEqual([kept]);

  // Desiring the foreign name does not make it the agent's: refused, and untouched.
  const claim = await host.apply(
    desiredState(3, [keptIface, desiredInterface(foreign, 88, { peers: [desiredPeer('10.88.0.2')] })]),
  );
  expect(claim.ok).toBe(false);
  expect(claim.interfaces[1]).toMatchObject({
    name: foreign,
    state: 'failed',
    error: expect.stringMatching(/did not create/),
  });
  expect(claim.interfaces[0]).toMatchObject({ name: kept, state: 'up' });
  expect((await wgDump(foreign)).peers.size).toBe(0);

  await host.apply(desiredState(4, []));
  expect(await linkExists(kept)).toBe(false);
  const foreignAfter = await ipAddr(foreign);
  expect(foreignAfter.ifindex).toBe(foreignBefore.ifindex);
  expect(existsSync(`/var/run/wireguard/${foreign}.sock`)).toBe(true);
});

test('an AmneziaWG interface fails with the reason while the others are applied', async () => {
  // A host without AmneziaWG's tools (whether or not this machine has them).
  const { host } = newHost({ probe: { ...probe, amnezia: false } });
  const [standard, amnezia] = [ifname('s'), ifname('x')];
  const params = {
    jc: 4,
    jmin: 40,
    jmax: 120,
    s1: 20,
    s2: 30,
    h1: 100_001,
    h2: 1_000_001,
    h3: 10_000_001,
    h4: 100_000_001,
  };
  const result = await host.apply(
    desiredState(1, [
      desiredInterface(amnezia, 89, { mode: 'amnezia', amnezia: params }),
      desiredInterface(standard, 90, { peers: [desiredPeer('10.90.0.2')] }),
    ]),
  );
  expect(result.ok).toBe(false);
  expect(result.interfaces).toEqual([
    {
      name: amnezia,
      state: 'failed',
      driver: 'none',
      peers: 0,
      error: expect.stringMatching(/AmneziaWG .*not installed.*awg and amneziawg-go/),
    },
    { name: standard, state: 'up', driver: 'wireguard-go', peers: 1 },
  ]);
  expect(await linkExists(amnezia)).toBe(false);
  expect((await ipAddr(standard)).flags).toContain('UP');
  await host.apply(desiredState(2, []));
});

test('a listen port already taken fails that interface with the port named, and only that one', async () => {
  const { host } = newHost();
  const [first, second] = [ifname('o'), ifname('u')];
  const taken = desiredInterface(first, 95, { peers: [desiredPeer('10.95.0.2')] });
  const result = await host.apply(
    desiredState(1, [
      taken,
      desiredInterface(second, 96, { listenPort: taken.listenPort, peers: [desiredPeer('10.96.0.2')] }),
    ]),
  );
  expect(result.ok).toBe(false);
  expect(result.interfaces).toEqual([
    { name: first, state: 'up', driver: 'wireguard-go', peers: 1 },
    {
      name: second,
      state: 'failed',
      driver: 'wireguard-go',
      peers: 0,
      error: `listen port ${taken.listenPort} could not be bound on ${second} (already in use by another interface or program?)`,
    },
  ]);
  // Fixed by the next revision: the interface is kept and loaded again.
  const fixed = await host.apply(
    desiredState(2, [taken, desiredInterface(second, 96, { peers: [desiredPeer('10.96.0.2')] })]),
  );
  expect(fixed.ok).toBe(true);
  expect((await wgDump(second)).peers.size).toBe(1);
  await host.apply(desiredState(3, []));
  expect(await linkExists(second)).toBe(false);
});

test('concurrent applies run one after another, and an older revision does not undo a newer one', async () => {
  const { host } = newHost();
  const name = ifname('q');
  const base = desiredInterface(name, 91);
  const [a, b] = [desiredPeer('10.91.0.2'), desiredPeer('10.91.0.3')];
  const results = await Promise.all([
    host.apply(desiredState(5, [{ ...base, peers: [a] }])),
    host.apply(desiredState(6, [{ ...base, peers: [b] }])),
  ]);
  expect(results.map((r) => [r.revision, r.ok])).toEqual([
    [5, true],
    [6, true],
  ]);
  expect([...(await wgDump(name)).peers.keys()]).toEqual([b.publicKey]);

  const stale = await host.apply(desiredState(4, [{ ...base, peers: [a] }]));
  expect(stale.revision).toBe(6);
  expect([...(await wgDump(name)).peers.keys()]).toEqual([b.publicKey]);
  expect(host.appliedRevision()).toBe(6);
  await host.apply(desiredState(7, []));
});

describe('missing tools', () => {
  let binDir: string;
  /** A runner whose PATH holds only the named tools (symlinks to the real ones). */
  function runnerWith(tools: string[]): CommandRunner {
    const dir = mkdtempSync(join(binDir, 'path-'));
    for (const tool of tools)
      symlinkSync(
        execFileSync('sh', ['-c', `command -v ${tool}`])
          .toString()
          .trim(),
        join(dir, tool),
      );
    return new CommandRunner({ namespace: server!.name, env: { ...process.env, PATH: dir } });
  }
  beforeAll(() => {
    binDir = mkdtempSync(join(workDir, 'bin-'));
  });

  test('without wg, wireguard-go and nft: gaps say so and apply fails the interfaces without throwing', async () => {
    const bare = runnerWith(['ip']);
    const found = await probeHost(bare);
    // The kernel module needs no tool but ip: it is there when this host has it.
    expect(found.capabilities).toEqual({
      root: true,
      wireguardKernel: facts.wireguardKernel,
      wireguardGo: false,
      wg: false,
      nft: false,
      ip: true,
    });
    expect(found.gaps).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^wireguard-tools \(wg\) not installed/),
        expect.stringMatching(/^nftables \(nft\) not installed/),
      ]),
    );
    expect(found.gaps.filter((gap) => gap.startsWith('no WireGuard implementation'))).toEqual(
      facts.wireguardKernel
        ? []
        : [
            expect.stringMatching(
              /^no WireGuard implementation: the kernel module is unavailable \(no wireguard module\) and wireguard-go is not installed/,
            ),
          ],
    );
    const name = ifname('y');
    const { host } = newHost({ runner: bare, probe: found });
    const result = await host.apply(desiredState(1, [desiredInterface(name, 92, { natInterface: veth.mine })]));
    expect(result).toMatchObject({
      ok: false,
      interfaces: [{ name, state: 'failed', error: expect.stringMatching(/wg\) not installed/) }],
    });
    expect(await linkExists(name)).toBe(false);
  });

  test('without ip nothing can be done, and the probe still answers', async () => {
    const none = runnerWith([]);
    const found = await probeHost(none, { uid: 1000 });
    expect(found.capabilities).toEqual({
      root: false,
      wireguardKernel: false,
      wireguardGo: false,
      wg: false,
      nft: false,
      ip: false,
    });
    expect(found.gaps[0]).toBe('not running as root: interfaces cannot be created');
    // The host probes for itself when not given a probe.
    const { host } = newHost({ runner: none, probe: null });
    const result = await host.apply(desiredState(1, [desiredInterface(ifname('z'), 93)]));
    expect(result).toMatchObject({
      ok: false,
      interfaces: [{ state: 'failed', error: expect.stringMatching(/ip\) not installed/) }],
    });
  });

  test('a program name overridden to a missing path counts as not installed', async () => {
    const found = await probeHost(new CommandRunner({ namespace: server!.name, programs: { wg: '/nonexistent/wg' } }));
    expect(found.capabilities).toMatchObject({ wg: false, ip: true, nft: true, wireguardGo: true });
  });

  test('without nft the tunnel still comes up, and the outcome says NAT is missing', async () => {
    const noNft = runnerWith(['ip', 'wg', 'wireguard-go', 'setsid']);
    const found = await probeHost(noNft);
    expect(found.capabilities).toMatchObject({ wg: true, wireguardGo: true, nft: false });
    const name = ifname('p');
    const { host } = newHost({ runner: noNft, probe: withoutKernelModule(found) });
    const result = await host.apply(
      desiredState(1, [desiredInterface(name, 94, { natInterface: veth.mine, peers: [desiredPeer('10.94.0.2')] })]),
    );
    expect(result.ok).toBe(false);
    expect(result.interfaces).toEqual([
      {
        name,
        state: 'up',
        driver: 'wireguard-go',
        peers: 1,
        error: expect.stringMatching(/^NAT of 10\.94\.0\.0\/24 via .* not set up: nftables \(nft\) not installed/),
      },
    ]);
    expect((await ipAddr(name)).flags).toContain('UP');
    await host.apply(desiredState(2, []));
    expect(await linkExists(name)).toBe(false);
  });
});

test('an interface named __proto__ is recorded, survives a restart of the agent, is counted and is removed', async () => {
  // A valid Linux name, and the one key a plain object cannot hold: assigned, it sets the
  // prototype instead. Unique on the machine only while no other test uses it; cleaned up below.
  const name = '__proto__';
  usedNames.add(name);
  const { host, stateDir } = newHost();
  const client = desiredPeer('10.91.0.2');
  const result = await host.apply(desiredState(1, [desiredInterface(name, 91, { peers: [client] })]));
  expect(result).toMatchObject({ ok: true, interfaces: [{ name, state: 'up', peers: 1 }] });
  expect(host.managedInterfaces()).toEqual([name]);
  expect(await host.missingInterfaces()).toEqual([]);

  // A restarted agent reads managed.json: the interface is still known as its own.
  const restarted = new WireGuardHost({ runner, probe, stateDir });
  expect(restarted.managedInterfaces()).toEqual([name]);
  const readings = await new CounterReader(runner, () => restarted.managedInterfaces()).read();
  expect(readings).toEqual([expect.objectContaining({ interface: name, publicKey: client.publicKey })]);

  // Deleted behind its back: reported missing, so the watchdog re-applies.
  await server!.exec('ip', 'link', 'del', 'dev', name);
  expect(await restarted.missingInterfaces()).toEqual([name]);
  expect((await restarted.apply(desiredState(2, [desiredInterface(name, 91, { peers: [client] })]))).ok).toBe(true);
  expect(await linkExists(name)).toBe(true);

  const removed = await restarted.apply(desiredState(3, []));
  expect(removed.interfaces).toEqual([{ name, state: 'removed', driver: 'wireguard-go', peers: 0 }]);
  expect(await linkExists(name)).toBe(false);
  expect(wireguardGoPids(name)).toEqual([]);
  expect(restarted.managedInterfaces()).toEqual([]);
});

test('values no host tool may see are refused by the agent itself, before anything runs, whatever the job carried', async () => {
  // The job schema (libs/contracts) refuses all of these already; the host driver is called here
  // directly, as a job that slipped past it would reach it.
  const { host, stateDir } = newHost();
  const good = ifname('gd');
  const bad = ['-f', 'all', 'interfaces', '../../x', 'wg 0', 'wg0:1', '.', ''];
  const badMtu = ifname('mt');
  const result = await host.apply(
    desiredState(1, [
      ...bad.map((name, i) => desiredInterface(name, 100 + i)),
      desiredInterface(badMtu, 110, { mtu: 100_000 }),
      desiredInterface(good, 111, { peers: [desiredPeer('10.111.0.2')], natInterface: 'eth0"; flush ruleset; #' }),
    ]),
  );
  expect(result.interfaces.slice(0, bad.length)).toEqual(
    bad.map((name) => ({
      name,
      state: 'failed',
      driver: 'none',
      peers: 0,
      error: expect.stringMatching(/^interface name .* refused: it must be 1\.\.15 characters/),
    })),
  );
  expect(result.interfaces[bad.length]).toEqual({
    name: badMtu,
    state: 'failed',
    driver: 'none',
    peers: 0,
    error: expect.stringMatching(/^MTU 100000 refused/),
  });
  // The interface beside them comes up; only its NAT is refused, with the reason.
  expect(result.interfaces[bad.length + 1]).toMatchObject({
    name: good,
    state: 'up',
    error: expect.stringMatching(/NAT interface .* is not an interface name/),
  });

  // Nothing of them exists: no link, no daemon, no file beside the state directory's own.
  const links = (await server!.exec('ip', '-o', 'link', 'show'))
    .split('\n')
    .map((line) => line.split(': ')[1]?.split('@')[0]);
  for (const name of [...bad, badMtu]) expect({ name, exists: links.includes(name) }).toEqual({ name, exists: false });
  expect(wireguardGoPids(badMtu)).toEqual([]);
  expect(host.managedInterfaces()).toEqual([good]);
  expect(readdirSync(stateDir).sort()).toEqual(['applied.json', `${good}.conf`, 'managed.json'].sort());
  expect(existsSync(join(stateDir, '..', '..', 'x.conf'))).toBe(false);
  await expect(server!.exec('nft', 'list', 'table', 'ip', DEFAULT_NAT_TABLE)).rejects.toThrow(
    /No such file or directory/,
  );
  await host.apply(desiredState(2, []));
});
