// Hops and policy routing on one node, in network namespaces of the bench's own, with the real
// tools: apply() of 1,000 rules and 20 outbounds (10 WireGuard hops on wireguard-go, 10 SOCKS5 hops
// on redsocks) against a bare `nft -f` of the same ruleset file plus a bare `ip -batch` of the same
// `ip rule`/route lines in the same run; and the probe's overhead: a probe job through a SOCKS5 proxy
// (microsocks) as the agent runs it (a child process through the runner) against a bare SOCKS5 fetch
// (`curl --socks5`) through the same proxy, from the same namespace, of the same URL.
//
// Settings (environment): BENCH_RULES (1000), BENCH_OUTBOUNDS (20, half WireGuard), BENCH_REPS (10
// applies per variant), BENCH_PROBES (20), BENCH_WRITE=0 (print only). Needs root, wireguard-go,
// wireguard-tools, iproute2, nftables, redsocks, microsocks, curl.
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { cleanupScope } from './lib/cleanup.js';
import { describeMachine } from './lib/machine.js';
import { createNamespace, requireTools } from './lib/netns.js';
import { markdownTable, ms as formatMs, textTable } from './lib/report.js';
import { publishReport } from './lib/bench-panel.js';
import { envNumber } from './lib/settings.js';

export const ID = 'routing-apply';
export const TITLE = 'Hops and routing: 1,000 rules, 20 outbounds; probe overhead';

/** The smoke size (`npm run bench:smoke`, CI): every phase once, in seconds; nothing recorded. */
export const SMOKE = { BENCH_RULES: '5', BENCH_OUTBOUNDS: '2', BENCH_REPS: '1', BENCH_PROBES: '1' };

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
  return {
    rules: envNumber('BENCH_RULES', 1000, 1),
    outbounds: envNumber('BENCH_OUTBOUNDS', 20, 2),
    reps: envNumber('BENCH_REPS', 10, 1),
    probes: envNumber('BENCH_PROBES', 20, 1),
  };
}

