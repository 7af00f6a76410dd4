import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DesiredInterface, DesiredState } from '../../libs/contracts/desired-state.js';
import { applyResultSchema } from '../../libs/contracts/node-queue.js';
import {
  DEFAULT_ROUTING,
  type DesiredOutbound,
  type DesiredRouting,
  type DesiredRule,
  type ProbeJob,
} from '../../libs/contracts/routing.js';
import { matchRoute, type RouteQuery } from '../../libs/contracts/routing-match.js';
import { generateKeyPair } from '../../libs/wireguard/keys.js';
import { probeHost, type HostProbe } from '../../apps/agent/src/host/capabilities.js';
import { CommandRunner } from '../../apps/agent/src/host/command-runner.js';
import { RuleHitReader } from '../../apps/agent/src/host/routing/rule-hits.js';
import { readHopCounters } from '../../apps/agent/src/host/routing/hop-counters.js';
import { WireGuardHost } from '../../apps/agent/src/host/wireguard-host.js';
import { probeThroughRunner } from '../../apps/agent/src/work/probe/probe-runner.js';
import { desiredInterface, desiredPeer, desiredState } from '../support/desired-state.js';
import { startDnsResponder } from '../support/dns-responder.js';
import { requireTools, TestNamespace } from '../support/netns.js';
import { resolveIn } from '../support/tunnel-client.js';
import { randomSuffix } from '../support/random-suffix.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Hops, policy routing and probes on the host, for real: the agent's drivers manage a "node"
 * namespace with a WireGuard tunnel that two client namespaces dial into; an "upstream"
 * namespace runs the hops' far ends (a WireGuard peer, microsocks, ss-server) and masquerades
 * to an "internet" namespace, whose HTTP server answers every request with the address it sees.
 * So the egress of a client's traffic is read off the answer: 203.0.113.1 (the node's uplink)
 * when it left directly, 192.0.2.1 (the upstream) when it went through a hop.
 *
 *   c1, c2 ──wg──> node ──uplink 203.0.113.0/24──> internet (100.128.0.10:8080)
 *                   └──198.51.100.0/24──> upstream ──192.0.2.0/24──┘
 *
 * Needs root, wireguard-go, wireguard-tools, nftables, iproute2, curl, microsocks,
 * shadowsocks-libev, redsocks, dnsmasq (test/prepare-host.sh installs them).
 */

const suffix = randomSuffix(5);
// In no forbidden range (100.64/10 is CGNAT, 198.18/15 benchmarking): probes with
// allowPrivateTargets false reach it. It exists only inside the test's namespaces.
const SERVER_IP = '100.128.0.10';
const TEST_URL = `http://${SERVER_IP}:8080/`;
const DIRECT_EGRESS = '203.0.113.1';
const HOP_EGRESS = '192.0.2.1';
const UPSTREAM = '198.51.100.2';
const SOCKS_PORT = 1080;
const SS_PORT = 8388;
const SS_PASSWORD = 'probe-secret';
const UPSTREAM_WG_PORT = 51900 + Math.floor(Math.random() * 90);
const TUNNEL_PORT = 52000 + Math.floor(Math.random() * 90);

let node: TestNamespace;
let upstream: TestNamespace;
let internet: TestNamespace;
const clients: { ns: TestNamespace; ip: string; keys: { privateKey: string; publicKey: string } }[] = [];
let uplink: string;
let runner: CommandRunner;
let probe: HostProbe;
let workDir: string;
let host: WireGuardHost;
let microsocks: ReturnType<TestNamespace['start']> | undefined;
let ssServer: ReturnType<TestNamespace['start']> | undefined;
let revision = 0;

const tunnelKeys = generateKeyPair();
const hopKeys = generateKeyPair();
const upstreamKeys = generateKeyPair();
const names = { tunnel: `wt${suffix}n`, hop: `wt${suffix}h`, deadHop: `wt${suffix}d`, upstream: `wt${suffix}u` };

const wgHop: DesiredOutbound = {
  id: randomUUID(),
  tag: 'via-wg',
  slot: 3,
  config: {
    kind: 'wireguard',
    interfaceName: names.hop,
    privateKey: hopKeys.privateKey,
    address: '10.66.0.2/32',
    peerPublicKey: upstreamKeys.publicKey,
    presharedKey: null,
    endpointHost: UPSTREAM,
    endpointPort: UPSTREAM_WG_PORT,
    allowedIps: ['0.0.0.0/0'],
    mtu: 1380,
    persistentKeepalive: 5,
  },
};
const socksHop: DesiredOutbound = {
  id: randomUUID(),
  tag: 'via-socks',
  slot: 7,
  config: { kind: 'socks', host: UPSTREAM, port: SOCKS_PORT, username: null, password: null },
};
const ssHop: DesiredOutbound = {
  id: randomUUID(),
  tag: 'via-ss',
  slot: 9,
  config: {
    kind: 'shadowsocks',
    host: UPSTREAM,
    port: SS_PORT,
    method: 'chacha20-ietf-poly1305',
    password: SS_PASSWORD,
  },
};

function tunnel(): DesiredInterface {
  return desiredInterface(names.tunnel, 77, {
    privateKey: tunnelKeys.privateKey,
    listenPort: TUNNEL_PORT,
    natInterface: uplink,
    peers: clients.map((c) => desiredPeer(c.ip, { publicKey: c.keys.publicKey, presharedKey: null })),
  });
}

function rule(outbound: string, criteria: Partial<DesiredRule> = {}): DesiredRule {
  return {
    id: randomUUID(),
    outbound,
    sourceIps: [],
    sourcePorts: [],
    network: null,
    destIps: [],
    domains: [],
    ports: [],
    inInterfaces: [],
    matchesNothing: false,
    ...criteria,
  };
}

