import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DesiredState } from '../../libs/contracts/desired-state.js';
import { CommandRunner, type CommandOutput, type RunOptions } from '../../apps/agent/src/host/command-runner.js';
import { KERNEL_FIRST_WAIT_MS, WireGuardHost } from '../../apps/agent/src/host/wireguard-host.js';
import { desiredInterface, desiredPeer, desiredState } from '../support/desired-state.js';
import { requireTools, TestNamespace } from '../support/netns.js';
import { randomSuffix } from '../support/random-suffix.js';

/**
 * How often a report round with quotas armed reads WireGuard's counters: once, for the counter
 * spool and the quota correction both, and after the correction's kernel reading (the safety rule
 * of quota-host.ts). The agent's WireGuardHost in a namespace with wireguard-go, its counters read
 * through `wg show all dump` (the kernel module's way) so that the runner sees each reading.
 */

const DUMP = 'wg show all dump';
const isKernelRead = (command: string) => command.startsWith('nft -j list quotas');
const KERNEL_DONE = '(the kernel reading came back)';

/**
 * The runner, keeping the commands it started in order, and when a kernel reading came back
 * (KERNEL_DONE); `kernelDelayMs` makes the kernel's quotas slow to come.
 */
class CountingRunner extends CommandRunner {
  readonly ran: string[] = [];
  kernelDelayMs = 0;
  override async run(program: string, args: readonly string[], options?: RunOptions): Promise<CommandOutput> {
    const command = [program, ...args].join(' ');
    this.ran.push(command);
    if (!isKernelRead(command)) return super.run(program, args, options);
    if (this.kernelDelayMs > 0) await sleep(this.kernelDelayMs);
    const output = await super.run(program, args, options);
    this.ran.push(KERNEL_DONE);
    return output;
  }
}

let ns: TestNamespace;
let workDir: string;
const suffix = randomSuffix(7);
/** Each test's own interface: one made by another test's host is foreign to this one's. */
const names = [`wq${suffix}a`, `wq${suffix}b`, `wq${suffix}c`];

beforeAll(async () => {
  if (process.getuid?.() !== 0) throw new Error('agent-quota-reads.spec needs root (network namespaces, wireguard-go)');
  await requireTools(['wg', 'wireguard-go', 'ip', 'nft'], 'wireguard-tools wireguard-go iproute2 nftables');
  workDir = mkdtempSync(join(tmpdir(), 'warren-quota-reads-'));
  ns = await TestNamespace.create('warren-qr');
});

afterAll(async () => {
  await ns?.destroy();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
  for (const name of names) rmSync(`/var/run/wireguard/${name}.sock`, { force: true });
});

/** `name` with three devices (no preshared keys), the first one's client under a quota. */
function desired(name: string, revision: number): DesiredState {
  const peers = ['10.71.0.2', '10.71.0.3', '10.71.0.4'].map((ip) => desiredPeer(ip, { presharedKey: null }));
  return desiredState(revision, [desiredInterface(name, 71, { peers })], {
    quotas: [{ client: randomUUID(), remainingBytes: 50_000_000, ips: ['10.71.0.2'] }],
  });
}

/** A report round as agent.service.ts runs one: the correction kicked off, then the counters read. */
async function reportRound(host: WireGuardHost) {
  const correcting = host.correctQuotas();
  const readings = await host.readCounters();
  return { readings, failure: await correcting };
}

test('a report round with quotas armed reads the counters once, after the kernel, and both use it', async () => {
  const runner = new CountingRunner({ namespace: ns.name });
  const host = new WireGuardHost({
    runner,
    stateDir: join(workDir, 'once'),
    quotaTable: `wq_${randomSuffix(6)}`,
    counters: { uapi: false },
  });
  const name = names[0];
  const state = desired(name, 1);
  expect((await host.apply(state)).ok).toBe(true);

  for (let round = 0; round < 3; round++) {
    runner.ran.length = 0;
    const { readings, failure } = await reportRound(host);
    expect(failure).toBeNull();
    expect(readings.map((r) => r.interface)).toEqual([name, name, name]);
    // One kernel reading, then one WireGuard reading begun once it came back: the spool's and the
    // correction's.
    expect(runner.ran.filter((command) => command === DUMP)).toHaveLength(1);
    expect(runner.ran.filter(isKernelRead)).toHaveLength(1);
    expect(runner.ran.indexOf(KERNEL_DONE)).toBeLessThan(runner.ran.indexOf(DUMP));
  }
});

test('a correction behind an apply reads on its own after its kernel reading; the counters do not wait', async () => {
  const runner = new CountingRunner({ namespace: ns.name });
  const host = new WireGuardHost({
    runner,
    stateDir: join(workDir, 'behind'),
    quotaTable: `wq_${randomSuffix(6)}`,
    counters: { uapi: false },
  });
  const state = desired(names[1], 1);
  expect((await host.apply(state)).ok).toBe(true);

  runner.ran.length = 0;
  let applied = false;
  const applying = host.apply({ ...state, revision: 2 }).then((result) => {
    applied = true;
    return result;
  });
  const correcting = host.correctQuotas();
  const readings = await host.readCounters();
  // The round's counters came while the apply ran: they were not held behind it.
  expect(applied).toBe(false);
  expect(readings).toHaveLength(3);
  expect(await correcting).toBeNull();
  expect((await applying).ok).toBe(true);
  // The correction ran last: its kernel reading, then a WireGuard reading of its own begun after.
  const lastKernel = runner.ran.lastIndexOf(KERNEL_DONE);
  expect(runner.ran.slice(lastKernel + 1).filter((command) => command === DUMP)).toHaveLength(1);
});

test('a kernel reading that hangs holds the counters up for a second at most; the correction then reads on its own', async () => {
  const runner = new CountingRunner({ namespace: ns.name });
  const host = new WireGuardHost({
    runner,
    stateDir: join(workDir, 'slow'),
    quotaTable: `wq_${randomSuffix(6)}`,
    counters: { uapi: false },
  });
  expect((await host.apply(desired(names[2], 1))).ok).toBe(true);

  runner.ran.length = 0;
  runner.kernelDelayMs = KERNEL_FIRST_WAIT_MS + 2000;
  const started = performance.now();
  const correcting = host.correctQuotas();
  const readings = await host.readCounters();
  const waited = performance.now() - started;
  expect(readings).toHaveLength(3);
  expect(waited).toBeGreaterThanOrEqual(KERNEL_FIRST_WAIT_MS - 50);
  expect(waited).toBeLessThan(KERNEL_FIRST_WAIT_MS + 1500);
  expect(await correcting).toBeNull();
  // The round's reading began before the kernel's answer: the correction read again after it.
  const kernelDone = runner.ran.indexOf(KERNEL_DONE);
  expect(runner.ran.indexOf(DUMP)).toBeLessThan(kernelDone);
  expect(runner.ran.slice(kernelDone + 1).filter((command) => command === DUMP)).toHaveLength(1);
});
