import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { DesiredInterface, DesiredQuota } from '#libs/contracts/desired-state.js';
import { readJsonFile, writeFileAtomic } from '#libs/files/atomic-file.js';
import type { CommandRunner } from '../command-runner.js';
import type { PeerReading } from '../counters.js';
import { countWire, newArm, nextChange, type KernelQuota, type QuotaArm } from './quota-allowance.js';
import {
  DEFAULT_QUOTA_TABLE,
  quotaName,
  renderQuotaCorrections,
  renderQuotaTable,
  type QuotaLine,
} from './quota-ruleset.js';

/**
 * Clients' byte allowances in the kernel (docs/agent-host.md, "Quotas"). An apply arms each
 * client's quota from the desired state's remaining bytes; every report round corrects the
 * kernel limits from WireGuard's own counters (quota-allowance.ts), so the kernel drops a
 * client's packets where the panel's count reaches its quota, without waiting for a report.
 */

interface ArmedClient extends QuotaArm {
  ips: string[];
  /** "interface publicKey" of each address's peer: whose WireGuard counters are the client's. */
  peers: string[];
}

interface QuotaFile {
  /** Whether the table may exist (a host that never had quotas never runs nft for them). */
  table: boolean;
  clients: Record<string, ArmedClient>;
}

export class QuotaHost {
  private state: QuotaFile | undefined;
  private readonly file: string;

  constructor(
    private readonly runner: CommandRunner,
    stateDir: string,
    /**
     * A WireGuard reading of the agent's interfaces (counters.ts) begun at or after `since`
     * (performance.now()): the report round's own when it began late enough (shared-reading.ts).
     */
    private readonly readPeers: (since: number) => Promise<readonly PeerReading[]>,
    readonly table = DEFAULT_QUOTA_TABLE,
  ) {
    this.file = join(stateDir, 'quotas.json');
  }

  private load(): QuotaFile {
    if (!this.state) {
      const read = readJsonFile<QuotaFile>(this.file) ?? { table: false, clients: {} };
      // A file from an agent before the long-run ratio: its arms start their history now.
      for (const client of Object.values(read.clients)) client.history ??= { inner: 0, wire: 0 };
      this.state = read;
    }
    return this.state;
  }

  private save(): void {
    writeFileAtomic(this.file, JSON.stringify(this.load()), { durable: false });
  }

  /**
   * Makes the kernel's quotas those of `quotas`. A client whose remaining bytes are what it was
   * armed with keeps its arm (a re-apply of the same state counts on); any other is armed anew.
   * `nft` missing is an error to report; nothing is half-done (one transaction).
   */
  async apply(quotas: readonly DesiredQuota[], interfaces: readonly DesiredInterface[]): Promise<void> {
    const state = this.load();
    if (quotas.length === 0 && !state.table) return;
    const peerOf = new Map<string, string>();
    for (const iface of interfaces)
      for (const peer of iface.peers) peerOf.set(peer.ip, `${iface.name} ${peer.publicKey}`);
    const listed: { quota: DesiredQuota; ips: string[]; peers: string[] }[] = [];
    for (const quota of quotas) {
      const ips = quota.ips.filter((ip) => peerOf.has(ip));
      if (ips.length > 0) listed.push({ quota, ips, peers: ips.map((ip) => peerOf.get(ip)!) });
    }
    // As in correct(): the kernel first, then a WireGuard reading begun after its answer.
    const kernel = state.table ? await this.readKernel() : new Map<string, KernelQuota>();
    const wire = await this.readWire(
      performance.now(),
      listed.flatMap((client) => client.peers),
    );
    const clients: Record<string, ArmedClient> = {};
    const lines: QuotaLine[] = [];
    for (const { quota, ips, peers } of listed) {
      const readings = pick(wire, peers);
      const before = Object.hasOwn(state.clients, quota.client) ? state.clients[quota.client] : undefined;
      let arm: QuotaArm;
      if (before && before.remaining === quota.remainingBytes) {
        arm = before;
        countWire(arm, readings);
      } else {
        arm = newArm(quota.remainingBytes, readings, before);
      }
      const name = quotaName(quota.client);
      const change = nextChange(arm, kernel.get(name));
      clients[quota.client] = { ...arm, ips, peers };
      lines.push({ client: quota.client, ips, change, exists: kernel.has(name) });
    }
    const wanted = new Set(lines.map((line) => quotaName(line.client)));
    const stale = [...kernel.keys()].filter((name) => !wanted.has(name));
    await this.runNft(renderQuotaTable(this.table, lines, lines.length === 0 ? [] : stale));
    state.table = lines.length > 0;
    state.clients = clients;
    this.save();
  }