function desired(outbounds: DesiredOutbound[], routing: Partial<DesiredRouting> = {}): DesiredState {
  return desiredState(++revision, [tunnel()], { outbounds, routing: { ...DEFAULT_ROUTING, ...routing } });
}

async function apply(state: DesiredState) {
  const result = await host.apply(state);
  expect(applyResultSchema.parse(result)).toEqual(result);
  expect(result.routing?.error).toBeUndefined();
  return result;
}

/** What the internet's server saw as the client's address, or null when the request failed. */
async function egressOf(client: number): Promise<string | null> {
  return clients[client].ns.exec('curl', '-sS', '-m', '3', TEST_URL).then(
    (body) => body.trim(),
    () => null,
  );
}

/** What the internet's UDP echo saw as the client's address, or null when no answer came within 2 s. */
async function udpEgressOf(client: number): Promise<string | null> {
  const program = `const s=require('node:dgram').createSocket('udp4');s.on('message',m=>{console.log(String(m));process.exit(0)});setTimeout(()=>process.exit(1),2000);s.send('hello',8080,'${SERVER_IP}')`;
  return clients[client].ns.exec(process.execPath, '-e', program).then(
    (body) => body.trim(),
    () => null,
  );
}

/** What each outbound's traffic looks like at the internet's server: the address it leaves by, or nothing. */
const EGRESS_OF: Record<string, string | null> = { 'via-wg': HOP_EGRESS, direct: DIRECT_EGRESS, blocked: null };

/**
 * The route test's matcher (libs/contracts/routing-match.ts, what `POST /api/routing/test`
 * decides with) against the ruleset the agent really applied: for each client and TCP and UDP
 * to the server, the outbound the matcher answers must be the one the traffic egresses by.
 * Returns the answers (client 1 TCP, client 1 UDP, client 2 TCP, client 2 UDP).
 */
async function expectEgressAsMatched(routing: Partial<DesiredRouting>, domain: string | null = null) {
  await apply(desired([wgHop], routing));
  const answers: (string | null)[] = [];
  for (const client of [0, 1]) {
    for (const protocol of ['tcp', 'udp'] as const) {
      const query: RouteQuery = {
        sourceIp: clients[client].ip,
        inInterface: names.tunnel,
        destIp: SERVER_IP,
        domain,
        protocol,
        port: 8080,
        sourcePort: null,
      };
      const answer = matchRoute({ ...DEFAULT_ROUTING, ...routing }, [names.tunnel], query);
      const want = EGRESS_OF[answer.outbound ?? ''];
      let got: string | null = null;
      // The WireGuard hop may still be handshaking after an apply: wait for it, not a fixed time.
      await waitFor(
        `client ${client + 1} ${protocol} leaving by ${want} (the matcher's ${answer.outbound})`,
        async () => (got = protocol === 'tcp' ? await egressOf(client) : await udpEgressOf(client)) === want,
        15_000,
        200,
      ).catch((error: Error) => {
        throw new Error(`${error.message}; it left by ${got}`);
      });
      answers.push(answer.outbound);
    }
  }
  return answers;
}

function probeJob(config: ProbeJob['config'], overrides: Partial<ProbeJob> = {}): ProbeJob {
  return {
    outboundId: randomUUID(),
    mode: 'http',
    config,
    url: TEST_URL,
    timeoutMs: 4000,
    allowPrivateTargets: false,
    ...overrides,
  };
}

async function startWireguardPeer(
  ns: TestNamespace,
  name: string,
  privateKey: string,
  port: number | null,
  peer: string,
  address: string,
): Promise<void> {
  await ns.wireguardGo(name);
  const keyFile = join(workDir, `${name}.key`);
  writeFileSync(keyFile, privateKey, { mode: 0o600 });
  await ns.exec('wg', 'set', name, 'private-key', keyFile, ...(port ? ['listen-port', String(port)] : []));
  await ns.exec('sh', '-c', peer.replace(/^/, `wg set ${name} `));
  await ns.exec('ip', 'address', 'add', address, 'dev', name);
  await ns.exec('ip', 'link', 'set', name, 'up');
}

