// The agent's host drivers at 10,000 peers, in a network namespace of the bench's own, with the
// real wireguard-go and wg: the full apply() of one interface against a bare `wg syncconf` of the
// same file on a fresh wireguard-go interface (the floor), the no-op re-apply against a bare no-op
// syncconf, an apply changing 1% of the peers, and counter collection (`wg show all dump` + parse
// every 2 s) in a process of its own: its CPU (wg's included) and RSS. Then one device added, as
// the whole state (what every delivery carried before deltas) against a delta of that one peer
// (applyDelta: `wg addconf` of its [Peer] block alone), taken in turns on the same interface.
//
// Settings (environment): BENCH_PEERS (10000), BENCH_REPS (5: fresh interfaces per variant, taken
// in turns), BENCH_NOOP_REPS (10), BENCH_ADD_REPS (5: one-device additions of each kind per
// interface), BENCH_COUNTER_SECONDS (30), BENCH_COUNTER_INTERVAL_MS (2000),
// BENCH_PHASES (apply,counters: `counters` alone makes one interface with apply() and measures
// only the counters, into a section of its own), BENCH_WRITE=0 (print only). Needs root and
// wireguard-go, wireguard-tools, iproute2.
//
// Counters are read both ways in the same run, in turns: through the wireguard-go UAPI socket
// (what the agent does) and through `wg show all dump` (what it did before, the baseline).
// BENCH_SPOOL_BEFORE=<path of a built counter-spool.js of an earlier commit> adds a third
// collector: the UAPI socket with that spool, the before of a spool change in the same run.
// BENCH_MOVED_PERCENT (0: an idle tunnel) makes that share of the peers move each round in the
// collectors (bytes added to their readings, a different slice each round), as traffic would.
//
// Internal: `node bench/agent-host.js --collect <namespace> <interface,…> <seconds> <interval-ms> <uapi|wg|before> <moved-percent> [<spool module>]`
// is the collector process.
import { execFile, fork } from 'node:child_process';
import { connect } from 'node:net';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { cleanupScope } from './lib/cleanup.js';
import { describeMachine, machineCpuTicks } from './lib/machine.js';
import { createNamespace, requireTools } from './lib/netns.js';
import { childrenCpuMsOf, cpuMsOf, machineBusyPercent } from './lib/proc-stats.js';
import { fixed, markdownTable, mib, ms as formatMs, textTable } from './lib/report.js';
import { publishReport } from './lib/bench-panel.js';
import { envList, envNumber } from './lib/settings.js';

export const ID = 'agent-host';
export const TITLE = 'Agent host: apply, one-device deltas and counters';
/** The section of a counters-only run (BENCH_PHASES=counters): the full run's section stays as it was. */
const COUNTERS_ID = 'agent-host-counters';
const countersTitle = (settings) => `Agent host: counters at ${settings.peers.toLocaleString('en-US')} peers`;
/** Issue 27: the agent's counter collection, the tool it reads through included, in % of one core. */
const TARGET_COUNTERS_PERCENT = 10;

/** The smoke size (`npm run bench:smoke`, CI): every phase once, in seconds; nothing recorded. */
export const SMOKE = {
  BENCH_PEERS: '50',
  BENCH_REPS: '1',
  BENCH_NOOP_REPS: '1',
  BENCH_ADD_REPS: '1',
  BENCH_COUNTER_SECONDS: '2',
  BENCH_COUNTER_INTERVAL_MS: '500',
};

const SELF = fileURLToPath(import.meta.url);
const DIST = new URL('../dist/', import.meta.url);
const exec = promisify(execFile);
const TARGET_RATIO = 1.5;
/** Issue 27: one device added to the interface applies in this long on the agent, at most. */
const TARGET_DELTA_MS = 50;
/** The rest before each timed one-device addition (see there). */
const SETTLE_MS = 2000;

export function settingsFromEnv() {
  return {
    peers: envNumber('BENCH_PEERS', 10_000, 1),
    reps: envNumber('BENCH_REPS', 5, 1),
    noopReps: envNumber('BENCH_NOOP_REPS', 10, 1),
    addReps: envNumber('BENCH_ADD_REPS', 5, 1),
    counterSeconds: envNumber('BENCH_COUNTER_SECONDS', 30, 2),
    counterIntervalMs: envNumber('BENCH_COUNTER_INTERVAL_MS', 2000, 100),
    phases: envList('BENCH_PHASES', 'apply,counters', ['apply', 'counters']),
    movedPercent: envNumber('BENCH_MOVED_PERCENT', 0, 0, { integer: false }),
    spoolBefore: process.env.BENCH_SPOOL_BEFORE || null,
  };
}

const driver = () => import(new URL('apps/agent/src/host/index.js', DIST).href);
const keys = () => import(new URL('libs/wireguard/keys.js', DIST).href);
const serverConfig = () => import(new URL('libs/wireguard/server-config.js', DIST).href);
const links = () => import(new URL('apps/agent/src/host/wireguard-link.js', DIST).href);
const spool = () => import(new URL('apps/agent/src/counters/counter-spool.js', DIST).href);

/** wireguard-go's limit per device (MaxPeers, 1 << 16): it refuses the 65,537th peer. */
const WIREGUARD_GO_MAX_PEERS = 65_536;
/** A counters-only run puts at most this many peers on each of its interfaces. */
const PEERS_PER_INTERFACE = Number(process.env.BENCH_PEERS_PER_INTERFACE || 50_000);
/** The interface's network: 10.64.0.0/10, room for 4 million peers (a /16 stopped at 65,536). */
const ADDRESS = '10.64.0.1/10';
const SUBNET = '10.64.0.0/10';
/** The n-th address of the network (n ≥ 2 for peers: .0 is the network, .1 the interface). */
const peerIp = (n) => `10.${64 + (n >> 16)}.${(n >> 8) & 255}.${n & 255}`;

