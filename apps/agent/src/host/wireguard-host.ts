import type { HostState } from '#libs/contracts/host-state.js';
import { collectHostState } from './host-state.js';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { DesiredInterface, DesiredState } from '#libs/contracts/desired-state.js';
import { deltaPeers, type DesiredDelta } from '#libs/contracts/desired-delta.js';
import {
  MAX_APPLY_DURATION_MS,
  MAX_OUTCOME_ERROR_TEXT,
  type ApplyResult,
  type InterfaceOutcome,
  type OutboundOutcome,
  type RoutingOutcome,
} from '#libs/contracts/node-queue.js';
import { parseInterfaceAddress, reconcileAddressing } from './addressing.js';
import { ApplyRecord } from './apply-record.js';
import { probeHost, type HostProbe } from './capabilities.js';
import { errorText, type CommandRunner } from './command-runner.js';
import { readLinkNames, readLinks, type Link } from './links.js';
import {
  loadManagedState,
  saveManagedState,
  type Driver,
  type ManagedInterface,
  type ManagedState,
} from './managed-state.js';
import { applyNat, DEFAULT_NAT_TABLE, natRuleProblem, type NatRule } from './nat.js';
import { configPath, livePeersMatch, renderInterfaceConfig, setPeers, syncConfig } from './wireguard-config.js';
import { createLink, removeLink } from './wireguard-link.js';
import { mtuArg, tunnelArg } from './host-arguments.js';
import { HopHost } from './routing/hop-host.js';
import { ShapingHost } from './shaping/shaping-host.js';
import { CounterReader, type CounterReaderOptions, type CountersResetListener, type PeerReading } from './counters.js';
import { SharedReading } from './shared-reading.js';
import { QuotaHost } from './quotas/quota-host.js';

/**
 * Makes the host's WireGuard interfaces match a desired state, idempotently: interfaces are
 * created when missing, loaded with `wg syncconf`, addressed and brought up; the agent's NAT
 * table is rebuilt; interfaces the agent created that are no longer desired are deleted.
 * Interfaces the agent did not create are never changed. One interface failing is an outcome,
 * not an exception: the others are still applied. Calls are serialized.
 */

export interface WireGuardHostOptions {
  runner: CommandRunner;
  /** Holds managed.json and the 0600 config files; created 0700. */
  stateDir: string;
  /** What probeHost() found; probed on the first apply when absent, and again while a tool is missing. */
  probe?: HostProbe;
  /** The agent's own nftables table (family ip). */
  natTable?: string;
  /** Where applies are recorded; `<stateDir>/applied.json` when absent (the agent keeps it in its data directory). */
  record?: ApplyRecord;
  /** The agent's policy-routing table (family ip); `warren_routing` when absent. */
  routingTable?: string;
  /** The agent's quota table (family ip); `warren_quota` when absent. */
  quotaTable?: string;
  /** How counters are read (counters.ts); tests read wireguard-go's through `wg` to count the reads. */
  counters?: CounterReaderOptions;
}

/**
 * The longest a report round's counter read waits for a quota correction's kernel reading (a few
 * ms as a rule) before it reads on its own (readCounters).
 */
export const KERNEL_FIRST_WAIT_MS = 1000;

/** What one reconcile produced, before it is timed and bounded into an ApplyResult. */
interface Reconciled {
  interfaces: InterfaceOutcome[];
  outbounds?: OutboundOutcome[];
  routing?: RoutingOutcome;
}

/**
 * What came of a delta: its outcome, with `full` true when it was applied as the whole state it
 * leads to (see applyDelta); or the revision last applied when it does not fit that (a gap).
 */
export type DeltaOutcome = { result: ApplyResult; full: boolean; peers: number } | { gap: number };

/** The kind `ip -d link` reports for a link each driver creates. */
const LINK_KIND: Record<Driver, string> = { kernel: 'wireguard', 'wireguard-go': 'tun' };

