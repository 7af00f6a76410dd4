import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HOST_GAPS } from '../../libs/contracts/host-gaps.js';
import { probeHost } from '../../apps/agent/src/host/capabilities.js';
import { CommandRunner } from '../../apps/agent/src/host/command-runner.js';
import { WireGuardHost } from '../../apps/agent/src/host/wireguard-host.js';
import { desiredInterface, desiredPeer, desiredState } from '../support/desired-state.js';
import { requireTools, TestNamespace } from '../support/netns.js';
import { randomSuffix } from '../support/random-suffix.js';

/**
 * A host without tc: speed limits are a gap in the probe and an error on the interface's outcome,
 * never a crash or a tunnel down; with tc back (no restart) the same apply shapes. The agent's
 * WireGuardHost in a namespace with wireguard-go; `tc` made to look missing through the runner.
 */

let ns: TestNamespace;
let workDir: string;
const name = `wg${randomSuffix(8)}`;

beforeAll(async () => {
  if (process.getuid?.() !== 0) throw new Error('speed-limits-gaps.spec needs root (network namespaces, wireguard-go)');
  await requireTools(['wg', 'wireguard-go', 'ip', 'tc'], 'wireguard-tools wireguard-go iproute2');
  workDir = mkdtempSync(join(tmpdir(), 'warren-shaping-gaps-'));
  ns = await TestNamespace.create('warren-sg');
});

afterAll(async () => {
  await ns?.destroy();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
  rmSync(`/var/run/wireguard/${name}.sock`, { force: true });
});

test('without tc the limit is a gap and an outcome error, the tunnel is up; with tc it is shaped', async () => {
  const noTc = new CommandRunner({ namespace: ns.name, programs: { tc: '/nonexistent/tc' } });
  const probe = await probeHost(noTc);
  expect(probe.gaps).toContain(`${HOST_GAPS.shaping} (tc (iproute2) not installed)`);
  expect(probe.shaping).toMatchObject({ tc: false, ifb: true });

  const stateDir = join(workDir, 'state');
  const state = desiredState(1, [
    desiredInterface(name, 70, {
      peers: [desiredPeer('10.70.0.2')],
      speedLimits: [{ clientId: randomUUID(), rateBitsPerSec: 5_000_000, ips: ['10.70.0.2'] }],
    }),
  ]);
  const without = await new WireGuardHost({ runner: noTc, probe, stateDir }).apply(state);
  expect(without.interfaces).toEqual([
    expect.objectContaining({
      name,
      state: 'up',
      error: 'speed limits of 1 clients not enforced: tc (iproute2) not installed',
    }),
  ]);
  expect(without.ok).toBe(false);
  expect(await ns.exec('tc', 'qdisc', 'show', 'dev', name)).not.toContain('htb');

  // tc installed: the next apply (a fresh agent's probe, or this one probing again) shapes.
  const withTc = new CommandRunner({ namespace: ns.name });
  const shaped = await new WireGuardHost({ runner: withTc, stateDir }).apply({ ...state, revision: 2 });
  expect(shaped.ok).toBe(true);
  expect(await ns.exec('tc', 'class', 'show', 'dev', name)).toContain('rate 5Mbit ceil 5Mbit');
});