  /**
   * One report round's corrections of the kernel limits (none armed: nothing runs). `kernelRead`
   * is called once the kernel's quotas are read (or nothing is to be read): from then on a
   * WireGuard reading that begins may serve this correction too (wireguard-host.ts).
   */
  async correct(kernelRead: () => void = () => undefined): Promise<void> {
    const state = this.load();
    const armed = Object.entries(state.clients);
    if (armed.length === 0 || !state.table) return kernelRead();
    // The kernel first, WireGuard second: bytes moving in between count against the client, so
    // a limit set from them falls short (corrected next round), never over. Hence a reading begun
    // once the kernel's answer is in, not merely once it was asked for: nft reads the kernel
    // somewhere within its run, and a WireGuard reading begun meanwhile may precede it.
    const kernel = await this.readKernel();
    const since = performance.now();
    kernelRead();
    const wire = await this.readWire(
      since,
      armed.flatMap(([, arm]) => arm.peers),
    );
    const lines: QuotaLine[] = [];
    for (const [client, arm] of armed) {
      countWire(arm, pick(wire, arm.peers));
      const name = quotaName(client);
      lines.push({ client, ips: arm.ips, change: nextChange(arm, kernel.get(name)), exists: kernel.has(name) });
    }
    const text = renderQuotaCorrections(this.table, lines);
    try {
      if (text) await this.runNft(text);
    } catch (error) {
      // The arms moved in memory but the kernel kept its limits: back to the arms saved with
      // those limits (quotas.json), so the next round counts and learns from both alike.
      this.state = undefined;
      throw error;
    }
    this.save();
  }

  private async runNft(text: string): Promise<void> {
    const file = join(this.file, '..', 'quotas.nft');
    writeFileAtomic(file, text, { durable: false });
    await this.runner.run('nft', ['-f', file]);
  }

  /**
   * rx + tx of `peers` ("interface publicKey", the armed clients') from a reading begun at or after
   * `since`. The reading has every peer of the agent's interfaces (100,000 on a big node): only
   * these are kept, looked up without making a key per reading. No peers: nothing is read.
   */
  private async readWire(since: number, peers: readonly string[]): Promise<Map<string, number>> {
    const wire = new Map<string, number>();
    if (peers.length === 0) return wire;
    const wanted = new Map<string, Set<string>>();
    for (const peer of peers) {
      const [name, publicKey] = peer.split(' ');
      let keys = wanted.get(name);
      if (!keys) wanted.set(name, (keys = new Set()));
      keys.add(publicKey);
    }
    for (const reading of await this.readPeers(since))
      if (wanted.get(reading.interface)?.has(reading.publicKey))
        wire.set(`${reading.interface} ${reading.publicKey}`, reading.rxBytes + reading.txBytes);
    return wire;
  }

  /** The table's quotas by name; none when the table does not exist. */
  private async readKernel(): Promise<Map<string, KernelQuota>> {
    let stdout: string;
    try {
      ({ stdout } = await this.runner.run('nft', ['-j', 'list', 'quotas', 'table', 'ip', this.table]));
    } catch {
      return new Map();
    }
    return parseKernelQuotas(stdout);
  }
}

export function parseKernelQuotas(json: string): Map<string, KernelQuota> {
  const quotas = new Map<string, KernelQuota>();
  const parsed = JSON.parse(json) as { nftables?: { quota?: { name?: string; bytes?: number; used?: number } }[] };
  for (const item of parsed.nftables ?? []) {
    const q = item.quota;
    if (q?.name?.startsWith('c_')) quotas.set(q.name, { limit: q.bytes ?? 0, used: q.used ?? 0 });
  }
  return quotas;
}

function pick(wire: ReadonlyMap<string, number>, peers: readonly string[]): Map<string, number> {
  const picked = new Map<string, number>();
  for (const peer of peers) {
    const value = wire.get(peer);
    if (value !== undefined) picked.set(peer, value);
  }
  return picked;
}