export async function run({ writeDoc = true, docFile, command } = {}) {
  const settings = settingsFromEnv();
  if (process.getuid?.() !== 0) throw new Error('the routing-apply bench needs root (network namespaces)');
  await requireTools(
    ['ip', 'wg', 'wireguard-go', 'nft', 'redsocks', 'microsocks', 'curl'],
    'wireguard-tools wireguard-go iproute2 nftables redsocks microsocks curl',
  );
  const machine = describeMachine();
  const { CommandRunner, WireGuardHost, probeHost } = await load('apps/agent/src/host/index.js');
  const { probeThroughRunner } = await load('apps/agent/src/work/probe/probe-runner.js');
  const { generateKeyPair } = await load('libs/wireguard/keys.js');
  const { DEFAULT_ROUTING } = await load('libs/contracts/routing.js');

  const tag = randomBytes(3).toString('hex');
  const scope = cleanupScope('the routing-apply run');
  try {
    const workDir = mkdtempSync(join(tmpdir(), 'warren-bench-routing-'));
    scope.add('work directory', () => rmSync(workDir, { recursive: true, force: true }));
    const node = await createNamespace('warren-bench-rn');
    scope.add(`namespace ${node.name}`, () => node.destroy());
    const upstream = await createNamespace('warren-bench-ru');
    scope.add(`namespace ${upstream.name}`, () => upstream.destroy());
    const veth = { mine: `wr${tag}a`, theirs: `wr${tag}b` };
    await node.exec(
      'ip',
      'link',
      'add',
      veth.mine,
      'type',
      'veth',
      'peer',
      'name',
      veth.theirs,
      'netns',
      upstream.name,
    );
    await node.exec('ip', 'address', 'add', '198.51.100.1/24', 'dev', veth.mine);
    await upstream.exec('ip', 'address', 'add', '198.51.100.2/24', 'dev', veth.theirs);
    await node.exec('ip', 'link', 'set', veth.mine, 'up');
    await upstream.exec('ip', 'link', 'set', veth.theirs, 'up');

    const runner = new CommandRunner({ namespace: node.name });
    const probe = await probeHost(runner);
    const stateDir = join(workDir, 'agent');
    const host = new WireGuardHost({ runner, probe, stateDir });

    // One tunnel (its traffic is what the rules route), 20 hops, 1,000 rules.
    const tunnel = {
      name: `wr${tag}t`,
      mode: 'standard',
      privateKey: generateKeyPair().privateKey,
      listenPort: 51820,
      address: '10.80.0.1/16',
      subnet: '10.80.0.0/16',
      mtu: 1420,
      natInterface: veth.mine,
      amnezia: null,
      peers: [],
    };
    const outbounds = [];
    const wireguardCount = Math.floor(settings.outbounds / 2);
    for (let i = 0; i < settings.outbounds; i++) {
      const slot = i + 1;
      outbounds.push(
        i < wireguardCount
          ? {
              id: randomUUID(),
              tag: `hop-${slot}`,
              slot,
              config: {
                kind: 'wireguard',
                interfaceName: `wr${tag}h${slot}`,
                privateKey: generateKeyPair().privateKey,
                address: `10.90.${slot}.2/32`,
                peerPublicKey: generateKeyPair().publicKey,
                presharedKey: null,
                endpointHost: '198.51.100.2',
                endpointPort: 51000 + slot,
                allowedIps: ['0.0.0.0/0'],
                mtu: 1380,
                persistentKeepalive: 0,
              },
            }
          : {
              id: randomUUID(),
              tag: `hop-${slot}`,
              slot,
              config: { kind: 'socks', host: '198.51.100.2', port: 1080, username: null, password: null },
            },
      );
    }
    const targets = [...outbounds.map((o) => o.tag), 'direct', 'blocked'];
    const rules = Array.from({ length: settings.rules }, (_, i) => ({
      id: randomUUID(),
      outbound: targets[i % targets.length],
      sourceIps: [`10.80.${(i >> 8) & 255}.${i & 255}/32`],
      sourcePorts: [],
      network: i % 3 === 0 ? 'tcp' : null,
      destIps: [`100.${64 + (i % 64)}.${i & 255}.0/24`, `203.0.${i & 255}.0/28`],
      domains: [],
      ports: i % 2 === 0 ? ['443', '8000-8100'] : [],
      inInterfaces: [],
      matchesNothing: false,
    }));
    const nodeId = randomUUID();
    let revision = 0;
    const state = (ruleList) => ({
      nodeId,
      revision: ++revision,
      interfaces: [tunnel],
      outbounds,
      routing: { ...DEFAULT_ROUTING, failClosed: true, rules: ruleList },
    });
    const timedApply = async (desired) => {
      const t = performance.now();
      const result = await host.apply(desired);
      const took = performance.now() - t;
      if (!result.ok || result.routing?.state !== 'up' || result.outbounds?.some((o) => o.state !== 'up')) {
        throw new Error(
          `apply failed: ${JSON.stringify({ routing: result.routing, outbounds: result.outbounds?.filter((o) => o.state !== 'up'), interfaces: result.interfaces })}`,
        );
      }
      return took;
    };

    process.stderr.write(
      `bench: ${settings.rules} rules, ${settings.outbounds} outbounds, ${settings.reps} applies per variant, namespace ${node.name}\n`,
    );
    const first = await timedApply(state(rules));
    const changed = [];
    const noop = [];
    const bareNft = [];
    const bareIp = [];
    const bareBoth = [];
    const routingFile = join(stateDir, 'routing.nft');
    // The same `ip rule` and route lines the agent keeps, from scratch (rules and routes deleted first, off the clock).
    const ipLines = [];
    const ipFlush = [];
    for (const o of outbounds.filter((o) => o.config.kind === 'wireguard')) {
      const mark = 0x5700 + o.slot;
      ipLines.push(
        `rule add pref ${22000 + o.slot} fwmark 0x${mark.toString(16)} lookup ${mark}`,
        `rule add pref ${22300 + o.slot} from ${o.config.address.split('/')[0]} lookup ${mark}`,
      );
      ipLines.push(
        `route replace default dev ${o.config.interfaceName} table ${mark}`,
        `route replace unreachable default table ${mark} metric 4000000000`,
      );
      ipFlush.push(`rule del pref ${22000 + o.slot}`, `rule del pref ${22300 + o.slot}`, `route flush table ${mark}`);
    }
    const ipFile = join(workDir, 'bare.batch');
    const ipFlushFile = join(workDir, 'flush.batch');
    writeFileSync(ipFile, `${ipLines.join('\n')}\n`);
    writeFileSync(ipFlushFile, `${ipFlush.join('\n')}\n`);
    const bareRound = async () => {
      await node.exec('ip', '-force', '-batch', ipFlushFile).catch(() => undefined);
      let t = performance.now();
      await node.exec('nft', '-f', routingFile);
      const n = performance.now() - t;
      t = performance.now();
      await node.exec('ip', '-batch', ipFile);
      const i = performance.now() - t;
      bareNft.push(n);
      bareIp.push(i);
      bareBoth.push(n + i);
    };

    for (let rep = 0; rep < settings.reps; rep++) {
      // Turns: agent change, agent no-op, bare; so load on the machine hits all alike.
      const reordered = [...rules];
      const a = rep % rules.length;
      const b = (rep * 7 + 3) % rules.length;
      [reordered[a], reordered[b]] = [reordered[b], reordered[a]];
      // Routes and rules of the agent's are removed first, as the bare round does for itself.
      await node.exec('ip', '-force', '-batch', ipFlushFile).catch(() => undefined);
      changed.push(await timedApply(state(reordered)));
      noop.push(await timedApply(state(reordered)));
      await bareRound();
      await host.apply(state(reordered)); // back to the agent's own state, off the clock
    }
    const rulesetBytes = Buffer.byteLength(readFileSync(routingFile, 'utf8'));

    // Probe overhead: microsocks and a tiny HTTP server on the upstream side.
    const spawnIn = (ns, args) => {
      const child = execFile('ip', ['netns', 'exec', ns.name, ...args]);
      scope.add(`${args[0]} in ${ns.name}`, () => child.kill('SIGKILL'));
      return child;
    };
    spawnIn(upstream, ['microsocks', '-i', '198.51.100.2', '-p', '1080']);
    spawnIn(upstream, [
      process.execPath,
      '-e',
      `require('node:http').createServer((q,s)=>s.end(q.socket.remoteAddress)).listen(8080,'198.51.100.2')`,
    ]);
    const url = 'http://198.51.100.2:8080/';
    const job = {
      outboundId: randomUUID(),
      mode: 'http',
      config: { kind: 'socks', host: '198.51.100.2', port: 1080, username: null, password: null },
      url,
      timeoutMs: 5000,
      allowPrivateTargets: false,
    };
    const curl = () =>
      node.exec(
        'curl',
        '-sS',
        '-m',
        '5',
        '-o',
        '/dev/null',
        '-w',
        '%{time_total}',
        '--socks5',
        '198.51.100.2:1080',
        url,
      );
    for (let tries = 0; ; tries++) {
      const ok = await curl().then(
        () => true,
        () => false,
      );
      if (ok) break;
      if (tries > 50) throw new Error('microsocks or the test server did not come up');
      await sleep(100);
    }
    const probeWall = [];
    const probeLatency = [];
    const curlWall = [];
    const curlTotal = [];
    const probeDir = join(workDir, 'probes');
    for (let i = 0; i < settings.probes; i++) {
      let t = performance.now();
      const result = await probeThroughRunner(runner, probeDir, job);
      probeWall.push(performance.now() - t);
      if (!result.ok) throw new Error(`probe failed: ${JSON.stringify(result)}`);
      probeLatency.push(result.latencyMs);
      t = performance.now();
      const total = Number(await curl());
      curlWall.push(performance.now() - t);
      curlTotal.push(total * 1000);
    }

    const report = render({
      load: `load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(', ')} (other work on the machine; ratios hold better than absolute times)`,
      settings,
      machine,
      command,
      first,
      changed,
      noop,
      bareNft,
      bareIp,
      bareBoth,
      rulesetBytes,
      probeWall,
      probeLatency,
      curlWall,
      curlTotal,
      nftVersion: (await exec('nft', ['--version'])).stdout.trim(),
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
  first,
  changed,
  noop,
  bareNft,
  bareIp,
  bareBoth,
  rulesetBytes,
  probeWall,
  probeLatency,
  curlWall,
  curlTotal,
  nftVersion,
}) {
  const floor = median(bareBoth);
  const vs = (values) => (median(values) / floor).toFixed(2);
  const header = ['operation', 'median (min–max)', 'runs', 'vs bare nft -f + ip -batch'];
  const rows = [
    [
      `*baseline:* bare \`nft -f\` of the agent's ruleset file (${(rulesetBytes / 1024).toFixed(0)} KiB) + bare \`ip -batch\` of its ${(settings.outbounds / 2) * 4} rule/route lines`,
      spread(bareBoth),
      bareBoth.length,
      '1.00',
    ],
    ['*reference:* the bare `nft -f` alone', spread(bareNft), bareNft.length, vs(bareNft)],
    ['*reference:* the bare `ip -batch` alone', spread(bareIp), bareIp.length, vs(bareIp)],
    [
      `**apply(): ${settings.rules} rules reordered** (table read, rendered, loaded; ip rules/routes restored)`,
      `**${spread(changed)}**`,
      changed.length,
      `**${vs(changed)}**`,
    ],
    [
      'apply(): no-op re-apply (same state: hops checked, table read but not reloaded)',
      spread(noop),
      noop.length,
      vs(noop),
    ],
    [
      `apply(): first (creates the tunnel, ${settings.outbounds / 2} wireguard-go hops, ${settings.outbounds / 2} redsocks)`,
      ms(first),
      1,
      vs([first]),
    ],
  ];
  const probeHeader = ['what', 'median (min–max)', 'runs'];
  const probeRows = [
    [
      '*baseline:* `curl --socks5` in the namespace, wall time (process start included)',
      spread(curlWall),
      curlWall.length,
    ],
    ['*baseline:* the same curl, its own `time_total`', spread(curlTotal), curlTotal.length],
    [
      '**probe job as the agent runs it** (child `node` via `ip netns exec`, wall time)',
      `**${spread(probeWall)}**`,
      probeWall.length,
    ],
    [
      "the probe's own `latencyMs` (DNS skipped for literals, connect + SOCKS5 + GET)",
      spread(probeLatency),
      probeLatency.length,
    ],
  ];
  const settingsText = `BENCH_RULES=${settings.rules} BENCH_OUTBOUNDS=${settings.outbounds} BENCH_REPS=${settings.reps} BENCH_PROBES=${settings.probes}`;
  const markdown = `## ${TITLE}

\`BENCH_ONLY=${ID} ${command ?? 'npm run bench'}\` (${settingsText}); ${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.platform}, Node ${machine.node}, ${nftVersion}. Every command through \`ip netns exec\` in a namespace of the bench's own; fail-closed on; ${settings.outbounds / 2} WireGuard hops (wireguard-go) and ${settings.outbounds / 2} SOCKS5 hops (redsocks); rules with a source /32, two destination networks, ports on every other one. Applies and bare loads taken in turns.

${markdownTable(header, rows)}

**Probe overhead** (SOCKS5 hop: microsocks in a second namespace; the same URL; probe and curl taken in turns):

${markdownTable(probeHeader, probeRows)}

The agent's apply over the bare load is reading the live table first (counters and domain sets are
carried into the new one: ~0.25 s for 2,000 sets here), rendering (~25 ms), and reading \`ip rule\`/routes
to change only what differs. A probe's wall time over curl's is mostly starting Node for the child
process that runs it in the node's namespace (~150–250 ms); its own \`latencyMs\` is above curl's
\`time_total\` because that fresh process runs the SOCKS5 client and the HTTP parser cold.
Machine load during the run: ${load}.
`;
  const text = `${textTable(header, rows)}\n\n${textTable(probeHeader, probeRows)}`;
  return {
    markdown,
    text,
    figures: {
      changedMs: median(changed),
      noopMs: median(noop),
      bareMs: floor,
      probeWallMs: median(probeWall),
      probeLatencyMs: median(probeLatency),
      curlWallMs: median(curlWall),
      curlTotalMs: median(curlTotal),
    },
  };
}
