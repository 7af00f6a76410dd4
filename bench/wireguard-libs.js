// The pure WireGuard helpers the controller and the agent call on every change, timed in this
// process: allocating a free address in a /16 already holding 60,000 devices (from strings, as
// rows arrive, and from numbers), and rendering a server config of 10,000 peers. These figures used
// to be asserted in the unit tests (address-pool.spec.ts: under 100 ms; profile.spec.ts: under
// 50 ms), where they only measured how fast the machine was; the tests now check the results.
//
// Settings (environment): BENCH_USED (60000 addresses taken in the /16), BENCH_PEERS (10000),
// BENCH_REPS (20 timed runs each, after one warm-up), BENCH_WRITE=0 (print only). Needs the build
// (dist/libs).
import { performance } from 'node:perf_hooks';
import { codeVersion } from './lib/code-version.js';
import { describeMachine } from './lib/machine.js';
import { markdownTable, ms as formatMs, textTable, writeSection } from './lib/report.js';
import { envNumber } from './lib/settings.js';

export const ID = 'wireguard-libs';
export const TITLE = 'WireGuard helpers: address allocation in a full /16, a 10,000-peer server config';

const DIST = new URL('../dist/', import.meta.url);
const load = (path) => import(new URL(path, DIST).href);
const ms = (value) => formatMs(value, { small: 2, large: 1, grouping: false });

/** The CI smoke size (`npm run bench:smoke`): every phase once, small. */
export const SMOKE = { BENCH_USED: '1000', BENCH_PEERS: '200', BENCH_REPS: '2' };

export function settingsFromEnv() {
  return {
    used: envNumber('BENCH_USED', 60_000, 1),
    peers: envNumber('BENCH_PEERS', 10_000, 1),
    reps: envNumber('BENCH_REPS', 20, 1),
  };
}

/** Runs `work` once to warm up, then `reps` times; the times in ms, and what the last run returned. */
function timed(reps, work) {
  let result = work();
  const times = [];
  for (let i = 0; i < reps; i++) {
    const started = performance.now();
    result = work();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { result, median: times[Math.floor(times.length / 2)], min: times[0], max: times[times.length - 1] };
}

export async function run({ writeDoc, docFile, command }) {
  const settings = settingsFromEnv();
  const { allocate, parseInterfaceSubnet } = await load('libs/wireguard/address-pool.js');
  const { intToIp, ipToInt } = await load('libs/wireguard/ipv4.js');
  const { renderServerConfig } = await load('libs/wireguard/server-config.js');
  const { generateKeyPair, generatePresharedKey } = await load('libs/wireguard/keys.js');

  const subnet = parseInterfaceSubnet('10.20.0.0/16');
  if (settings.used > 65_000) throw new Error('BENCH_USED: a /16 has room for 65,533 devices; use at most 65000');
  const used = new Set();
  for (let i = 0; used.size < settings.used; i++) used.add(subnet.network + 2 + ((i * 7919) % 65_530));
  const asStrings = [...used].map(intToIp);
  const cursor = intToIp(subnet.network + 30_000);
  const fromStrings = timed(settings.reps, () => allocate(subnet, asStrings, { cursor }));
  const fromNumbers = timed(settings.reps, () => allocate(subnet, used, { cursor }));
  if (fromStrings.result === null || used.has(ipToInt(fromStrings.result)) || fromStrings.result !== fromNumbers.result)
    throw new Error(`allocation went wrong: ${fromStrings.result} vs ${fromNumbers.result}`);

  const psk = generatePresharedKey();
  const peers = Array.from({ length: settings.peers }, (_, i) => ({
    publicKey: generateKeyPair().publicKey,
    presharedKey: psk,
    ip: intToIp(0x0a000002 + i),
  }));
  const privateKey = generateKeyPair().privateKey;
  const rendered = timed(settings.reps, () => renderServerConfig({ privateKey, listenPort: 51820, peers }));
  if (rendered.result.split('[Peer]').length !== settings.peers + 1) throw new Error('the config lacks peers');

  const header = ['work', 'median', 'min–max'];
  const rows = [
    [`allocate in a /16 holding ${settings.used.toLocaleString('en-US')} (strings)`, fromStrings],
    [`allocate in a /16 holding ${settings.used.toLocaleString('en-US')} (numbers)`, fromNumbers],
    [`render a server config of ${settings.peers.toLocaleString('en-US')} peers`, rendered],
  ].map(([work, t]) => [work, ms(t.median), `${ms(t.min)}–${ms(t.max)}`]);
  console.log(textTable(header, rows));
  if (!writeDoc) return;
  const machine = describeMachine();
  writeSection(
    docFile,
    ID,
    `## ${TITLE}

One warm-up, then ${settings.reps} timed runs of each, in one Node process (no I/O: these are CPU
only). The unit tests check what these functions return; how fast they are is recorded here.

- Command: \`${command}\` (BENCH_ONLY=${ID} BENCH_USED=${settings.used} BENCH_PEERS=${settings.peers} BENCH_REPS=${settings.reps})
- Date: ${new Date().toISOString()}
- Code: ${codeVersion()}
- Machine: ${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB RAM, ${machine.platform}; Node ${machine.node}

${markdownTable(header, rows)}
`,
  );
}