beforeAll(async () => {
  if (process.getuid?.() !== 0) throw new Error('agent-hops.spec needs root (network namespaces, wireguard-go)');
  await requireTools(
    [
      'wg',
      'wireguard-go',
      'ip',
      'nft',
      'curl',
      'microsocks',
      'ss-server',
      'ss-redir',
      'ss-local',
      'redsocks',
      'dnsmasq',
    ],
    'wireguard-tools wireguard-go iproute2 nftables curl microsocks shadowsocks-libev redsocks dnsmasq-base',
  );
  workDir = mkdtempSync(join(tmpdir(), 'warren-agent-hops-'));
  [node, upstream, internet] = await Promise.all([
    TestNamespace.create('warren-hn'),
    TestNamespace.create('warren-hu'),
    TestNamespace.create('warren-hi'),
  ]);

  // The internet: the server's address on its loopback, reachable from the node and the upstream.
  await internet.exec('ip', 'address', 'add', `${SERVER_IP}/32`, 'dev', 'lo');
  uplink = (await node.vethTo(internet, `${DIRECT_EGRESS}/24`, '203.0.113.2/24')).mine;
  await node.exec('ip', 'route', 'add', 'default', 'via', '203.0.113.2');
  await node.vethTo(upstream, '198.51.100.1/24', `${UPSTREAM}/24`);
  const upstreamOut = (await upstream.vethTo(internet, `${HOP_EGRESS}/24`, '192.0.2.2/24')).mine;
  await upstream.exec('ip', 'route', 'add', 'default', 'via', '192.0.2.2');
  await upstream.exec('sysctl', '-q', '-w', 'net.ipv4.ip_forward=1');
  await upstream.exec(
    'nft',
    `add table ip up; add chain ip up post { type nat hook postrouting priority srcnat; }; add rule ip up post oifname "${upstreamOut}" masquerade`,
  );
  const server = internet.start(
    process.execPath,
    '-e',
    // HTTP and a UDP echo on 8080, both answering with the address they see (the echo bound to
    // the server's address: unbound, its answers would leave from the veth's address).
    `require('node:http').createServer((q,s)=>s.end(q.socket.remoteAddress.replace(/^::ffff:/,''))).listen(8080,'0.0.0.0',()=>console.log('listening'));` +
      `const u=require('node:dgram').createSocket('udp4');u.on('message',(m,r)=>u.send(r.address,r.port,r.address));u.bind(8080,'${SERVER_IP}',()=>console.log('udp'))`,
  );
  await waitFor(
    'the test server',
    () => server.output().includes('listening') && server.output().includes('udp'),
    10_000,
    50,
  );

  // The upstream's end of the WireGuard hop.
  await startWireguardPeer(
    upstream,
    names.upstream,
    upstreamKeys.privateKey,
    UPSTREAM_WG_PORT,
    `peer ${hopKeys.publicKey} allowed-ips 10.66.0.2/32`,
    '10.66.0.1/24',
  );

  // Two tunnel clients, each in a namespace of its own with a veth to the node.
  for (const [index, ip] of ['10.77.0.2', '10.77.0.3'].entries()) {
    const ns = await TestNamespace.create('warren-hc');
    await node.vethTo(ns, `172.30.${index + 1}.1/24`, `172.30.${index + 1}.2/24`);
    clients.push({ ns, ip, keys: generateKeyPair() });
  }
  runner = new CommandRunner({ namespace: node.name });
  probe = await probeHost(runner);
  host = new WireGuardHost({ runner, probe, stateDir: join(workDir, 'agent') });
  const first = await apply(desired([]));
  expect(first.ok).toBe(true);
  for (const [index, client] of clients.entries()) {
    const name = `wt${suffix}c${index}`;
    await startWireguardPeer(
      client.ns,
      name,
      client.keys.privateKey,
      null,
      `peer ${tunnelKeys.publicKey} endpoint 172.30.${index + 1}.1:${TUNNEL_PORT} allowed-ips 10.77.0.0/24,${SERVER_IP}/32 persistent-keepalive 1`,
      `${client.ip}/24`,
    );
    await client.ns.exec('ip', 'route', 'add', `${SERVER_IP}/32`, 'dev', name);
  }
  await waitFor(
    'both clients reaching the server directly',
    async () => (await egressOf(0)) === DIRECT_EGRESS && (await egressOf(1)) === DIRECT_EGRESS,
    20_000,
    200,
  );
}, 120_000);

afterAll(async () => {
  await microsocks?.stop();
  await ssServer?.stop();
  for (const ns of [node, upstream, internet, ...clients.map((c) => c.ns)])
    await ns?.destroy().catch((e) => console.error('destroying a namespace failed:', e));
  if (workDir) rmSync(workDir, { recursive: true, force: true });
  if (node) rmSync(`/etc/netns/${node.name}`, { recursive: true, force: true });
  for (const name of [...Object.values(names), `wt${suffix}c0`, `wt${suffix}c1`])
    rmSync(`/var/run/wireguard/${name}.sock`, { force: true });
});