// ---------------------------------------------------------------------------------------------
// Figures

const median = (values) => {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};
const ms = (value) => formatMs(value, { threshold: 100, grouping: false });
const spread = (values) => `${ms(median(values))} (${ms(Math.min(...values))}–${ms(Math.max(...values))})`;

// ---------------------------------------------------------------------------------------------
// The collector process: does nothing but what the agent does with counters on its timer: read
// them (through the UAPI socket, or `wg show all dump` for the baseline) and cut a batch from
// them in the counter spool (counter-spool.ts, with its file; a batch is acknowledged at once).

async function collect([namespace, names, secondsText, intervalText, mode, movedText, spoolModule]) {
  const { CommandRunner, CounterReader } = await driver();
  const { CounterSpool } = spoolModule ? await import(new URL(spoolModule, 'file:///').href) : await spool();
  const seconds = Number(secondsText);
  const interval = Number(intervalText);
  const reader = new CounterReader(new CommandRunner({ namespace }), () => names.split(','), {
    uapi: mode !== 'wg',
  });
  // Traffic, made up: a slice of the peers (another each round) gains bytes, as if they moved.
  const movedShare = Number(movedText) / 100;
  let added = null;
  let movedFrom = 0;
  const addTraffic = (readings) => {
    if (movedShare <= 0 || readings.length === 0) return readings;
    added ??= new Float64Array(readings.length);
    const count = Math.max(1, Math.round(readings.length * movedShare));
    for (let k = 0; k < count; k++) added[(movedFrom + k) % readings.length] += 1500;
    movedFrom = (movedFrom + count) % readings.length;
    for (let i = 0; i < readings.length; i++) {
      readings[i].rxBytes += added[i];
      readings[i].txBytes += added[i] / 2;
    }
    return readings;
  };
  const spoolDir = mkdtempSync(join(tmpdir(), 'warren-bench-spool-'));
  const counterSpool = new CounterSpool(spoolDir);
  // One round before the window, as a running agent has had: its spool already holds every peer
  // (the first reading of a new spool takes each one in, once), and the code is compiled.
  const warmUp = counterSpool.cut(addTraffic(await reader.read()));
  if (warmUp) counterSpool.acknowledge(warmUp.seq);
  const rssBefore = process.memoryUsage().rss;
  // CPU of this process's reaped children (wg, via `ip netns exec`, which execs it in place). Read
  // before our own: the first reading asks getconf for the clock rate, work outside the figures.
  const childrenCpuMs = () => childrenCpuMsOf(process.pid);
  const childrenStart = childrenCpuMs();
  const ownStart = process.cpuUsage();
  const reads = [];
  const cuts = [];
  let batches = 0;
  let batchPeers = 0;
  let cutCpuMs = 0;
  const rss = [];
  let peers = 0;
  const started = performance.now();
  for (let tick = 0; performance.now() - started < seconds * 1000; tick++) {
    const due = started + tick * interval;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    if (performance.now() - started >= seconds * 1000) break;
    const t0 = performance.now();
    const readings = await reader.read();
    addTraffic(readings);
    reads.push(performance.now() - t0);
    peers = readings.length;
    const t1 = performance.now();
    const cpu1 = process.cpuUsage();
    const batch = counterSpool.cut(readings);
    const cutCpu = process.cpuUsage(cpu1);
    cutCpuMs += (cutCpu.user + cutCpu.system) / 1000;
    cuts.push(performance.now() - t1);
    if (batch) {
      batches++;
      batchPeers += batch.peers.length;
      counterSpool.acknowledge(batch.seq);
    }
    rss.push(process.memoryUsage().rss);
  }
  const elapsedMs = performance.now() - started;
  const own = process.cpuUsage(ownStart);
  // What a reading really keeps alive, apart from heap V8 has not handed back yet (measured after
  // the CPU figures, so the forced collection is not in them).
  globalThis.gc?.();
  const liveHeap = process.memoryUsage().heapUsed;
  rmSync(spoolDir, { recursive: true, force: true });
  process.send({
    mode,
    reads,
    cuts,
    cutCpuMs,
    batches,
    batchPeers,
    peers,
    elapsedMs,
    ownCpuMs: (own.user + own.system) / 1000,
    childrenCpuMs: childrenCpuMs() - childrenStart,
    rssBefore,
    rssMax: Math.max(...rss),
    maxRssKb: process.resourceUsage().maxRSS,
    liveHeap,
  });
}

// ---------------------------------------------------------------------------------------------
// The bench

async function waitForGone(ifname) {
  const { wireguardGoPids } = await links();
  // Up to 30 s: wireguard-go with tens of thousands of peers takes seconds to exit on a busy machine.
  for (let i = 0; i < 1500; i++) {
    if (!existsSync(`/var/run/wireguard/${ifname}.sock`) && wireguardGoPids(ifname).length === 0) return;
    await sleep(20);
  }
  throw new Error(`wireguard-go ${ifname} did not exit`);
}

async function makePeers(count) {
  const { generatePresharedKey } = await keys();
  const peers = new Array(count);
  for (let i = 0; i < count; i++) {
    // Any 32 bytes are a valid public key to wg; real key pairs would only slow the set-up.
    peers[i] = {
      publicKey: randomBytes(32).toString('base64'),
      presharedKey: generatePresharedKey(),
      ip: peerIp(i + 2), // 10.64.0.2 onwards
    };
  }
  return peers;
}