export class WireGuardHost {
  private readonly runner: CommandRunner;
  private readonly stateDir: string;
  private readonly natTable: string;
  private probe: HostProbe | undefined;
  private state: ManagedState | undefined;
  private readonly record: ApplyRecord;
  private queue: Promise<unknown> = Promise.resolve();
  /** Jobs on the queue not yet finished: none, and a correction asked for runs at once. */
  private queued = 0;
  /** Hops and policy routing, applied after the tunnels they route. */
  readonly hops: HopHost;
  /** Clients' speed limits on the tunnels (tc). */
  private readonly shaping: ShapingHost;
  /** Clients' byte allowances in the kernel, applied after the tunnels whose peers they count. */
  private readonly quotas: QuotaHost;
  private readonly counters: CounterReader;
  /** The counter readings the report round and the quota correction share (shared-reading.ts). */
  private readonly readings: SharedReading<readonly PeerReading[]>;
  /** Set while a correction that runs at once reads the kernel: counter reads wait for it. */
  private kernelFirst: Promise<void> | undefined;
  private countersReset?: CountersResetListener;

  constructor(options: WireGuardHostOptions) {
    this.runner = options.runner;
    this.stateDir = options.stateDir;
    this.natTable = options.natTable ?? DEFAULT_NAT_TABLE;
    this.probe = options.probe;
    this.record = options.record ?? new ApplyRecord(join(options.stateDir, 'applied.json'));
    this.hops = new HopHost(this.runner, this.stateDir, options.routingTable);
    this.shaping = new ShapingHost(this.runner, this.stateDir);
    const counters = new CounterReader(this.runner, () => this.managedInterfaces(), options.counters);
    this.counters = counters;
    const readings = new SharedReading(() => counters.read());
    this.readings = readings;
    this.quotas = new QuotaHost(this.runner, this.stateDir, (since) => readings.since(since), options.quotaTable);
  }

