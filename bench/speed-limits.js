// Speed limits on one tunnel: the agent's shaping code (ShapingHost.apply, what every apply runs
// after the tunnels are up: `tc qdisc show`, the plan, `ip -batch` for the ifb, one `tc -batch`,
// shaping.json) putting N limited clients (one address each) on a fresh tunnel, against a bare
// `ip link add` of the ifb plus `tc -batch` of the very lines the agent wrote, in the same run and
// in turns; then a change of 1% of the rates (in place), a no-op re-apply, and removing them all.
// The tunnel is a plain tun device in a namespace of the bench's own: tc does not care what feeds
// it, and the tunnel's own apply (wg syncconf) is the agent-host bench's.
//
// Settings (environment): BENCH_PEERS (10000), BENCH_REPS (5), BENCH_WRITE=0 (print only). Needs
// root, iproute2 (ip, tc) and ifb devices.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { cleanupScope } from './lib/cleanup.js';
import { describeMachine } from './lib/machine.js';
import { createNamespace, randomHex, requireTools } from './lib/netns.js';
import { markdownTable, ms as formatMs, textTable } from './lib/report.js';
import { publishReport } from './lib/bench-panel.js';
import { envNumber } from './lib/settings.js';

export const ID = 'speed-limits';
export const TITLE = 'Speed limits: 10,000 limited peers on one tunnel (tc HTB + ifb)';

/** The smoke size (`npm run bench:smoke`, CI): every phase once, in seconds; nothing recorded. */
export const SMOKE = { BENCH_PEERS: '50', BENCH_REPS: '1' };

const DIST = new URL('../dist/', import.meta.url);
const exec = promisify(execFile);
const load = (path) => import(new URL(path, DIST).href);

const median = (values) => {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};
const ms = (value) => formatMs(value, { threshold: 100, grouping: false });
const spread = (values) => `${ms(median(values))} (${ms(Math.min(...values))}–${ms(Math.max(...values))})`;

export function settingsFromEnv() {
  return { peers: envNumber('BENCH_PEERS', 10000, 1), reps: envNumber('BENCH_REPS', 5, 1) };
}

/** The i-th address of 10.80.0.0/16 after the gateway, as the panel hands them out. */
const address = (i) => `10.80.${Math.floor((i + 2) / 256)}.${(i + 2) % 256}`;

export async function run({ writeDoc = true, docFile, command } = {}) {
  const settings = settingsFromEnv();
  if (settings.peers > 65000) throw new Error('BENCH_PEERS: at most 65,000 (one /16)');
  if (process.getuid?.() !== 0) throw new Error('the speed-limits bench needs root (network namespaces)');
  await requireTools(['ip', 'tc'], 'iproute2');
  const machine = describeMachine();
  const { CommandRunner } = await load('apps/agent/src/host/index.js');
  const { ShapingHost } = await load('apps/agent/src/host/shaping/shaping-host.js');
  const { ifbName } = await load('apps/agent/src/host/shaping/shaping-plan.js');

  const scope = cleanupScope('the speed-limits run');
  try {
    const workDir = mkdtempSync(join(tmpdir(), 'warren-bench-shaping-'));
    scope.add('work directory', () => rmSync(workDir, { recursive: true, force: true }));
    const node = await createNamespace('warren-bench-sl');
    scope.add(`namespace ${node.name}`, () => node.destroy());
    const tunnel = `wl${randomHex(8)}`;
    const ifb = ifbName(tunnel);
    await node.exec('ip', 'tuntap', 'add', 'dev', tunnel, 'mode', 'tun');
    await node.exec('ip', 'link', 'set', tunnel, 'up');
    const runner = new CommandRunner({ namespace: node.name, timeoutMs: 300_000 });
    const tools = { tc: true, ifb: true };

    const clients = Array.from({ length: settings.peers }, (_, i) => ({
      clientId: randomUUID(),
      rateBitsPerSec: 1_000_000 + (i % 100) * 100_000,
      ips: [address(i)],
    }));
    const iface = (limits) => ({ name: tunnel, speedLimits: limits });
    const outcome = () => ({ name: tunnel, state: 'up', driver: 'wireguard-go', peers: settings.peers });
    const desired = new Set([tunnel]);
    /** Times one ShapingHost.apply; fails the bench when the apply reported an error. */
    const timed = async (host, limits) => {
      const o = outcome();
      const t = performance.now();
      await host.apply([{ iface: iface(limits), outcome: o }], desired, tools);
      const elapsed = performance.now() - t;
      if (o.error) throw new Error(`apply reported: ${o.error}`);
      return elapsed;
    };
    /** Nothing of the shaping left on the tunnel, outside the clock. */
    const reset = async () => {
      await node.exec('tc', 'qdisc', 'del', 'dev', tunnel, 'root').catch(() => undefined);
      await node.exec('tc', 'qdisc', 'del', 'dev', tunnel, 'ingress').catch(() => undefined);
      await node.exec('ip', 'link', 'del', ifb).catch(() => undefined);
    };

    const fresh = [];
    const changed = [];
    const noop = [];
    const removed = [];
    const bare = [];
    let batchLines = 0;
    let batchBytes = 0;
    const bareFile = join(workDir, 'bare.tc');
    for (let rep = 0; rep < settings.reps; rep++) {
      // Turns: the agent's fresh apply (then its change, no-op and removal), then the bare load.
      await reset();
      const stateDir = join(workDir, `agent-${rep}`);
      const host = new ShapingHost(runner, stateDir);
      fresh.push(await timed(host, clients));
      // The agent's batch file for the fresh apply: the bare round loads exactly these lines.
      const lines = readFileSync(join(stateDir, 'shaping.tc'), 'utf8');
      batchLines = lines.split('\n').filter(Boolean).length;
      batchBytes = Buffer.byteLength(lines);
      await exec('cp', [join(stateDir, 'shaping.tc'), bareFile]);
      // One class per client, plus one pass-through class per group of 256.
      const classes = (await node.exec('tc', 'class', 'show', 'dev', tunnel)).split('\n').filter(Boolean).length;
      const expected = settings.peers + Math.ceil(settings.peers / 256);
      if (classes !== expected) throw new Error(`${classes} classes on the tunnel, not ${expected}`);
      const percent = Math.max(1, Math.round(settings.peers / 100));
      const moved = clients.map((c, i) =>
        i % Math.round(settings.peers / percent) === 0 ? { ...c, rateBitsPerSec: c.rateBitsPerSec + 50_000 } : c,
      );
      changed.push(await timed(host, moved));
      noop.push(await timed(host, moved));
      removed.push(await timed(host, []));

      await reset();
      const t = performance.now();
      await node.exec('ip', 'link', 'add', ifb, 'txqueuelen', '1000', 'type', 'ifb');
      await node.exec('ip', 'link', 'set', ifb, 'up');
      await node.exec('tc', '-batch', bareFile);
      bare.push(performance.now() - t);
    }

    const report = render({
      load: `load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(', ')} (other work on the machine; ratios hold better than absolute times)`,
      settings,
      machine,
      command,
      fresh,
      changed,
      noop,
      removed,
      bare,
      batchLines,
      batchBytes,
      tcVersion: (await exec('tc', ['-V'])).stdout.trim(),
    });
    publishReport(report, { writeDoc, docFile, id: ID, title: TITLE });
    return report.figures;
  } finally {
    await scope.run();
  }
}