export async function run({ writeDoc = true, docFile, command } = {}) {
  const settings = settingsFromEnv();
  if (process.getuid?.() !== 0) throw new Error('the agent-host bench needs root (network namespaces, wireguard-go)');
  await requireTools(['ip', 'wg', 'wireguard-go'], 'wireguard-tools wireguard-go iproute2');
  const machine = describeMachine();
  const { CommandRunner, WireGuardHost, probeHost } = await driver();
  const { generateKeyPair } = await keys();
  const { renderServerConfig } = await serverConfig();

  const tag = randomBytes(3).toString('hex');
  const scope = cleanupScope('the agent-host run');
  try {
    const workDir = mkdtempSync(join(tmpdir(), 'warren-bench-agent-'));
    scope.add('work directory', () => rmSync(workDir, { recursive: true, force: true }));
    const machineBefore = machineCpuTicks();
    await sleep(1000);
    const machineAfterIdle = machineCpuTicks();
    const idleBusy = machineBusyPercent(machineBefore, machineAfterIdle);

    // Every process in it is ours (wireguard-go daemons): destroy() ends them, so their sockets go too.
    const ns = await createNamespace('warren-bench');
    scope.add(`namespace ${ns.name}`, () => ns.destroy());
    const namespace = ns.name;
    const runner = new CommandRunner({ namespace });
    const probe = await probeHost(runner);

    process.stderr.write(
      `bench: ${settings.peers.toLocaleString('en-US')} peers, ${settings.reps} fresh interfaces per variant, namespace ${namespace}\n`,
    );
    const peers = await makePeers(settings.peers);
    const iface = (name) => ({
      name,
      mode: 'standard',
      privateKey: generateKeyPair().privateKey,
      listenPort: 51820,
      address: ADDRESS,
      subnet: SUBNET,
      mtu: 1420,
      natInterface: null,
      amnezia: null,
      peers,
    });
    const nodeId = randomUUID();

    const bare = { create: [], sync: [], addressUp: [], byHand: [], noop: [], showPeers: [], setOne: [] };
    const driverRuns = { full: [], noop: [], changed: [], addWhole: [], addDelta: [], remove: [] };
    let extraPeers = 0;
    const { generatePresharedKey: psk } = await keys();
    const newPeer = () => {
      const n = settings.peers + 2 + extraPeers++;
      // With a preshared key, as the panel gives every device.
      return { publicKey: randomBytes(32).toString('base64'), presharedKey: psk(), ip: peerIp(n) };
    };
    let configBytes = 0;
    let keep = null;
    const applyPhase = settings.phases.includes('apply');
    if (applyPhase && settings.peers > WIREGUARD_GO_MAX_PEERS)
      throw new Error(
        `one wireguard-go interface holds at most ${WIREGUARD_GO_MAX_PEERS} peers: use BENCH_PHASES=counters`,
      );
    if (!applyPhase) {
      // Counters only: the peers split over interfaces of at most PEERS_PER_INTERFACE each (one
      // wireguard-go device refuses more than 65,536), made by the driver as an agent makes them.
      const count = Math.ceil(settings.peers / PEERS_PER_INTERFACE);
      const names = Array.from({ length: count }, (_, i) => `wb${tag}c${i}`);
      const interfaces = names.map((name, i) => ({
        ...iface(name),
        listenPort: 51820 + i,
        // An address of its own per interface (the peers' /32s are all in 10.64.0.0/10).
        address: `10.${128 + i}.0.1/16`,
        subnet: `10.${128 + i}.0.0/16`,
        peers: peers.slice(i * PEERS_PER_INTERFACE, (i + 1) * PEERS_PER_INTERFACE),
      }));
      const host = new WireGuardHost({ runner, probe, stateDir: join(workDir, 'state-0') });
      const result = await host.apply({ nodeId, revision: 1, interfaces });
      if (!result.ok) throw new Error(`apply failed: ${JSON.stringify(result.interfaces)}`);
      keep = { host, names };
    }
    for (let rep = 0; applyPhase && rep < settings.reps; rep++) {
      // Baseline: what any agent must at least spend: wg syncconf of the file on a fresh interface.
      const bareName = `wb${tag}b${rep}`;
      const desired = iface(bareName);
      const file = join(workDir, `${bareName}.conf`);
      const text = renderServerConfig({ privateKey: desired.privateKey, listenPort: desired.listenPort, peers });
      configBytes = Buffer.byteLength(text);
      writeFileSync(file, text, { mode: 0o600 });
      let t = performance.now();
      await ns.exec('wireguard-go', bareName);
      bare.create.push(performance.now() - t);
      t = performance.now();
      await ns.exec('wg', 'syncconf', bareName, file);
      bare.sync.push(performance.now() - t);
      // The rest of what an apply does, by hand: address, MTU, up (a link going up starts every peer).
      t = performance.now();
      await ns.exec('ip', 'address', 'add', desired.address, 'dev', bareName);
      await ns.exec('ip', 'link', 'set', 'dev', bareName, 'mtu', String(desired.mtu), 'up');
      bare.addressUp.push(performance.now() - t);
      bare.byHand.push(bare.create.at(-1) + bare.sync.at(-1) + bare.addressUp.at(-1));
      t = performance.now();
      await ns.exec('wg', 'syncconf', bareName, file);
      bare.noop.push(performance.now() - t);
      t = performance.now();
      const listed = await ns.exec('wg', 'show', bareName, 'peers');
      bare.showPeers.push(performance.now() - t);
      // A syncconf wireguard-go refused mid-way (wg dies of SIGPIPE) would look fast: make sure it took.
      if (listed.trim().split('\n').length !== settings.peers)
        throw new Error(`bare syncconf left ${listed.trim().split('\n').length} peers on ${bareName}`);
      await ns.exec('ip', 'link', 'del', 'dev', bareName);
      await waitForGone(bareName);

      // The driver: a fresh agent state and a fresh interface each time.
      const name = `wb${tag}a${rep}`;
      const host = new WireGuardHost({ runner, probe, stateDir: join(workDir, `state-${rep}`) });
      const state = { nodeId, revision: 1, interfaces: [iface(name)] };
      t = performance.now();
      let result = await host.apply(state);
      driverRuns.full.push(performance.now() - t);
      if (!result.ok) throw new Error(`apply failed: ${JSON.stringify(result.interfaces)}`);
      for (let i = 0; i < Math.ceil(settings.noopReps / settings.reps); i++) {
        t = performance.now();
        result = await host.apply({ ...state, revision: state.revision + 1 + i });
        driverRuns.noop.push(performance.now() - t);
        if (!result.ok) throw new Error(`no-op apply failed: ${JSON.stringify(result.interfaces)}`);
      }
      // 1% of the peers replaced by new devices.
      const changedPeers = peers.slice();
      const changes = Math.max(1, Math.floor(peers.length / 100));
      for (let i = 0; i < changes; i++)
        changedPeers[i * 100] = { ...peers[i * 100], publicKey: randomBytes(32).toString('base64') };
      t = performance.now();
      result = await host.apply({
        ...state,
        revision: 100,
        interfaces: [{ ...state.interfaces[0], peers: changedPeers }],
      });
      driverRuns.changed.push(performance.now() - t);
      if (!result.ok) throw new Error(`1% apply failed: ${JSON.stringify(result.interfaces)}`);
      // One device added: the whole state carrying it (before deltas), then a delta of one, in turns.
      let current = changedPeers;
      let revision = 100;
      for (let i = 0; i < settings.addReps; i++) {
        current = [...current, newPeer()];
        revision++;
        // Each timed addition starts on a settled interface: wireguard-go goes on digesting a
        // whole-state syncconf (Go's collector, at tens of thousands of peers) after wg returned.
        await sleep(SETTLE_MS);
        t = performance.now();
        result = await host.apply({ ...state, revision, interfaces: [{ ...state.interfaces[0], peers: current }] });
        driverRuns.addWhole.push(performance.now() - t);
        if (!result.ok) throw new Error(`whole-state addition failed: ${JSON.stringify(result.interfaces)}`);
        const added = newPeer();
        await sleep(SETTLE_MS);
        t = performance.now();
        const outcome = await host.applyDelta({
          kind: 'delta',
          nodeId,
          revision: revision + 1,
          baseRevision: revision,
          interfaces: [{ name, peers: [added], removedPeers: [] }],
        });
        driverRuns.addDelta.push(performance.now() - t);
        if (!outcome.result?.ok || outcome.full) throw new Error(`delta addition failed: ${JSON.stringify(outcome)}`);
        revision++;
        current = [...current, added];
        // The floor of a delta: one bare `wg set` of one peer (then taken out again).
        const probe = newPeer();
        await sleep(SETTLE_MS);
        t = performance.now();
        await ns.exec('wg', 'set', name, 'peer', probe.publicKey, 'allowed-ips', `${probe.ip}/32`);
        bare.setOne.push(performance.now() - t);
        await ns.exec('wg', 'set', name, 'peer', probe.publicKey, 'remove');
      }
      state.revision = revision;
      if (rep === settings.reps - 1) {
        keep = { host, names: [name] };
        break;
      }
      t = performance.now();
      await host.apply({ ...state, revision: state.revision + 1, interfaces: [] });
      driverRuns.remove.push(performance.now() - t);
    }
    let held = 0;
    for (const name of keep.names) held += (await ns.exec('wg', 'show', name, 'dump')).trim().split('\n').length - 1;
    const expected = settings.peers + (applyPhase ? 2 * settings.addReps : 0);
    if (held !== expected) throw new Error(`the interfaces hold ${held} peers, expected ${expected}`);

    // Counters: a process doing nothing else, on the interface left up with all its peers; the
    // baseline (`wg show all dump`) first, then the UAPI socket, each in a collector of its own.
    const { wireguardGoPids } = await links();
    const daemonPids = keep.names.map((name) => wireguardGoPids(name)[0]);
    const daemonsCpuMs = () => daemonPids.reduce((sum, pid) => sum + cpuMsOf(pid), 0);
    const counters = {};
    for (const mode of ['wg', ...(settings.spoolBefore ? ['before'] : []), 'uapi']) {
      process.stderr.write(
        `bench: counter collection (${mode}) every ${settings.counterIntervalMs} ms for ${settings.counterSeconds} s…\n`,
      );
      const daemonBefore = daemonsCpuMs();
      const collected = await new Promise((resolve, reject) => {
        const child = fork(
          SELF,
          [
            '--collect',
            namespace,
            keep.names.join(','),
            String(settings.counterSeconds),
            String(settings.counterIntervalMs),
            mode,
            String(settings.movedPercent),
            ...(mode === 'before' ? [settings.spoolBefore] : []),
          ],
          {
            execArgv: ['--expose-gc'],
            stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
          },
        );
        child.once('message', resolve);
        child.once('error', reject);
        child.once('exit', (code) => reject(new Error(`collector exited with code ${code} before reporting`)));
      });
      const daemonCpuMs = daemonsCpuMs() - daemonBefore;
      if (collected.peers !== expected)
        throw new Error(`collector (${mode}) read ${collected.peers} peers, expected ${expected}`);
      counters[mode] = { collected, daemonCpuMs };
    }

    // Parse alone, in this process, on a real dump of the interface and a real UAPI answer.
    const { parseWgDump, UapiCounterParser } = await driver();
    const allDump = await ns.exec('wg', 'show', 'all', 'dump');
    const answers = [];
    for (const name of keep.names) answers.push({ name, answer: await uapiAnswer(name) });
    const ours = (name) => keep.names.includes(name);
    const parseUapi = () => {
      let readings = [];
      for (const { name, answer } of answers) {
        const parser = new UapiCounterParser(name);
        // In 64 KiB chunks, as a unix socket delivers it.
        for (let at = 0; at < answer.length; at += 65536) parser.push(answer.subarray(at, at + 65536));
        readings = readings.concat(parser.readings);
      }
      return readings;
    };
    if (parseUapi().length !== expected) throw new Error('the UAPI answer parsed to the wrong number of peers');
    const timed = (fn) => {
      for (let i = 0; i < 3; i++) fn();
      const times = [];
      for (let i = 0; i < 10; i++) {
        const t = performance.now();
        fn();
        times.push(performance.now() - t);
      }
      return median(times);
    };
    const parseMs = timed(() => parseWgDump(allDump, ours));
    const uapiParseMs = timed(parseUapi);
    await keep.host.apply({ nodeId, revision: 10_000, interfaces: [] });
    const machineEnd = machineCpuTicks();

    const facts = {
      settings,
      machine,
      command,
      idleBusy,
      configBytes,
      bare,
      driverRuns,
      counters,
      parseMs,
      uapiParseMs,
      answerBytes: answers.reduce((sum, { answer }) => sum + answer.length, 0),
      interfaces: keep.names.length,
      dumpBytes: Buffer.byteLength(allDump),
      wgVersion: (await exec('wg', ['--version'])).stdout.trim(),
      wgGoVersion: (await exec('wireguard-go', ['--version'])).stdout.split('\n')[0].trim(),
      machineBusy: machineBusyPercent(machineAfterIdle, machineEnd),
    };
    if (applyPhase) {
      const report = render(facts);
      publishReport(report, { writeDoc, docFile, id: ID, title: TITLE });
      return report.figures;
    }
    const report = renderCountersOnly(facts);
    publishReport(report, { writeDoc, docFile, id: COUNTERS_ID, title: countersTitle(settings) });
    return report.figures;
  } finally {
    await scope.run();
  }
}