describe('probes (run in the node namespace through the runner)', () => {
  test('direct: ok with the egress address; 127.0.0.1 and the node’s own address are refused', async () => {
    const ok = await probeThroughRunner(runner, join(workDir, 'probes'), probeJob({ kind: 'direct' }));
    expect(ok).toMatchObject({ ok: true, errorClass: null, egressIp: DIRECT_EGRESS });
    expect(ok.stages.connect).not.toBeNull();
    expect(ok.stages.firstByte).not.toBeNull();

    const loopback = await probeThroughRunner(
      runner,
      join(workDir, 'probes'),
      probeJob({ kind: 'direct' }, { url: 'http://127.0.0.1:8080/' }),
    );
    expect(loopback).toMatchObject({ ok: false, errorClass: 'forbidden' });
    const own = await probeThroughRunner(
      runner,
      join(workDir, 'probes'),
      probeJob({ kind: 'direct' }, { url: `http://${DIRECT_EGRESS}:8080/` }),
    );
    expect(own).toMatchObject({ ok: false, errorClass: 'forbidden' });
    const hopOnLoopback = await probeThroughRunner(
      runner,
      join(workDir, 'probes'),
      probeJob({ ...socksHop.config, host: '127.0.0.1' } as ProbeJob['config']),
    );
    expect(hopOnLoopback).toMatchObject({ ok: false, errorClass: 'forbidden' });
    // Spellings that compared as text passed, and the private ranges.
    for (const host of ['0:0:0:0:0:0:0:1', '::ffff:7f00:1', '10.77.0.1', '172.30.1.1']) {
      const refused = await probeThroughRunner(
        runner,
        join(workDir, 'probes'),
        probeJob({ ...socksHop.config, host } as ProbeJob['config']),
      );
      expect([host, refused]).toMatchObject([host, { ok: false, errorClass: 'forbidden' }]);
    }
    for (const url of [
      'http://[::ffff:7f00:1]:8080/',
      'http://[::ffff:203.0.113.1]:8080/',
      'http://192.168.7.7:8080/',
    ]) {
      const refused = await probeThroughRunner(runner, join(workDir, 'probes'), probeJob({ kind: 'direct' }, { url }));
      expect([url, refused]).toMatchObject([url, { ok: false, errorClass: 'forbidden' }]);
    }
  });

  test('SOCKS5 (microsocks): ok while up; connect while the proxy is down; upstream while its target is down', async () => {
    microsocks = upstream.start('microsocks', '-i', UPSTREAM, '-p', String(SOCKS_PORT));
    const job = probeJob(socksHop.config);
    const up = await waitFor('the SOCKS probe to pass', async () => {
      const r = await probeThroughRunner(runner, join(workDir, 'probes'), job);
      return r.ok && r;
    });
    expect(up).toMatchObject({ ok: true, errorClass: null, egressIp: HOP_EGRESS });
    expect(up.stages.handshake).not.toBeNull();

    // The handshake with the proxy succeeds; the target behind it does not answer.
    const deadTarget = await probeThroughRunner(
      runner,
      join(workDir, 'probes'),
      probeJob(socksHop.config, { url: `http://${SERVER_IP}:8081/` }),
    );
    expect(deadTarget.ok).toBe(false);
    expect(['upstream', 'http']).toContain(deadTarget.errorClass);

    const tcp = await probeThroughRunner(runner, join(workDir, 'probes'), probeJob(socksHop.config, { mode: 'tcp' }));
    expect(tcp).toMatchObject({ ok: true });

    await microsocks.stop();
    microsocks = undefined;
    const down = await probeThroughRunner(runner, join(workDir, 'probes'), job);
    expect(down).toMatchObject({ ok: false, errorClass: 'connect' });
  });

  test('shadowsocks (ss-server): ok while up, connect while down', async () => {
    ssServer = upstream.start(
      'ss-server',
      '-s',
      UPSTREAM,
      '-p',
      String(SS_PORT),
      '-k',
      SS_PASSWORD,
      '-m',
      'chacha20-ietf-poly1305',
    );
    const job = probeJob(ssHop.config);
    const up = await waitFor('the shadowsocks probe to pass', async () => {
      const r = await probeThroughRunner(runner, join(workDir, 'probes'), job);
      return r.ok && r;
    });
    expect(up).toMatchObject({ ok: true, errorClass: null, egressIp: HOP_EGRESS });

    const wrongPassword = await probeThroughRunner(
      runner,
      join(workDir, 'probes'),
      probeJob({ ...ssHop.config, password: 'not-it' } as ProbeJob['config']),
    );
    expect(wrongPassword.ok).toBe(false);

    await ssServer.stop();
    ssServer = undefined;
    const down = await probeThroughRunner(runner, join(workDir, 'probes'), job);
    expect(down).toMatchObject({ ok: false, errorClass: 'connect' });
  });

  test('WireGuard hop: ok through the hop interface while the upstream answers; handshake when it never does', async () => {
    const result = await apply(desired([wgHop]));
    expect(result.outbounds).toEqual([{ tag: 'via-wg', state: 'up' }]);
    const up = await waitFor('the WireGuard probe to pass', async () => {
      const r = await probeThroughRunner(runner, join(workDir, 'probes'), probeJob(wgHop.config));
      return r.ok && r;
    });
    expect(up).toMatchObject({ ok: true, egressIp: HOP_EGRESS });

    const dead: DesiredOutbound = {
      ...wgHop,
      id: randomUUID(),
      tag: 'dead-wg',
      slot: 4,
      config: {
        ...(wgHop.config as Extract<DesiredOutbound['config'], { kind: 'wireguard' }>),
        interfaceName: names.deadHop,
        address: '10.67.0.2/32',
        endpointPort: UPSTREAM_WG_PORT + 100,
      },
    };
    expect((await apply(desired([wgHop, dead]))).outbounds).toEqual([
      { tag: 'via-wg', state: 'up' },
      { tag: 'dead-wg', state: 'up' },
    ]);
    const down = await probeThroughRunner(runner, join(workDir, 'probes'), probeJob(dead.config, { timeoutMs: 1500 }));
    expect(down).toMatchObject({ ok: false, errorClass: 'handshake' });
  });
});