  /**
   * One reading of every managed interface's peers, begun after this call (the counter spool's).
   * When a quota correction is reading the kernel right now (correctQuotas), the reading begins
   * once it has: the correction then takes the same one instead of reading 100,000 peers again.
   */
  async readCounters(): Promise<readonly PeerReading[]> {
    const asked = performance.now();
    if (this.kernelFirst) {
      // Not for long: an nft that hangs is killed only after 30 s. Past this the round reads on its
      // own, and the correction then reads after its kernel reading, as behind an apply.
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, KERNEL_FIRST_WAIT_MS).unref()));
      await Promise.race([this.kernelFirst, waited]);
      clearTimeout(timer);
    }
    return this.readings.since(asked);
  }

  /**
   * Told when a restart begins, and given an interface's last reading when it deleted its link
   * (its counters start from 0 on the new one): the counter spool carries those bytes over
   * (counter-spool.ts; host-driver.ts CountersResetListener).
   */
  onCountersReset(listener: CountersResetListener): void {
    this.countersReset = listener;
  }

  /**
   * Corrects the kernel quotas from WireGuard's counters (a report round); serialized with
   * applies. Never rejects: a failure is returned, and the kernel keeps the last limits.
   */
  correctQuotas(): Promise<string | null> {
    // Nothing ahead: it runs at once, and a report round's counter read waits for its kernel
    // reading (a few ms), so that one WireGuard reading, begun after it, serves both. Behind an
    // apply it reads on its own: the report's counters never wait for an apply.
    let kernelRead = (): void => undefined;
    if (this.queued === 0) {
      let done!: () => void;
      const gate = new Promise<void>((resolve) => (done = resolve));
      this.kernelFirst = gate;
      kernelRead = () => {
        done();
        if (this.kernelFirst === gate) this.kernelFirst = undefined;
      };
    }
    return this.enqueue(async () => {
      try {
        await this.quotas.correct(kernelRead);
        return null;
      } catch (error) {
        return errorText(error);
      } finally {
        kernelRead();
      }
    });
  }

  /** Runs `job` after every job queued before it (applies, deltas, corrections). */
  private enqueue<T>(job: () => Promise<T>): Promise<T> {
    this.queued++;
    const run = this.queue.then(job).finally(() => this.queued--);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** What the agent manages here, for a backup (host-state.ts). */
  collectState(): Promise<HostState> {
    return collectHostState(this.runner, this.stateDir, this.natTable);
  }

  /** Reconciles the host; never rejects. Concurrent calls run one after another, in call order. */
  apply(desired: DesiredState): Promise<ApplyResult> {
    return this.enqueue(() => this.applyNow(desired));
  }

  /**
   * Applies a delta (libs/contracts/desired-delta.ts) on top of the last applied state; never
   * rejects, serialized with applies. Only the changed peers are set (`wg addconf`/`wg set`), and
   * only the speed limits and quotas the delta changes are applied again; the rest of the host is
   * not read. A delta that does not fit the last applied state is a gap (nothing is done). One that
   * fits but cannot be applied alone (the base apply was not complete, a changed interface is not
   * up, a `wg` command failed) is applied as the whole state it leads to, which is then exact.
   */
  applyDelta(delta: DesiredDelta): Promise<DeltaOutcome> {
    return this.enqueue(() => this.applyDeltaNow(delta));
  }

  /**
   * Names of interfaces the agent manages that no longer exist (one `ip` command): a watchdog's
   * cue to apply the last desired state again. (An interface whose creation failed is not
   * managed, so it is not reported over and over.)
   */
  async missingInterfaces(): Promise<string[]> {
    const managed = [...this.loadState().interfaces.keys()];
    const hops = await this.hops.missing();
    if (managed.length === 0) return hops;
    const present = await readLinkNames(this.runner);
    return [...managed.filter((name) => !present.has(name)), ...hops];
  }

  /** Interfaces this agent created and still manages (what counters are read for). */
  managedInterfaces(): string[] {
    return [...this.loadState().interfaces.keys()];
  }

  /** The revision last applied (whatever its outcome), 0 before the first. */
  appliedRevision(): number {
    return this.record.applied.result?.revision ?? 0;
  }

  private loadState(): ManagedState {
    this.state ??= loadManagedState(this.stateDir);
    return this.state;
  }

  private saveState(options: { durable?: boolean } = {}): void {
    saveManagedState(this.stateDir, this.loadState(), options);
  }

  private async applyNow(desired: DesiredState): Promise<ApplyResult> {
    const started = performance.now();
    const finish = (revision: number, { interfaces, outbounds, routing }: Reconciled): ApplyResult => {
      const result: ApplyResult = {
        revision,
        ok: interfaces.every((o) => o.state !== 'failed' && o.error === undefined),
        // Within the contract's bounds, or the controller would refuse the whole report.
        interfaces: interfaces.map(bounded),
        durationMs: Math.min(MAX_APPLY_DURATION_MS, Math.round((performance.now() - started) * 10) / 10),
      };
      if (outbounds) result.outbounds = outbounds.map(bounded);
      if (routing) result.routing = bounded(routing);
      return result;
    };
    // Inside the serialized apply, so two applies cannot both pass it.
    const newer = this.record.supersededBy(desired);
    if (newer) return finish(newer.revision, newer);
    try {
      const state = this.loadState();
      const result = finish(desired.revision, await this.reconcile(desired, state));
      this.saveState();
      this.record.record(desired, result);
      return result;
    } catch (error) {
      // Only the state directory itself failing gets here: every interface shares that fate.
      const text = `apply failed: ${errorText(error)}`;
      const result = finish(desired.revision, {
        interfaces: desired.interfaces.map((i) => ({
          name: i.name,
          state: 'failed',
          driver: 'none',
          peers: 0,
          error: text,
        })),
        outbounds: desired.outbounds?.map((o) => ({ tag: o.tag, state: 'failed', error: text })),
      });
      try {
        this.record.record(desired, result);
      } catch {
        // The same disk: the outcome is still reported, and the next apply records again.
      }
      return result;
    }
  }

  private async applyDeltaNow(delta: DesiredDelta): Promise<DeltaOutcome> {
    const started = performance.now();
    const fit = this.record.fit(delta);
    if (fit.verdict === 'gap') return { gap: fit.appliedRevision };
    if (fit.verdict === 'stale') return { result: fit.result, full: false, peers: 0 };
    const desired = fit.state;
    const whole = async (): Promise<DeltaOutcome> => ({
      result: await this.applyNow(desired),
      full: true,
      peers: deltaPeers(delta),
    });
    const previous = this.record.applied.result;
    const probe = this.probe;
    if (!previous?.ok || !probe || incomplete(probe)) return whole();
    const state = this.loadState();
    const outcomes = previous.interfaces
      .filter((o) => o.state !== 'removed')
      .map((o): InterfaceOutcome => ({ ...o, error: undefined }));
    for (const change of delta.interfaces) {
      const outcome = outcomes.find((o) => o.name === change.name);
      const entry = state.interfaces.get(change.name);
      if (!entry || !outcome || (outcome.state !== 'up' && outcome.state !== 'down')) return whole();
    }
    // Quotas before the peers they count: a device added to a client with a quota moves no byte
    // unmetered (its address is in the client's quota before its peer exists).
    const quotasChanged = delta.quotas !== undefined || delta.removedQuotas !== undefined;
    if (quotasChanged) await this.reconcileQuotas(desired, outcomes, probe);
    // managed.json is written only when a config hash is dropped (the first delta after a whole
    // apply), before the peers change (its peer counts are informational), and without waiting for
    // the disk: a stale hash matters only while the interface lives, which a power loss ends.
    try {
      for (const change of delta.interfaces) {
        if (change.peers.length + change.removedPeers.length === 0) continue;
        const entry = state.interfaces.get(change.name)!;
        // The host no longer holds the config on record: a later whole apply loads it again.
        if (entry.configSha256 !== null) {
          entry.configSha256 = null;
          this.saveState({ durable: false });
        }
        await setPeers(this.runner, this.stateDir, change.name, change);
      }
    } catch {
      // Half set: the whole state's syncconf makes the interface exact again.
      return whole();
    }
    const peers = new Map(desired.interfaces.map((iface) => [iface.name, iface.peers.length]));
    for (const outcome of outcomes) {
      outcome.peers = peers.get(outcome.name) ?? outcome.peers;
      const entry = state.interfaces.get(outcome.name);
      if (entry) entry.peers = outcome.peers;
    }
    const limited = delta.interfaces.filter((change) => change.speedLimits || change.removedSpeedLimits);
    if (limited.length > 0) {
      await this.shaping.apply(
        limited.map((change) => ({
          iface: desired.interfaces.find((iface) => iface.name === change.name)!,
          outcome: outcomes.find((o) => o.name === change.name)!,
        })),
        new Set(desired.interfaces.map((iface) => iface.name)),
        probe.shaping,
      );
    }
    const result: ApplyResult = {
      ...previous,
      revision: delta.revision,
      ok: outcomes.every((o) => o.state !== 'failed' && o.error === undefined),
      interfaces: outcomes.map((o) => bounded(o.error === undefined ? withoutError(o) : o)),
      durationMs: Math.min(MAX_APPLY_DURATION_MS, Math.round((performance.now() - started) * 10) / 10),
    };
    try {
      this.record.recordDelta(delta, desired, result);
    } catch (error) {
      // Only the state directory failing gets here: recorded as a failed apply of the whole state.
      const text = `apply failed: ${errorText(error)}`;
      return {
        result: { ...result, ok: false, interfaces: outcomes.map((o) => ({ ...o, error: text })) },
        full: false,
        peers: deltaPeers(delta),
      };
    }
    return { result, full: false, peers: deltaPeers(delta) };
  }

  private async reconcile(desired: DesiredState, state: ManagedState): Promise<Reconciled> {
    // A host missing a tool is probed again on every apply, so installing it needs no agent restart.
    if (!this.probe || incomplete(this.probe)) this.probe = await probeHost(this.runner);
    const probe = this.probe;
    let links: Map<string, Link> | null = null;
    let linksError = '';
    if (probe.capabilities.ip) {
      try {
        links = await readLinks(this.runner);
      } catch (error) {
        linksError = errorText(error);
      }
    } else {
      linksError = 'iproute2 (ip) not installed';
    }

    const outcomes: InterfaceOutcome[] = [];
    const nat: { rule: NatRule; outcome: InterfaceOutcome }[] = [];
    const desiredNames = new Set<string>();
    for (const iface of desired.interfaces) {
      if (desiredNames.has(iface.name)) {
        outcomes.push(failed(iface.name, 'none', `interface ${iface.name} appears twice in the desired state`));
        continue;
      }
      desiredNames.add(iface.name);
      const outcome = links
        ? await this.applyInterface(iface, links, probe, state)
        : failed(iface.name, 'none', `cannot read the host's interfaces: ${linksError}`);
      outcomes.push(outcome);
      if (outcome.state === 'up' && iface.natInterface !== null) {
        const rule = { subnet: iface.subnet, outInterface: iface.natInterface };
        const problem = natRuleProblem(rule);
        if (problem) outcome.error = problem;
        else nat.push({ rule, outcome });
      }
    }

    for (const [name, entry] of [...state.interfaces]) {
      if (desiredNames.has(name)) continue;
      outcomes.push(
        links
          ? await this.removeInterface(name, links, state)
          : failed(name, entry.driver, `cannot remove: ${linksError}`),
      );
    }

    await this.reconcileNat(nat, probe, state);
    await this.shaping.apply(
      desired.interfaces.flatMap((iface) => {
        const outcome = outcomes.find((o) => o.name === iface.name && o.state === 'up');
        return outcome ? [{ iface, outcome }] : [];
      }),
      desiredNames,
      probe.shaping,
    );
    await this.reconcileQuotas(desired, outcomes, probe);

    // Hops and routing: only traffic of tunnels that are up is routed.
    const up = desired.interfaces.filter((i) => outcomes.some((o) => o.name === i.name && o.state === 'up'));
    const hops = await this.hops.apply(desired, {
      links,
      tunnels: up.map((i) => i.name),
      tunnelAddresses: up.map((i) => i.address.split('/')[0]),
      probe,
    });
    // An agent applying no hops and default routing reports neither (as agents before hops did).
    const quiet =
      !desired.outbounds &&
      !desired.routing &&
      hops.outbounds.length === 0 &&
      hops.routing.rules === 0 &&
      hops.routing.state === 'up';
    return quiet ? { interfaces: outcomes } : { interfaces: outcomes, ...hops };
  }

  private async applyInterface(
    iface: DesiredInterface,
    links: Map<string, Link>,
    probe: HostProbe,
    state: ManagedState,
  ): Promise<InterfaceOutcome> {
    const { name } = iface;
    const caps = probe.capabilities;
    try {
      // Before anything is recorded or run: a value no tool may see fails this interface alone,
      // up front. (Keys and the port are checked by rendering the config, also before creation;
      // the NAT uplink by natRuleProblem, which fails only the NAT.)
      tunnelArg(name);
      mtuArg(iface.mtu);
    } catch (error) {
      return failed(name, 'none', errorText(error));
    }
    if (iface.mode === 'amnezia') {
      return failed(
        name,
        'none',
        probe.amnezia
          ? 'AmneziaWG interfaces are not supported by this agent yet'
          : 'AmneziaWG is not installed on this host (awg and amneziawg-go are missing): AmneziaWG interfaces cannot be applied',
      );
    }
    if (!caps.wg) return failed(name, 'none', 'wireguard-tools (wg) not installed: the interface cannot be configured');
    const address = parseInterfaceAddress(iface.address);
    if (!address)
      return failed(
        name,
        'none',
        `interface address ${JSON.stringify(iface.address)} is not an IPv4 address with a prefix length`,
      );

    let link = links.get(name);
    const managed = state.interfaces.get(name);
    if (link && !managed)
      return failed(name, 'none', `an interface named ${name} exists that this agent did not create; it is left alone`);
    if (link && managed && link.kind !== LINK_KIND[managed.driver]) {
      return failed(
        name,
        'none',
        `${name} is now a ${link.kind ?? 'plain'} link, not the WireGuard interface this agent created; it is left alone`,
      );
    }
    if (link && managed && restartAsked(managed.restartSerial, iface.restartSerial)) {
      const problem = await this.restartLink(name, managed);
      if (problem) return failed(name, managed.driver, problem);
      link = undefined;
    }
    let driver: Driver | null =
      link && managed ? managed.driver : caps.wireguardKernel ? 'kernel' : caps.wireguardGo ? 'wireguard-go' : null;
    if (!driver)
      return failed(name, 'none', 'no WireGuard implementation: no kernel module and wireguard-go is not installed');

    try {
      // Rendered before anything is created: a bad key or duplicate peer fails without side effects.
      const config = renderInterfaceConfig(iface);
      let created = false;
      if (!link) {
        // Recorded first: a crash after creating still leaves the interface known as ours.
        state.interfaces.set(name, { driver, configSha256: null, peers: 0, ifindex: null });
        this.saveState();
        try {
          await createLink(this.runner, name, driver);
        } catch (error) {
          // Nothing of ours exists (the name may be a live interface elsewhere on the host).
          state.interfaces.delete(name);
          this.saveState();
          throw error;
        }
        created = true;
        // A new WireGuard link is down with no address: no need to ask. Its index is learnt from
        // the next apply's snapshot (null until then, which the unchanged check below accepts).
        link = { ifindex: -1, name, kind: LINK_KIND[driver], mtu: 0, up: false, addresses: [] };
      }
      const entry = state.interfaces.get(name)!;
      const unchanged =
        !created &&
        entry.configSha256 === config.sha256 &&
        (entry.ifindex === null || entry.ifindex === link.ifindex) &&
        (await livePeersMatch(this.runner, name, iface));
      if (unchanged) entry.ifindex = link.ifindex;
      // Addressing does not depend on the peers: done while wireguard-go digests the config, it
      // costs no wall-clock time on a multi-core host.
      const [synced, addressed] = await Promise.allSettled([
        unchanged
          ? Promise.resolve()
          : syncConfig(this.runner, this.stateDir, name, config, iface.peers.length, iface.listenPort),
        reconcileAddressing(this.runner, link, address, iface.mtu, iface.down === true),
      ]);
      if (synced.status === 'rejected') throw synced.reason;
      if (!unchanged) {
        entry.configSha256 = config.sha256;
        entry.peers = iface.peers.length;
        entry.ifindex = created ? null : link.ifindex;
      }
      if (addressed.status === 'rejected') throw addressed.reason;
      entry.restartSerial = iface.restartSerial ?? 0;
      return { name, state: iface.down === true ? 'down' : 'up', driver, peers: iface.peers.length };
    } catch (error) {
      const entry = state.interfaces.get(name);
      // The config on the host is unknown now: the next apply must load it again.
      if (entry) entry.configSha256 = null;
      driver = entry?.driver ?? driver;
      return failed(name, driver, errorText(error));
    }
  }

  /**
   * A restart the panel asked for (desired-state.ts, `restartSerial`): the link is deleted, and
   * the apply goes on to create it anew from the desired state (peers, address, NAT, shaping,
   * quotas), as on a first apply. Every session ends with it: each peer handshakes again.
   * WireGuard's counters start from 0 on the new link, so the old link's last reading is handed
   * to the counter spool once the link is gone, and counting goes on from there exactly.
   * Returns why it could not, or null.
   */
  private async restartLink(name: string, entry: ManagedInterface): Promise<string | null> {
    this.countersReset?.starting();
    let final: PeerReading[];
    try {
      final = (await this.counters.read()).filter((reading) => reading.interface === name);
    } catch (error) {
      this.countersReset?.done([]);
      return `cannot read the counters before the restart: ${errorText(error)}`;
    }
    try {
      await removeLink(this.runner, name, entry.driver, true);
    } catch (error) {
      this.countersReset?.done([]);
      return `could not restart: ${errorText(error)}`;
    }
    this.loadState().interfaces.delete(name);
    this.saveState();
    this.countersReset?.done(final);
    return null;
  }

  private async removeInterface(
    name: string,
    links: Map<string, Link>,
    state: ManagedState,
  ): Promise<InterfaceOutcome> {
    const entry = state.interfaces.get(name)!;
    const link = links.get(name);
    try {
      if (link && link.kind !== LINK_KIND[entry.driver]) {
        // Ours vanished and something else took the name: not ours to delete.
        rmSync(configPath(this.stateDir, name), { force: true });
        state.interfaces.delete(name);
        return { name, state: 'removed', driver: entry.driver, peers: 0 };
      }
      const leftover = await removeLink(this.runner, name, entry.driver, link !== undefined);
      state.interfaces.delete(name);
      rmSync(configPath(this.stateDir, name), { force: true });
      const outcome: InterfaceOutcome = { name, state: 'removed', driver: entry.driver, peers: 0 };
      if (leftover) outcome.error = leftover;
      return outcome;
    } catch (error) {
      return failed(name, entry.driver, `could not remove: ${errorText(error)}`);
    }
  }

  /**
   * Clients' kernel quotas, for the peers of interfaces that are up (quotas/quota-host.ts). Not
   * enforced (no nft, nft failed) is an error on the interfaces carrying them: the panel still
   * cuts such a client at its next counter report.
   */
  private async reconcileQuotas(desired: DesiredState, outcomes: InterfaceOutcome[], probe: HostProbe): Promise<void> {
    const up = desired.interfaces.filter((i) => outcomes.some((o) => o.name === i.name && o.state === 'up'));
    const quotas = desired.quotas ?? [];
    if (quotas.length > 0 && !probe.capabilities.nft) {
      reportQuotas(desired, outcomes, 'nftables (nft) not installed');
      return;
    }
    if (!probe.capabilities.nft) return;
    try {
      await this.quotas.apply(quotas, up);
    } catch (error) {
      reportQuotas(desired, outcomes, errorText(error));
    }
  }

  /**
   * Rebuilds the NAT table for the interfaces that are up and want it, or removes it when none
   * do. Skipped entirely while the agent has never made a table (hosts without NAT never need nft).
   */
  private async reconcileNat(
    wanted: { rule: NatRule; outcome: InterfaceOutcome }[],
    probe: HostProbe,
    state: ManagedState,
  ): Promise<void> {
    if (wanted.length === 0 && !state.natTable) return;
    const rules = wanted.map((w) => w.rule);
    const report = (why: string) => {
      for (const { rule, outcome } of wanted)
        outcome.error = `NAT of ${rule.subnet} via ${rule.outInterface} not set up: ${why}`;
    };
    if (!probe.capabilities.nft) {
      report('nftables (nft) not installed');
      return;
    }
    try {
      await applyNat(this.runner, this.stateDir, this.natTable, rules);
      state.natTable = rules.length > 0;
    } catch (error) {
      // With no rules wanted there is no outcome to carry this; the next apply tries again.
      state.natTable = true;
      report(errorText(error));
    }
  }
}

