import { randomBytes } from 'node:crypto';
import type { Capabilities } from '#libs/contracts/agent-link.js';
import { HOST_GAPS } from '#libs/contracts/host-gaps.js';
import { CommandError, type CommandRunner } from './command-runner.js';
import { missingTools, probeShaping, type ShapingTools } from './shaping/shaping-tools.js';

/**
 * What this host can do, found by trying rather than assuming: each tool is run once, and the
 * kernel module is tested by creating (and deleting) a throw-away WireGuard interface. Anything
 * missing becomes a short sentence for the operator; nothing here throws.
 */

export interface HostProbe {
  capabilities: Capabilities;
  /** AmneziaWG tools (`awg` and `amneziawg-go`), which the contract's Capabilities do not carry. */
  amnezia: boolean;
  /** Hops' tools (the contract's Capabilities do not carry them; their absence is a gap sentence). */
  hops: { redsocks: boolean; ssRedir: boolean; ssLocal: boolean; dnsmasq: boolean };
  /** Speed limits' tools (tc, ifb): carried like the hops' ones. */
  shaping: ShapingTools;
  gaps: string[];
}

export interface ProbeOptions {
  /** Defaults to this process's uid; a test can pretend to be unprivileged. */
  uid?: number;
}

export async function probeHost(runner: CommandRunner, options: ProbeOptions = {}): Promise<HostProbe> {
  const root = (options.uid ?? process.getuid?.() ?? -1) === 0;
  const [ip, wg, nft, wireguardGo, awg, amneziawgGo, redsocks, ssRedir, ssLocal, dnsmasq] = await Promise.all([
    installed(runner, 'ip', ['-V']),
    installed(runner, 'wg', ['--version']),
    installed(runner, 'nft', ['--version']),
    installed(runner, 'wireguard-go', ['--version']),
    installed(runner, 'awg', ['--version']),
    installed(runner, 'amneziawg-go', ['--version']),
    installed(runner, 'redsocks', ['-v']),
    installed(runner, 'ss-redir', ['-h']),
    installed(runner, 'ss-local', ['-h']),
    installed(runner, 'dnsmasq', ['--version']),
  ]);
  const kernel = ip && root ? await kernelWireGuard(runner) : { works: false, why: '' };
  const shaping = await probeShaping(runner, ip && root);

  const gaps: string[] = [];
  if (!root) gaps.push(HOST_GAPS.root);
  if (!ip) gaps.push(HOST_GAPS.ip);
  if (!wg) gaps.push(HOST_GAPS.wg);
  if (!kernel.works && !wireguardGo) {
    gaps.push(`${HOST_GAPS.wireguard}${kernel.why ? ` (${kernel.why})` : ''} and wireguard-go is not installed`);
  }
  if (!nft) gaps.push(HOST_GAPS.nft);
  if (!awg || !amneziawgGo) gaps.push(HOST_GAPS.awg);
  if (!redsocks) gaps.push(HOST_GAPS.redsocks);
  if (!ssRedir || !ssLocal) gaps.push(HOST_GAPS.shadowsocks);
  if (!dnsmasq) gaps.push(HOST_GAPS.dnsmasq);
  const noShaping = root && ip ? missingTools(shaping) : null;
  if (noShaping) gaps.push(`${HOST_GAPS.shaping} (${noShaping})`);

  return {
    capabilities: { root, wireguardKernel: kernel.works, wireguardGo, wg, nft, ip },
    amnezia: awg && amneziawgGo,
    hops: { redsocks, ssRedir, ssLocal, dnsmasq },
    shaping,
    gaps,
  };
}

async function installed(runner: CommandRunner, program: string, args: string[]): Promise<boolean> {
  try {
    await runner.run(program, args, { timeoutMs: 5000 });
    return true;
  } catch (error) {
    // Only "not found" means absent: a tool that runs but dislikes the flag is still there.
    return !(error instanceof CommandError && (error.reason === 'not-found' || error.reason === 'spawn'));
  }
}

/** Creates and deletes a WireGuard link under a random name nobody else uses. */
async function kernelWireGuard(runner: CommandRunner): Promise<{ works: boolean; why: string }> {
  const name = `wrnprobe${randomBytes(3).toString('hex')}`;
  try {
    await runner.run('ip', ['link', 'add', 'dev', name, 'type', 'wireguard'], { timeoutMs: 5000 });
  } catch (error) {
    const why = error instanceof CommandError ? error.stderr : String(error);
    return { works: false, why: /Unknown device type/i.test(why) ? 'no wireguard module' : why };
  }
  await runner.run('ip', ['link', 'del', 'dev', name], { timeoutMs: 5000 }).catch(() => undefined);
  return { works: true, why: '' };
}