/** The raw answer of the interface's UAPI socket to `get=1` (what the agent parses). */
function uapiAnswer(ifname) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    const conn = connect(`/var/run/wireguard/${ifname}.sock`);
    conn.on('connect', () => conn.write('get=1\n\n'));
    conn.on('data', (chunk) => {
      chunks.push(chunk);
      const tail = Buffer.concat(chunks.slice(-2)).toString('latin1');
      if (/errno=\d+\n\n$/.test(tail)) {
        conn.destroy();
        resolve(Buffer.concat(chunks));
      }
    });
    conn.on('error', reject);
  });
}

function render({
  settings,
  machine,
  command,
  idleBusy,
  configBytes,
  bare,
  driverRuns,
  counters,
  parseMs,
  uapiParseMs,
  answerBytes,
  dumpBytes,
  wgVersion,
  wgGoVersion,
  machineBusy,
}) {
  const peers = settings.peers.toLocaleString('en-US');
  const full = median(driverRuns.full);
  const floor = median(bare.sync);
  const ratio = full / floor;
  const pass = ratio <= TARGET_RATIO;
  const addDelta = median(driverRuns.addDelta);
  const deltaPass = addDelta <= TARGET_DELTA_MS;
  const header = ['operation', 'median (min–max)', 'runs', 'vs bare syncconf'];
  const vs = (values) => (median(values) / floor).toFixed(2);
  const rows = [
    [
      `*baseline:* bare \`wg syncconf\` of ${peers} peers on a fresh wireguard-go interface`,
      spread(bare.sync),
      bare.sync.length,
      '1.00',
    ],
    [
      '*reference:* bare `wireguard-go <if>` (create, until it returns)',
      spread(bare.create),
      bare.create.length,
      vs(bare.create),
    ],
    [
      '*reference:* bare `ip address add` + `ip link set … mtu … up` after it',
      spread(bare.addressUp),
      bare.addressUp.length,
      vs(bare.addressUp),
    ],
    [
      '*reference:* the same work by hand: create + syncconf + address + up, one after another',
      spread(bare.byHand),
      bare.byHand.length,
      vs(bare.byHand),
    ],
    [
      '*reference:* bare no-op `wg syncconf` (same file again, interface up)',
      spread(bare.noop),
      bare.noop.length,
      vs(bare.noop),
    ],
    ['*reference:* bare `wg show <if> peers`', spread(bare.showPeers), bare.showPeers.length, vs(bare.showPeers)],
    [
      '*reference:* bare `wg set <if> peer … allowed-ips …` of one peer (the floor of a delta)',
      spread(bare.setOne),
      bare.setOne.length,
      vs(bare.setOne),
    ],
    [
      `**apply(): create + ${peers} peers + address/MTU/up** (fresh interface)`,
      `**${spread(driverRuns.full)}**`,
      driverRuns.full.length,
      `**${ratio.toFixed(2)}**`,
    ],
    [
      'apply(): no-op re-apply (same state again)',
      spread(driverRuns.noop),
      driverRuns.noop.length,
      vs(driverRuns.noop),
    ],
    [
      'apply(): 1% of the peers replaced',
      spread(driverRuns.changed),
      driverRuns.changed.length,
      vs(driverRuns.changed),
    ],
    [
      '*before:* apply(): one device added, as the whole state (`wg syncconf` of every peer)',
      spread(driverRuns.addWhole),
      driverRuns.addWhole.length,
      vs(driverRuns.addWhole),
    ],
    [
      '**applyDelta(): one device added, as a delta** (`wg addconf` of its peer alone)',
      `**${spread(driverRuns.addDelta)}**`,
      driverRuns.addDelta.length,
      vs(driverRuns.addDelta),
    ],
  ];
  if (driverRuns.remove.length)
    rows.push([
      'apply(): interface removed (no longer desired)',
      spread(driverRuns.remove),
      driverRuns.remove.length,
      vs(driverRuns.remove),
    ]);

  const { counterHeader, counterRows, counterText, reads } = counterTable({
    settings,
    counters,
    parseMs,
    uapiParseMs,
    answerBytes,
    dumpBytes,
  });

  const settingsText = `BENCH_PEERS=${settings.peers} BENCH_REPS=${settings.reps} BENCH_NOOP_REPS=${settings.noopReps} BENCH_ADD_REPS=${settings.addReps} BENCH_COUNTER_SECONDS=${settings.counterSeconds} BENCH_COUNTER_INTERVAL_MS=${settings.counterIntervalMs} BENCH_PHASES=${settings.phases.join(',')}`;
  const busyText =
    idleBusy === undefined
      ? ''
      : `The machine was ${idleBusy < 15 ? 'quiet' : 'busy'} before the run (${idleBusy.toFixed(0)}% of one core in use by other work over 1 s)${machineBusy === undefined ? '' : `; during the run the whole machine averaged ${machineBusy.toFixed(0)}% of one core (of ${machine.cores * 100}%)`}.`;
  const markdown = `## ${TITLE}

The agent's WireGuard driver (\`apps/agent/src/host\`, built to \`dist/\`) in a network namespace of the bench's own, with the real wireguard-go (no kernel module here) and \`wg\`. One interface with ${peers} peers (each with a preshared key, a /32 each; config file ${(configBytes / 1024).toFixed(0)} KiB). Each variant gets ${settings.reps} fresh interfaces, taken in turns with the baseline so drift hits both alike. Times are wall-clock as the caller of apply() sees them.

- Command: \`${command}\` with \`BENCH_ONLY=agent-host\` (${settingsText})
- Date: ${new Date().toISOString()}
- Machine: ${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB RAM, ${machine.platform}
- Software: Node ${machine.node}, ${wgVersion.split(' - ')[0]}, ${wgGoVersion}; every command through \`ip netns exec\` (as the tests run it)
- ${busyText}

${markdownTable(header, rows)}

**Full apply: ${ms(full)} against ${ms(floor)} for the bare syncconf: ${ratio.toFixed(2)}x (target ≤ ${TARGET_RATIO}x: ${pass ? 'pass' : '**FAIL**'}).** The full apply includes what the baseline leaves out: starting wireguard-go (${ms(median(bare.create))} bare), rendering and hashing the config, writing the 0600 file, reading the link table, and the \`ip\` commands for address, MTU and up (run while syncconf runs). Against the same work done by hand with the bare tools one after another (${ms(median(bare.byHand))}), the driver's apply is ${(full / median(bare.byHand)).toFixed(2)}x.

**One device added: ${ms(addDelta)} as a delta against ${ms(median(driverRuns.addWhole))} as the whole state, in the same run (target ≤ ${TARGET_DELTA_MS} ms: ${deltaPass ? 'pass' : '**FAIL**'}).** The whole state is what every delivery carried before deltas: the driver renders and hashes ${peers} peers, writes the file and \`wg syncconf\` reads the whole device back and sends every peer. The delta (\`applyDelta\`, libs/contracts/desired-delta.ts) checks it fits the revision last applied, writes the one [Peer] block to a 0600 file, runs \`wg addconf\` on it, and appends the delta to the apply journal; nothing else of the interface is read or written. Its floor is one bare \`wg set\` of one peer through \`ip netns exec\` (${ms(median(bare.setOne))} in this run). The whole-state additions follow each delta, so they pay the syncconf a delta leaves due (the config on record is no longer the host's). Each timed addition (and each bare \`wg set\`) starts ${SETTLE_MS / 1000} s after the operation before it: wireguard-go goes on working after a whole-state syncconf of this size returns, and a delta taken at once waits for it behind the device's lock (seconds on a busy machine).

No-op re-apply: ${ms(median(driverRuns.noop))}. The driver skips \`wg syncconf\` when the rendered config is byte-identical to the last one loaded (SHA-256 in managed.json), the link has the same ifindex, and \`wg show <if> peers\` lists exactly the desired keys (${ms(median(bare.showPeers))} bare, against ${ms(median(bare.noop))} for a bare no-op syncconf); the rest is one \`ip -d -j address show\` and nothing else when nothing differs.

### Counter collection (${settings.counterIntervalMs / 1000} s interval, ${settings.counterSeconds} s)

${counterText}

${markdownTable(counterHeader, counterRows)}

How honest these numbers are:
- ${idleBusy !== undefined && (idleBusy >= 15 || (machineBusy ?? 0) >= 120) ? `The machine was shared with other work during the run (see above: other test suites were running), so single runs vary a lot (see the min–max spread) and absolute times are higher than on a quiet machine; the ratios compare runs taken in turns under the same conditions and are the figures to trust.` : 'The machine was quiet: the figures are what this code path costs here.'}
- Through \`ip netns exec\` every command pays a namespace switch and a mount namespace (a few ms); on a real host the agent runs the tools directly.
- wireguard-go does the heavy part of both the baseline and the apply (reading the UAPI stream, one X25519 computation per new peer), so what separates the two is the driver's fixed cost per apply: tens of ms. With fewer peers (or the kernel module, untested here) that fixed cost weighs more in the ratio.
- The counter figures are for an idle tunnel; under traffic wireguard-go is busier, but the dump's size (what the reads cost) depends only on the number of peers.
`;
  const text = `${textTable(
    header,
    rows.map((r) => r.map((c) => String(c).replace(/\*/g, ''))),
  )}\n\nfull apply / bare syncconf: ${ratio.toFixed(2)} (target <= ${TARGET_RATIO}: ${pass ? 'pass' : 'FAIL'})\none device added: delta ${ms(addDelta)}, whole state ${ms(median(driverRuns.addWhole))} (target <= ${TARGET_DELTA_MS} ms: ${deltaPass ? 'pass' : 'FAIL'})\n\n${textTable(counterHeader, counterRows)}\n${busyText}`;
  return { markdown, text, figures: { ratio, full, floor, noop: median(driverRuns.noop), addDelta, reads } };
}