/** Why the clients' quotas of `desired` are not enforced here, on the outcomes of the interfaces carrying them. */
function reportQuotas(desired: DesiredState, outcomes: InterfaceOutcome[], why: string): void {
  const ips = new Set((desired.quotas ?? []).flatMap((quota) => quota.ips));
  for (const iface of desired.interfaces) {
    const outcome = outcomes.find((o) => o.name === iface.name && o.state === 'up');
    if (outcome && iface.peers.some((peer) => ips.has(peer.ip)))
      outcome.error = outcome.error ?? `client quotas not enforced in the kernel: ${why}`;
  }
}

function incomplete({ capabilities: c }: HostProbe): boolean {
  return !c.ip || !c.wg || !c.nft || !(c.wireguardKernel || c.wireguardGo);
}

/** The outcome without an `error` key (an absent error, not an undefined one, in the report). */
function withoutError(outcome: InterfaceOutcome): InterfaceOutcome {
  const { error: _error, ...rest } = outcome;
  return rest;
}

function bounded<T extends { error?: string }>(outcome: T): T {
  return outcome.error && outcome.error.length > MAX_OUTCOME_ERROR_TEXT
    ? { ...outcome, error: `${outcome.error.slice(0, MAX_OUTCOME_ERROR_TEXT - 1)}…` }
    : outcome;
}

function failed(name: string, driver: InterfaceOutcome['driver'], error: string): InterfaceOutcome {
  return { name, state: 'failed', driver, peers: 0, error };
}

/**
 * Whether the panel asked for a restart since this interface's last apply: its serial moved. An
 * interface applied by an agent that kept no serial records the current one without restarting
 * (nothing says a restart was asked after that apply).
 */
function restartAsked(applied: number | undefined, desired: number | undefined): boolean {
  return applied !== undefined && applied !== (desired ?? 0);
}