describe('policy routing (egress seen by the internet server)', () => {
  test('one client leaves through the WireGuard hop while the other leaves directly; reordering rules changes it', async () => {
    const viaHop = rule('via-wg', { sourceIps: [`${clients[0].ip}/32`] });
    const result = await apply(desired([wgHop], { rules: [viaHop] }));
    expect(result).toMatchObject({
      ok: true,
      outbounds: [{ tag: 'via-wg', state: 'up' }],
      routing: { state: 'up', rules: 1 },
    });
    await waitFor('client 1 through the hop', async () => (await egressOf(0)) === HOP_EGRESS);
    expect(await egressOf(1)).toBe(DIRECT_EGRESS);

    // A direct rule for the same client placed first wins; placed after the hop rule it never matches.
    const keepDirect = rule('direct', { sourceIps: ['10.77.0.0/24'] });
    await apply(desired([wgHop], { rules: [keepDirect, viaHop] }));
    expect(await egressOf(0)).toBe(DIRECT_EGRESS);
    await apply(desired([wgHop], { rules: [viaHop, keepDirect] }));
    expect(await egressOf(0)).toBe(HOP_EGRESS);
    expect(await egressOf(1)).toBe(DIRECT_EGRESS);

    // Hits are counted per rule and carried across re-applies.
    const hits = new RuleHitReader(runner, () => host.hops.table);
    expect(await hits.read()).toEqual([]);
    await egressOf(0);
    const moved = await hits.read();
    expect(moved.find((h) => h.id === viaHop.id)?.packets).toBeGreaterThan(0);
    hits.commit();
    // The connection's last packets (FIN, ACK) may still be counted after the read: wait until the
    // rule is quiet, so what the re-apply must not count again is all there was.
    await waitFor(
      'the hop rule quiet',
      async () => {
        const late = (await hits.read()).find((h) => h.id === viaHop.id);
        hits.commit();
        return late ? undefined : true;
      },
      10_000,
      500,
    );
    await apply(desired([wgHop], { rules: [viaHop, keepDirect] }));
    expect((await hits.read()).find((h) => h.id === viaHop.id)).toBeUndefined();
  });

  test('fail-closed by default: a hop that is gone drops its traffic instead of leaking it; without fail-closed it leaves directly', async () => {
    const viaHop = rule('via-wg', { sourceIps: [`${clients[0].ip}/32`] });
    // Default routing settings (DEFAULT_ROUTING, what a new node gets): nothing says failClosed.
    await apply(desired([wgHop], { rules: [viaHop] }));
    expect(await egressOf(0)).toBe(HOP_EGRESS);

    // The hop's interface vanishes behind the agent's back (a crash): the table's unreachable route holds.
    await node.exec('ip', 'link', 'del', names.hop);
    expect(await host.missingInterfaces()).toContain(names.hop);
    expect(await egressOf(0)).toBeNull();
    expect(await egressOf(1)).toBe(DIRECT_EGRESS);
    // The watchdog's re-apply brings it back.
    await apply(desired([wgHop], { rules: [viaHop] }));
    await waitFor('client 1 through the re-created hop', async () => (await egressOf(0)) === HOP_EGRESS);

    // Fail open (what an existing panel may have kept): the same crash leaks to the echo server.
    await apply(desired([wgHop], { rules: [viaHop], failClosed: false }));
    await node.exec('ip', 'link', 'del', names.hop);
    await waitFor('the crashed hop’s traffic leaving directly', async () => (await egressOf(0)) === DIRECT_EGRESS);
    await apply(desired([wgHop], { rules: [viaHop] }));
    await waitFor('client 1 through the re-created hop', async () => (await egressOf(0)) === HOP_EGRESS);

    // The hop disabled (no longer among the node's outbounds) while a rule still names it.
    await apply(desired([], { rules: [viaHop] }));
    expect(await egressOf(0)).toBeNull();
    await apply(desired([], { rules: [viaHop], failClosed: false }));
    expect(await egressOf(0)).toBe(DIRECT_EGRESS);
  });

  test('fail-closed by default: UDP to a destination routed through a SOCKS hop is dropped, not sent directly', async () => {
    microsocks ??= upstream.start('microsocks', '-i', UPSTREAM, '-p', String(SOCKS_PORT));
    // No network given: TCP and UDP to the server both match the rule.
    const viaSocks = rule('via-socks', { destIps: [`${SERVER_IP}/32`], sourceIps: [`${clients[1].ip}/32`] });
    await apply(desired([socksHop], { rules: [viaSocks] }));
    await waitFor('client 2 through the SOCKS hop', async () => (await egressOf(1)) === HOP_EGRESS);
    expect(await udpEgressOf(1)).toBeNull();
    // Client 1 is not routed: its UDP reaches the echo server (the echo works).
    expect(await udpEgressOf(0)).toBe(DIRECT_EGRESS);
    // Fail open: the UDP the hop cannot carry leaves from the node's uplink.
    await apply(desired([socksHop], { rules: [viaSocks], failClosed: false }));
    expect(await udpEgressOf(1)).toBe(DIRECT_EGRESS);
    await apply(desired([], {}));
  });

  test('a rule on blocked drops; a SOCKS5 hop carries TCP through redsocks; a killed redsocks is restarted', async () => {
    microsocks ??= upstream.start('microsocks', '-i', UPSTREAM, '-p', String(SOCKS_PORT));
    const block = rule('blocked', { sourceIps: [`${clients[1].ip}/32`] });
    await apply(desired([], { rules: [block] }));
    expect(await egressOf(1)).toBeNull();
    expect(await egressOf(0)).toBe(DIRECT_EGRESS);

    const viaSocks = rule('via-socks', { sourceIps: [`${clients[1].ip}/32`], network: 'tcp' });
    const result = await apply(desired([socksHop], { rules: [viaSocks], failClosed: true }));
    expect(result.outbounds).toEqual([{ tag: 'via-socks', state: 'up' }]);
    await waitFor('client 2 through the SOCKS hop', async () => (await egressOf(1)) === HOP_EGRESS).catch(async (e) => {
      console.log(
        await node.exec('nft', 'list', 'ruleset'),
        await node.exec('ss', '-ltnp'),
        await node.exec('cat', join(workDir, 'agent', 'hop-7.log')).catch(String),
        await clients[1].ns.exec('curl', '-sS', '-m', '3', TEST_URL).catch(String),
      );
      throw e;
    });
    expect(await egressOf(0)).toBe(DIRECT_EGRESS);

    const pid = Number((await node.exec('cat', join(workDir, 'agent', 'hop-7.pid'))).trim());
    process.kill(pid, 'SIGKILL');
    await waitFor('redsocks reported missing', async () =>
      (await host.missingInterfaces()).some((m) => m.includes('redsocks')),
    );
    expect(await egressOf(1)).toBeNull(); // fail-closed: nothing leaks while it is down
    await apply(desired([socksHop], { rules: [viaSocks], failClosed: true }));
    expect(await host.missingInterfaces()).toEqual([]);
    expect(await egressOf(1)).toBe(HOP_EGRESS);

    // Removed from the desired state: the daemon is stopped and the table has no redirect left.
    await apply(desired([], {}));
    expect(await host.missingInterfaces()).toEqual([]);
    await waitFor(
      'redsocks gone',
      async () =>
        !(await node.exec('sh', '-c', 'ps -eo args').then((o) => o.includes(join(workDir, 'agent', 'hop-7.conf')))),
    );
  });

  test("the route test's matcher answers the outbound the traffic really egresses by, for each kind of criterion", async () => {
    const [c1, c2] = clients.map((c) => `${c.ip}/32`);
    const server = `${SERVER_IP}/32`;
    // Source addresses (what clients and groups become).
    expect(await expectEgressAsMatched({ rules: [rule('via-wg', { sourceIps: [c1] })] })).toEqual([
      'via-wg',
      'via-wg',
      'direct',
      'direct',
    ]);
    // Network.
    expect(await expectEgressAsMatched({ rules: [rule('via-wg', { network: 'udp' })] })).toEqual([
      'direct',
      'via-wg',
      'direct',
      'via-wg',
    ]);
    // Destination addresses and ports: a rule on another port does not match, the next one does.
    expect(
      await expectEgressAsMatched({
        rules: [
          rule('blocked', { destIps: [server], ports: ['8081-8090'] }),
          rule('via-wg', { destIps: [server], ports: ['8080'], sourceIps: [c2] }),
          rule('blocked', { sourceIps: [c1], network: 'udp' }),
        ],
      }),
    ).toEqual(['direct', 'blocked', 'via-wg', 'via-wg']);
    // Interfaces: a rule for another interface never matches; one for the tunnel does.
    expect(
      await expectEgressAsMatched({
        rules: [
          rule('blocked', { inInterfaces: ['wt-other0'] }),
          rule('via-wg', { inInterfaces: [names.tunnel], network: 'tcp' }),
        ],
      }),
    ).toEqual(['via-wg', 'direct', 'via-wg', 'direct']);
    // Lists before rules, and the default outbound.
    expect(
      await expectEgressAsMatched({
        defaultOutbound: 'via-wg',
        blockPorts: ['8080'],
        rules: [rule('direct', { sourceIps: [c1] })],
      }),
    ).toEqual(['blocked', 'blocked', 'blocked', 'blocked']);
    expect(
      await expectEgressAsMatched({
        defaultOutbound: 'via-wg',
        directIps: ['100.128.0.0/16'],
        rules: [rule('blocked', { sourceIps: [c2] })],
      }),
    ).toEqual(['direct', 'direct', 'direct', 'direct']);
    expect(
      await expectEgressAsMatched({ defaultOutbound: 'via-wg', rules: [rule('direct', { sourceIps: [c1] })] }),
    ).toEqual(['direct', 'direct', 'via-wg', 'via-wg']);
    await apply(desired([], {}));
  });

  test('hop traffic: each hop counts the IP bytes its clients sent and got back through it; an apply keeps the counts', async () => {
    microsocks ??= upstream.start('microsocks', '-i', UPSTREAM, '-p', String(SOCKS_PORT));
    // A bulk server: a POST answers how many bytes it read, GET /get/N answers N bytes.
    const bulk = internet.start(
      process.execPath,
      '-e',
      `require('node:http').createServer((q,s)=>{let n=0;q.on('data',d=>n+=d.length);q.on('end',()=>s.end(q.url.startsWith('/get/')?Buffer.alloc(Number(q.url.slice(5)),97):String(n)))}).listen(8081,'${SERVER_IP}',()=>console.log('listening'))`,
    );
    try {
      await waitFor('the bulk server', () => bulk.output().includes('listening'), 10_000, 50).catch((e) => {
        console.log(bulk.output());
        throw e;
      });
      const viaWg = rule('via-wg', { sourceIps: [`${clients[0].ip}/32`] });
      const viaSocks = rule('via-socks', { sourceIps: [`${clients[1].ip}/32`], network: 'tcp' });
      await apply(desired([wgHop, socksHop], { rules: [viaWg, viaSocks], failClosed: true }));
      await waitFor(
        'each client through its hop',
        async () => (await egressOf(0)) === HOP_EGRESS && (await egressOf(1)) === HOP_EGRESS,
      );
      const counters = async () => {
        const read = await readHopCounters(runner, host.hops.table);
        return Object.fromEntries((read ?? []).map((h) => [h.id, [h.upBytes, h.downBytes]]));
      };
      /** The counters once nothing moves for a second (a connection's last FIN and ACK come late). */
      const quiet = async () => {
        let last = JSON.stringify(await counters());
        await waitFor(
          'the hop counters quiet',
          async () => {
            const now = JSON.stringify(await counters());
            const still = now === last;
            last = now;
            return still;
          },
          20_000,
          1000,
        );
        return JSON.parse(last) as Record<string, [number, number]>;
      };
      /** [tx, rx] of a client's tunnel interface: the IP packets it sent into and got from the tunnel. */
      const tunnelBytes = async (client: number) => {
        const dir = `/sys/class/net/wt${suffix}c${client}/statistics`;
        const [tx, rx] = (await clients[client].ns.exec('cat', `${dir}/tx_bytes`, `${dir}/rx_bytes`))
          .trim()
          .split('\n')
          .map(Number);
        return [tx, rx];
      };
      const before = await quiet();
      const tunnelsBefore = [await tunnelBytes(0), await tunnelBytes(1)];
      expect(before[wgHop.id]).toBeDefined();
      expect(before[socksHop.id]).toBeDefined();

      const upload = join(workDir, 'upload.bin');
      writeFileSync(upload, Buffer.alloc(2_000_000, 7));
      for (const client of [0, 1]) {
        const ns = clients[client].ns;
        expect(
          (await ns.exec('curl', '-sS', '-m', '30', '--data-binary', `@${upload}`, `http://${SERVER_IP}:8081/`)).trim(),
        ).toBe('2000000');
        const got = await ns.exec('sh', '-c', `curl -sS -m 30 http://${SERVER_IP}:8081/get/3000000 | wc -c`);
        expect(Number(got.trim())).toBe(3_000_000);
      }
      const after = await quiet();
      const tunnelsAfter = [await tunnelBytes(0), await tunnelBytes(1)];
      for (const [client, hop] of [
        [0, wgHop],
        [1, socksHop],
      ] as const) {
        const up = after[hop.id][0] - before[hop.id][0];
        const down = after[hop.id][1] - before[hop.id][1];
        // Every byte the client sent and got went through this hop: the counts are the payload plus
        // the packets' headers (docs/agent-host.md, "Hop traffic"), its ACKs, and on a busy machine
        // the hop's own retransmissions, which cross it too (CI once counted 3,805,234 bytes down
        // for 3,000,000, the client's tunnel 3,126,958). So the bound is half the payload again plus
        // 10 % of the other way's: far below what a count taken twice, or another client's, gives.
        // Not the client interface's count to the byte: GRO and GSO merge and split packets
        // differently on each side.
        const [sent, got] = [
          tunnelsAfter[client][0] - tunnelsBefore[client][0],
          tunnelsAfter[client][1] - tunnelsBefore[client][1],
        ];
        console.log(`hop ${hop.tag}: up ${up} (client's tunnel ${sent}), down ${down} (client's tunnel ${got})`);
        expect(up).toBeGreaterThan(2_000_000);
        expect(down).toBeGreaterThan(3_000_000);
        expect(up).toBeLessThan(2_000_000 * 1.5 + 3_000_000 * 0.1);
        expect(down).toBeLessThan(3_000_000 * 1.5 + 2_000_000 * 0.1);
      }

      // A re-apply replaces the table: the counts are carried into the new one, not reset or doubled.
      await apply(desired([wgHop, socksHop], { rules: [viaSocks, viaWg], failClosed: true }));
      expect(await counters()).toEqual(after);
    } finally {
      await bulk.stop();
      await apply(desired([], {}));
    }
  });

  test('a rule on domains matches what the tunnel gateway’s resolver (dnsmasq nftset) answered for them', async () => {
    // The node's upstream resolver is a DNS server in the internet namespace (`ip netns exec`
    // bind-mounts /etc/netns/<ns>/resolv.conf, so dnsmasq, run through the runner, reads this one).
    mkdirSync(`/etc/netns/${node.name}`, { recursive: true });
    writeFileSync(`/etc/netns/${node.name}/resolv.conf`, 'nameserver 203.0.113.2\n');
    await startDnsResponder(internet, '203.0.113.2', { 'via-hop.test': SERVER_IP });
    const viaDomain = rule('via-wg', { domains: ['via-hop.test'] });
    const result = await apply(desired([wgHop], { rules: [viaDomain] }));
    expect(result.routing).toEqual({ state: 'up', rules: 1 });
    // Nothing resolved yet: the set is empty and traffic leaves directly, as the matcher answers
    // for a destination given by address.
    expect(await egressOf(0)).toBe(DIRECT_EGRESS);
    const byAddress = { sourceIp: clients[0].ip, inInterface: names.tunnel, destIp: SERVER_IP, domain: null };
    const query = { ...byAddress, protocol: 'tcp', port: 8080, sourcePort: null } as const;
    const routing = { ...DEFAULT_ROUTING, rules: [viaDomain] };
    expect(matchRoute(routing, [names.tunnel], query)).toMatchObject({ step: 'default', outbound: 'direct' });
    expect(await resolveIn(clients[0].ns, '10.77.0.1', 'via-hop.test')).toEqual([SERVER_IP]);
    await waitFor('traffic to the resolved address through the hop', async () => (await egressOf(0)) === HOP_EGRESS);
    // Resolved through the node: the matcher, told the name, answers the hop it took.
    expect(matchRoute(routing, [names.tunnel], { ...query, domain: 'via-hop.test' })).toMatchObject({
      step: 'rule',
      matched: ['domains'],
      outbound: 'via-wg',
    });
    // The client's DNS itself is the node resolver's, never routed.
    expect(matchRoute(routing, [names.tunnel], { ...query, protocol: 'udp', port: 53 }).step).toBe('resolver');
    // The set's contents survive a re-apply that changes the table.
    await apply(desired([wgHop], { rules: [rule('direct', { sourceIps: ['10.99.0.0/24'] }), viaDomain] }));
    expect(await egressOf(1)).toBe(HOP_EGRESS);
    const resolverFiles = ['resolver.conf', 'resolver.pid'].map((file) => join(workDir, 'agent', file));
    expect(resolverFiles.filter((file) => existsSync(file))).toEqual(resolverFiles);
    // No domain criteria left: the resolver is stopped and its files removed, as a hop's are.
    await apply(desired([wgHop], { rules: [] }));
    expect(await host.missingInterfaces()).toEqual([]);
    await expect(resolveIn(clients[0].ns, '10.77.0.1', 'via-hop.test')).rejects.toThrow();
    expect(resolverFiles.filter((file) => existsSync(file))).toEqual([]);
  });

  test('a hop whose address is, or resolves on the node to, a forbidden address fails unless private targets are allowed; one running stops when they are turned off', async () => {
    const files = { conf: join(workDir, 'agent', 'hop-13.conf') };
    const running = async () => node.exec('sh', '-c', 'ps -eo args').then((o) => o.includes(files.conf));
    // The node's own tunnel gateway (private and its own): allowed, redsocks runs with it.
    const inside: DesiredOutbound = {
      id: randomUUID(),
      tag: 'inside',
      slot: 13,
      config: { kind: 'socks', host: '10.77.0.1', port: 1080, username: null, password: null },
    };
    const allowed = await apply({ ...desired([inside]), allowPrivateTargets: true });
    expect(allowed.outbounds).toEqual([{ tag: 'inside', state: 'up' }]);
    expect(await running()).toBe(true);
    // Turned off: the hop fails with the reason and its redsocks is stopped.
    const refused = await apply(desired([inside]));
    expect(refused.outbounds).toEqual([
      {
        tag: 'inside',
        state: 'failed',
        error: expect.stringMatching(/10\.77\.0\.1 is a private .*private targets are not allowed/),
      },
    ]);
    await waitFor('redsocks of the forbidden hop gone', async () => !(await running()));
    expect(await host.missingInterfaces()).toEqual([]);

    // Names the controller could not resolve are checked on the node (here: its /etc/hosts).
    mkdirSync(`/etc/netns/${node.name}`, { recursive: true });
    writeFileSync(
      `/etc/netns/${node.name}/hosts`,
      `127.0.0.1 localhost\n10.77.0.1 inside.test\n::ffff:127.0.0.1 mapped.test\n${UPSTREAM} upstream.test\n`,
    );
    try {
      const byName: DesiredOutbound = {
        ...inside,
        config: { ...inside.config, host: 'inside.test' } as DesiredOutbound['config'],
      };
      const wgByName: DesiredOutbound = {
        ...wgHop,
        tag: 'wg-inside',
        config: {
          ...(wgHop.config as Extract<DesiredOutbound['config'], { kind: 'wireguard' }>),
          endpointHost: 'mapped.test',
        },
      };
      const named = await apply(desired([byName, wgByName]));
      expect(named.outbounds).toEqual([
        // Named, not the address it resolved to (stateError is read by every role).
        {
          tag: 'inside',
          state: 'failed',
          error: expect.stringMatching(/^(?!.*10\.77\.0\.1).*inside\.test resolves to a forbidden address/),
        },
        {
          tag: 'wg-inside',
          state: 'failed',
          error: expect.stringMatching(/^(?!.*127\.|.*::1).*mapped\.test resolves to a forbidden address/),
        },
      ]);
      expect(await running()).toBe(false);
      expect(await node.exec('ip', '-o', 'link', 'show')).not.toContain(names.hop);
      // A name resolving to a public address runs.
      const fine = await apply(
        desired([{ ...inside, config: { ...inside.config, host: 'upstream.test' } as DesiredOutbound['config'] }]),
      );
      expect(fine.outbounds).toEqual([{ tag: 'inside', state: 'up' }]);
    } finally {
      rmSync(`/etc/netns/${node.name}/hosts`, { force: true });
      await apply(desired([]));
    }
  });

  test('the redirector guard is in place while a redirector runs, also on a node with no tunnel up', async () => {
    // An agent of its own in the node namespace, with no tunnel: its routing table is never rendered.
    const bare = new WireGuardHost({ runner, probe, stateDir: join(workDir, 'guarded'), routingTable: 'wt_guarded' });
    const hop: DesiredOutbound = { ...socksHop, tag: 'guarded', slot: 12 };
    const state = (revision: number, outbounds: DesiredOutbound[]) =>
      desiredState(revision, [], { outbounds, routing: DEFAULT_ROUTING });
    // redsocks listens on 0.0.0.0:12312; a client on the node's veth tries it directly.
    const reachable = () =>
      clients[0].ns.exec('timeout', '2', 'bash', '-c', 'echo > /dev/tcp/172.30.1.1/12312').then(
        () => true,
        () => false,
      );
    try {
      expect((await bare.apply(state(1, [hop]))).outbounds).toEqual([{ tag: 'guarded', state: 'up' }]);
      expect(await node.exec('nft', 'list', 'table', 'ip', 'wt_guarded_guard')).toContain('tcp dport 12301-12550');
      expect(await reachable()).toBe(false);
      // The guard is what stops it: without it redsocks answers (an open proxy into the hop).
      await node.exec('nft', 'delete', 'table', 'ip', 'wt_guarded_guard');
      expect(await reachable()).toBe(true);
      await bare.apply(state(2, [hop]));
      expect(await reachable()).toBe(false);
    } finally {
      // The last redirector gone, the guard goes too.
      await bare.apply(state(3, []));
    }
    await expect(node.exec('nft', 'list', 'table', 'ip', 'wt_guarded_guard')).rejects.toThrow();
  });

  test('a missing redirector tool is a failed outbound and a capability gap, never a crash', async () => {
    const bare = new CommandRunner({ namespace: node.name, programs: { redsocks: '/nonexistent/redsocks' } });
    const other = new WireGuardHost({ runner: bare, probe, stateDir: join(workDir, 'other') });
    const result = await other.apply(
      desiredState(1, [], { outbounds: [{ ...socksHop, slot: 11 }], routing: DEFAULT_ROUTING }),
    );
    expect(result.outbounds).toEqual([
      { tag: 'via-socks', state: 'failed', error: expect.stringMatching(/redsocks is not installed/) },
    ]);
    const gaps = (await probeHost(bare)).gaps.join('\n');
    expect(gaps).toMatch(/redsocks/);
  });
});
