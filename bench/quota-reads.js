// CPU of one agent report round with clients' quotas armed: the counter read for the spool and
// the quota correction (QuotaHost.correct(), through WireGuardHost.correctQuotas()), as
// agent.service.ts runs them, on the agent's own code from a built dist/. The host's tools are
// answered in-process: `wg show all dump` with a prepared dump of BENCH_PEERS idle peers on
// interfaces of at most 50,000 (parsed by the agent's parser, as for kernel-module interfaces),
// `nft -j list quotas` with the armed clients' quotas; `nft -f` does nothing. So the figure is
// the agent's Node CPU alone (the read's parse, the correction's work), not wg's or nft's.
//
// Usage: node bench/quota-reads.js [<dist directory>]   (default: this checkout's dist/)
// Settings (environment): BENCH_PEERS (100000), BENCH_ARMED (100 clients with a quota, one peer
// each), BENCH_ROUNDS (20, after 3 not counted). A dist/ of a commit before the shared reading
// has no WireGuardHost.readCounters(): its round reads through a CounterReader of its own, as its
// agent.module.ts did.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { envNumber } from './lib/settings.js';

const dist = resolve(process.argv[2] ?? 'dist');
const peers = envNumber('BENCH_PEERS', 100_000, 1);
const armedCount = envNumber('BENCH_ARMED', 100, 1);
const rounds = envNumber('BENCH_ROUNDS', 20, 1);
const WARM_UP = 3;
const PER_INTERFACE = 50_000;

const load = (path) => import(pathToFileURL(join(dist, 'apps/agent/src/host', path)).href);
const { WireGuardHost } = await load('wireguard-host.js');
const { CounterReader } = await load('counters.js');

const key = () => randomBytes(32).toString('base64');
const names = Array.from({ length: Math.ceil(peers / PER_INTERFACE) }, (_, i) => `wqb${i}`);
const lines = [];
const keys = [];
for (const [i, name] of names.entries()) {
  lines.push(`${name}\t${key()}\t${key()}\t${51820 + i}\toff`);
  const count = Math.min(PER_INTERFACE, peers - i * PER_INTERFACE);
  for (let p = 0; p < count; p++) {
    const publicKey = key();
    keys.push(`${name} ${publicKey}`);
    lines.push(
      `${name}\t${publicKey}\t(none)\t198.51.100.7:${1024 + (p % 60000)}\t10.64.0.0/32\t1700000000\t1000\t2000\toff`,
    );
  }
}
const dump = `${lines.join('\n')}\n`;

const stateDir = mkdtempSync(join(tmpdir(), 'warren-quota-reads-'));
const interfaces = Object.fromEntries(
  names.map((name) => [name, { driver: 'kernel', configSha256: null, peers: PER_INTERFACE, ifindex: null }]),
);
writeFileSync(join(stateDir, 'managed.json'), JSON.stringify({ natTable: false, interfaces }));
const clients = {};
const quotas = [];
for (let c = 0; c < armedCount; c++) {
  const id = randomUUID();
  const peer = keys[Math.floor((c * keys.length) / armedCount)];
  clients[id] = {
    remaining: 10_000_000_000,
    wireSince: 0,
    lastWire: { [peer]: 3000 },
    ratio: 0.94,
    history: { inner: 0, wire: 0 },
    lastUsed: 0,
    lastWireSince: 0,
    ips: [`10.65.${c >> 8}.${c & 255}`],
    peers: [peer],
  };
  quotas.push({ quota: { name: `c_${id.replaceAll('-', '')}`, bytes: 9_400_000_000, used: 0 } });
}
writeFileSync(join(stateDir, 'quotas.json'), JSON.stringify({ table: true, clients }));

const counts = { dump: 0, kernel: 0 };
const nftAnswer = JSON.stringify({ nftables: quotas });
const runner = {
  async run(program, args) {
    await new Promise((done) => setImmediate(done));
    const command = [program, ...args].join(' ');
    if (command === 'wg show all dump') {
      counts.dump += 1;
      return { stdout: dump, stderr: '' };
    }
    if (command.startsWith('nft -j list quotas')) {
      counts.kernel += 1;
      return { stdout: nftAnswer, stderr: '' };
    }
    if (program === 'nft') return { stdout: '', stderr: '' };
    throw new Error(`not answered here: ${command}`);
  },
};

const host = new WireGuardHost({ runner, stateDir, counters: { uapi: false } });
const shared = typeof host.readCounters === 'function';
const ownReader = new CounterReader(runner, () => host.managedInterfaces(), { uapi: false });
const readCounters = shared ? () => host.readCounters() : () => ownReader.read();

const cpu = [];
try {
  for (let round = 0; round < WARM_UP + rounds; round++) {
    const before = process.cpuUsage();
    const correcting = host.correctQuotas();
    const readings = await readCounters();
    const failure = await correcting;
    const used = process.cpuUsage(before);
    if (failure) throw new Error(`correction failed: ${failure}`);
    if (readings.length !== peers) throw new Error(`read ${readings.length} peers, not ${peers}`);
    if (round === WARM_UP - 1) Object.assign(counts, { dump: 0, kernel: 0 });
    if (round >= WARM_UP) cpu.push((used.user + used.system) / 1000);
  }
} finally {
  rmSync(stateDir, { recursive: true, force: true });
}

const sorted = [...cpu].sort((a, b) => a - b);
const median = sorted[Math.floor(sorted.length / 2)];
const mean = cpu.reduce((a, b) => a + b, 0) / cpu.length;
console.log(
  [
    `${dist} (${shared ? 'shared reading' : 'own reads'}): ${peers} peers, ${armedCount} clients armed, ${rounds} rounds`,
    `  counter reads per round: ${counts.dump / rounds}; kernel reads per round: ${counts.kernel / rounds}`,
    `  CPU per round: median ${median.toFixed(1)} ms, mean ${mean.toFixed(1)} ms (min ${sorted[0].toFixed(1)}, max ${sorted.at(-1).toFixed(1)})`,
    `  = ${((median / 2000) * 100).toFixed(2)}% of one core at one round every 2 s (median)`,
  ].join('\n'),
);