/** The counter figures of both ways, side by side: the baseline (`wg`) and the UAPI socket. */
function counterTable({ settings, counters, parseMs, uapiParseMs, answerBytes, dumpBytes, interfaces = 1 }) {
  const modes = ['wg', ...(counters.before ? ['before'] : []), 'uapi'];
  const both = (fn) => modes.map((mode) => fn(counters[mode]));
  const parsed = (wg, uapi) => modes.map((mode) => (mode === 'wg' ? wg : uapi));
  const percentOf = (run, cpuMs) => (100 * cpuMs) / run.collected.elapsedMs;
  const percent = (run, cpuMs) => `${fixed(percentOf(run, cpuMs), 2)}%`;
  // Per read, against the interval: on a busy machine a read can take longer than the interval, so
  // fewer reads fit in the window and CPU over the window would flatter the cost.
  const agentPercent = (run) =>
    (100 * (run.collected.ownCpuMs + run.collected.childrenCpuMs)) /
    run.collected.reads.length /
    settings.counterIntervalMs;
  const perRead = (run, cpuMs) => `${(cpuMs / run.collected.reads.length).toFixed(1)} ms per read`;
  const peers = counters.uapi.collected.peers.toLocaleString('en-US');
  const counterHeader = [
    'what',
    '`wg show all dump` (before, baseline)',
    ...(counters.before ? ['UAPI socket, the spool before (`BENCH_SPOOL_BEFORE`)'] : []),
    'UAPI socket (now)',
  ];
  const counterRows = [
    ['reads', ...both((r) => `${r.collected.reads.length} in ${(r.collected.elapsedMs / 1000).toFixed(1)} s`)],
    ['one read, median (min–max)', ...both((r) => spread(r.collected.reads))],
    ['parse alone, median of 10 (bench process)', ...parsed(ms(parseMs), ms(uapiParseMs))],
    [
      'text parsed per read',
      ...parsed(
        `${mib(dumpBytes / 2 ** 20, 1)} (\`wg\` prints it from the UAPI answer)`,
        `${mib(answerBytes / 2 ** 20, 1)}`,
      ),
    ],
    ['spool cut per read, median (counter-spool.ts)', ...both((r) => spread(r.collected.cuts))],
    ['batches cut (peers in them)', ...both((r) => `${r.collected.batches} (${r.collected.batchPeers})`)],
    [
      'collector CPU: Node (read + parse + cut), % of the window',
      ...both(
        (r) =>
          `${Math.round(r.collected.ownCpuMs)} ms = ${percent(r, r.collected.ownCpuMs)}, ${perRead(r, r.collected.ownCpuMs)}`,
      ),
    ],
    [
      'of which the spool cut',
      ...both((r) => `${Math.round(r.collected.cutCpuMs)} ms, ${perRead(r, r.collected.cutCpuMs)}`),
    ],
    [
      'collector CPU: `wg` children (10 ms clock ticks), % of the window',
      ...both(
        (r) =>
          `${Math.round(r.collected.childrenCpuMs)} ms = ${percent(r, r.collected.childrenCpuMs)}, ${perRead(r, r.collected.childrenCpuMs)}`,
      ),
    ],
    [
      `**agent total (Node + \`wg\`) per read, as % of one core at one read every ${settings.counterIntervalMs / 1000} s** (target < ${TARGET_COUNTERS_PERCENT}%)`,
      ...both((r) => `**${fixed(agentPercent(r), 2)}%**`),
    ],
    [
      'wireguard-go answering the reads (its whole CPU in the window; the tunnel is idle)',
      ...both(
        (r) =>
          `${Math.round(r.daemonCpuMs)} ms, ${perRead(r, r.daemonCpuMs)} = ${fixed((100 * r.daemonCpuMs) / r.collected.reads.length / settings.counterIntervalMs, 2)}% at one read every ${settings.counterIntervalMs / 1000} s`,
      ),
    ],
    [
      'collector RSS after its warm-up round / at most after a read',
      ...both((r) => `${mib(r.collected.rssBefore / 2 ** 20, 1)} / ${mib(r.collected.rssMax / 2 ** 20, 1)}`),
    ],
    ['collector live heap after a full GC at the end', ...both((r) => mib(r.collected.liveHeap / 2 ** 20, 1))],
  ];
  const uapiPercent = agentPercent(counters.uapi);
  const counterText = `A Node process doing what the agent does with counters and nothing else, every ${settings.counterIntervalMs / 1000} s for ${settings.counterSeconds} s, on ${interfaces === 1 ? 'an interface' : `${interfaces} interfaces`} with ${peers} peers${interfaces === 1 ? '' : ` in all (at most ${PEERS_PER_INTERFACE.toLocaleString('en-US')} each: one wireguard-go device refuses its 65,537th peer, \`MaxPeers\` = 2^16)`}: \`CounterReader.read()\` of the managed interfaces, then \`CounterSpool.cut()\` of the reading (the spool's files included; a batch, if one is cut, is acknowledged at once), after one such round outside the figures (a running agent's spool already holds its peers). First the baseline, reading through \`wg show all dump\` (via \`ip netns exec\`, as before this change), then the UAPI socket, each in a collector process of its own, in the same run. \`wg show all dump\` reads every wireguard-go socket of the host, other interfaces than the agent's too (on this shared machine, other engineers' test interfaces); the UAPI reader asks only the agent's own.${counters.before ? ` Between them, the UAPI socket with the counter spool of an earlier build (\`BENCH_SPOOL_BEFORE\`: ${settings.spoolBefore}), the before of the spool in the same run.` : ''}${settings.movedPercent > 0 ? ` Traffic is made up in the collectors: each round ${settings.movedPercent}% of the peers (another slice each round) gain bytes in the reading before it is cut, so that many peers move per round and go into a batch.` : ''}

**Agent (Node + the tool it reads through): ${fixed(uapiPercent, 2)}% of one core through the UAPI socket, against ${fixed(agentPercent(counters.wg), 2)}% through \`wg\`${counters.before ? ` and ${fixed(agentPercent(counters.before), 2)}% through the socket with the spool before` : ''} in the same run (target < ${TARGET_COUNTERS_PERCENT}%: ${uapiPercent < TARGET_COUNTERS_PERCENT ? 'pass' : '**FAIL**'}).** wireguard-go's own work answering (it builds the whole answer under the device lock) is the same request either way and is reported apart.`;
  return {
    counterHeader,
    counterRows,
    counterText,
    uapiPercent,
    reads: counters.uapi.collected.reads,
  };
}