function render({
  load,
  settings,
  machine,
  command,
  fresh,
  changed,
  noop,
  removed,
  bare,
  batchLines,
  batchBytes,
  tcVersion,
}) {
  const floor = median(bare);
  const vs = (values) => (median(values) / floor).toFixed(2);
  const n = settings.peers.toLocaleString('en');
  const header = ['operation', 'median (min–max)', 'runs', 'vs bare'];
  const rows = [
    [
      `*baseline:* bare \`ip link add\` + \`ip link set up\` of the ifb, then \`tc -batch\` of the agent's ${batchLines.toLocaleString('en')} lines (${(batchBytes / 1024).toFixed(0)} KiB)`,
      spread(bare),
      bare.length,
      '1.00',
    ],
    [
      `**apply(): ${n} limited clients on a fresh tunnel** (qdiscs read, planned, ifb made, one \`tc -batch\`, state written)`,
      `**${spread(fresh)}**`,
      fresh.length,
      `**${vs(fresh)}**`,
    ],
    [`apply(): 1% of the rates changed (\`class change\` in place)`, spread(changed), changed.length, vs(changed)],
    ['apply(): no-op re-apply (qdiscs read; nothing to run)', spread(noop), noop.length, vs(noop)],
    ['apply(): every limit removed (qdiscs deleted, ifb deleted)', spread(removed), removed.length, vs(removed)],
  ];
  const settingsText = `BENCH_PEERS=${settings.peers} BENCH_REPS=${settings.reps}`;
  const markdown = `## ${TITLE}

\`BENCH_ONLY=${ID} ${command ?? 'npm run bench'}\` (${settingsText}); ${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.platform}, Node ${machine.node}, ${tcVersion}. Every command through \`ip netns exec\` in a namespace of the bench's own; the tunnel a tun device; one address per client, in a /16; per direction (tunnel, ifb) one HTB class per client in a group qdisc of 256, and two hashed u32 filters per address (the root's to the group, the group's to the client). The agent's apply and the bare load taken in turns.

${markdownTable(header, rows)}

The fresh apply is one \`tc -batch\` of about six lines per client; the agent's own part (reading
\`tc qdisc show\`, planning, the ifb, \`shaping.json\`) is small beside it, so on a busy machine the
two are within each other's noise. Clients sit 256 to an HTB qdisc under a pass-through class: in
one flat HTB every \`class add\` walks all classes of the qdisc (the kernel's \`tc_bind_tclass\`),
which measured 0.3 s for 1,000 classes, 0.9 s for 2,000 and 4.1 s for 4,000 (one device; quadratic),
and a flat 10,000-client apply did not finish in 120 s under this load. A rate change is
\`class change\` on two classes per client (the tunnel untouched); a no-op re-apply compares a
digest of the limits and runs only \`tc qdisc show\`.
Machine load during the run: ${load}.
`;
  return {
    markdown,
    text: textTable(header, rows),
    figures: { freshMs: median(fresh), changedMs: median(changed), noopMs: median(noop), bareMs: floor },
  };
}