/** The section of a counters-only run (BENCH_PHASES=counters). */
function renderCountersOnly(facts) {
  const { settings, machine, command, idleBusy, machineBusy, wgVersion, wgGoVersion } = facts;
  const { counterHeader, counterRows, counterText, uapiPercent, reads } = counterTable(facts);
  const settingsText = `BENCH_PEERS=${settings.peers} BENCH_COUNTER_SECONDS=${settings.counterSeconds} BENCH_COUNTER_INTERVAL_MS=${settings.counterIntervalMs} BENCH_PHASES=counters`;
  const busyText =
    idleBusy === undefined
      ? ''
      : `The machine was ${idleBusy < 15 ? 'quiet' : 'busy'} before the run (${idleBusy.toFixed(0)}% of one core in use by other work over 1 s)${machineBusy === undefined ? '' : `; during the run the whole machine averaged ${machineBusy.toFixed(0)}% of one core (of ${machine.cores * 100}%)`}.`;
  const markdown = `## ${countersTitle(settings)}

- Command: \`${command}\` with \`BENCH_ONLY=agent-host\` (${settingsText}${settings.movedPercent > 0 ? ` BENCH_MOVED_PERCENT=${settings.movedPercent}` : ''}${settings.spoolBefore ? ' BENCH_SPOOL_BEFORE=…' : ''})
- Date: ${new Date().toISOString()}
- Machine: ${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB RAM, ${machine.platform}
- Software: Node ${machine.node}, ${wgVersion.split(' - ')[0]}, ${wgGoVersion}; the interface made by the agent's driver (apply()) in a namespace of the bench's own
- ${busyText}

${counterText}

${markdownTable(counterHeader, counterRows)}

How honest these numbers are:
- CPU is what the processes spent (/proc), not wall time: a busy machine stretches the reads' wall time but hardly the CPU they cost. \`wg\`'s figure comes in 10 ms clock ticks.
- ${settings.movedPercent > 0 ? `The tunnel is idle; the traffic is the collectors' own (${settings.movedPercent}% of the peers a round, added to the readings in the Node process, a loop over the reading that counts in its CPU). wireguard-go's answer is the same size either way.` : "The tunnel is idle, so no peer moves and no batch is cut after the first reading: the cut's cost here is the spool's walk over every peer; with traffic, the batch carries the peers that moved (only those) and the spool's journal gets those peers once per batch."}
- The kernel module is absent on this machine: its interfaces are still read through \`wg show all dump\` and are not measured here (docs/agent-host.md, "Counters").
`;
  const text = `${textTable(
    counterHeader,
    counterRows.map((r) => r.map((c) => String(c).replace(/\*/g, ''))),
  )}\n\nagent counters via UAPI: ${fixed(uapiPercent, 2)}% of one core (target < ${TARGET_COUNTERS_PERCENT}%: ${uapiPercent < TARGET_COUNTERS_PERCENT ? 'pass' : 'FAIL'})\n${busyText}`;
  return { markdown, text, figures: { uapiPercent, reads } };
}

if (process.argv[1] === SELF && process.argv[2] === '--collect') {
  collect(process.argv.slice(3)).then(
    () => process.exit(0),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
