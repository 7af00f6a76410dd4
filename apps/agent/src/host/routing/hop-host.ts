import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { DesiredState } from '#libs/contracts/desired-state.js';
import type { OutboundOutcome, RoutingOutcome } from '#libs/contracts/node-queue.js';
import { DEFAULT_ROUTING, domainName, type DesiredOutbound } from '#libs/contracts/routing.js';
import { writeFileAtomic } from '#libs/files/atomic-file.js';
import type { HostProbe } from '../capabilities.js';
import { CommandError, errorText, type CommandRunner } from '../command-runner.js';
import { tunnelArg } from '../host-arguments.js';
import { ownAddresses } from '#libs/net/forbidden-targets.js';
import { readLinkNames, readLinks, type Link } from '../links.js';
import { removeLink } from '../wireguard-link.js';
import { reconcileResolver, resolverFiles } from './domain-resolver.js';
import { isOurDaemon, startDaemon, stopDaemon } from './hop-daemon.js';
import { assertAllowedHopTarget, ForbiddenHopTarget, resolveEndpointHost, resolveHopHost } from './hop-address.js';
import { hopNumbers } from './hop-numbers.js';
import { loadHopState, saveHopState, type HopState, type ManagedHop } from './hop-state.js';
import { reconcilePolicyRoutes, type WireguardHopRoute } from './policy-routes.js';
import { HOP_PROGRAM, hopFiles, renderProxyHop, type ProxyHop } from './proxy-hop-config.js';
import { renderRedirectorGuard, renderRuleset, type HopRoute } from './routing-ruleset.js';
import { readLiveRoutingTable } from './routing-table-state.js';
import { reconcileWireguardHop, wireguardHopConfigPath } from './wireguard-hop.js';

/**
 * Hops (outbounds) and policy routing on the host, called by WireGuardHost.apply after the
 * tunnels: hop processes and interfaces first (so the ruleset knows which are up), then the
 * routing table in one nft transaction, then `ip rule`/routes, then the domain resolver.
 * Never throws: every failure is an outbound's or the routing's outcome.
 */

export const DEFAULT_ROUTING_TABLE = 'warren_routing';

/** The redirector guard could not be loaded: no redirector may run. */
class GuardMissing extends Error {}

/** Whether hops may target forbidden addresses, and the node's own addresses when they may not. */
interface TargetRule {
  allowPrivate: boolean;
  own: readonly string[];
}

export interface HopContext {
  /** The host's links at the start of the apply, or null when they could not be read. */
  links: Map<string, Link> | null;
  /** Tunnel interfaces that are up: the traffic routing applies to. */
  tunnels: string[];
  /** Their gateway addresses (the resolver listens there). */
  tunnelAddresses: string[];
  probe: HostProbe;
}

export class HopHost {
  private state: HopState | undefined;

  constructor(
    private readonly runner: CommandRunner,
    private readonly stateDir: string,
    readonly table: string = DEFAULT_ROUTING_TABLE,
  ) {}

  private load(): HopState {
    this.state ??= loadHopState(this.stateDir);
    return this.state;
  }

  private save(): void {
    saveHopState(this.stateDir, this.load());
  }

  /** Hops the agent runs whose process died or interface vanished (a watchdog's cue). */
  async missing(): Promise<string[]> {
    const state = this.load();
    const missing: string[] = [];
    let names: Set<string> | null = null;
    for (const [slot, hop] of state.hops) {
      if (hop.kind === 'wireguard') {
        names ??= await readLinkNames(this.runner);
        if (hop.interfaceName && !names.has(hop.interfaceName)) missing.push(hop.interfaceName);
      } else if (!isOurDaemon(hop.pid, hopFiles(this.stateDir, slot).config))
        missing.push(`${HOP_PROGRAM[hop.kind]} of ${hop.tag}`);
    }
    if (state.resolver.configText !== null && !isOurDaemon(state.resolver.pid, resolverFiles(this.stateDir).config))
      missing.push('dnsmasq');
    return missing;
  }

  async apply(
    desired: DesiredState,
    context: HopContext,
  ): Promise<{ outbounds: OutboundOutcome[]; routing: RoutingOutcome }> {
    const state = this.load();
    const outbounds = desired.outbounds ?? [];
    const routing = desired.routing ?? DEFAULT_ROUTING;
    // A node that never had hops or routing does nothing here (and writes no hops.json).
    const nothingWanted = outbounds.length === 0 && JSON.stringify(routing) === JSON.stringify(DEFAULT_ROUTING);
    if (
      nothingWanted &&
      state.hops.size === 0 &&
      !state.routingTable &&
      !state.guardTable &&
      state.resolver.configText === null
    )
      return { outbounds: [], routing: { state: 'up', rules: 0 } };
    const outcomes: OutboundOutcome[] = [];
    const hopRoutes = new Map<string, HopRoute>();
    const wireguardRoutes: WireguardHopRoute[] = [];

    // Duplicates (the controller never sends them) fail rather than fight over one slot or name.
    const wanted = new Map<number, DesiredOutbound>();
    const tags = new Set<string>();
    const names = new Set<string>();
    for (const outbound of outbounds) {
      const name = outbound.config.kind === 'wireguard' ? outbound.config.interfaceName : null;
      const problem = wanted.has(outbound.slot)
        ? `slot ${outbound.slot} is used twice`
        : tags.has(outbound.tag) || outbound.tag === 'direct' || outbound.tag === 'blocked'
          ? `tag ${outbound.tag} is used twice`
          : name && (names.has(name) || context.tunnels.includes(name))
            ? `interface ${name} is used twice`
            : null;
      if (problem) {
        outcomes.push({ tag: outbound.tag, state: 'failed', error: problem });
        continue;
      }
      wanted.set(outbound.slot, outbound);
      tags.add(outbound.tag);
      if (name) names.add(name);
    }

    // What is no longer wanted, or changed kind or interface, goes first: its slot or name may be reused.
    for (const [slot, hop] of [...state.hops]) {
      const next = wanted.get(slot);
      const same =
        next &&
        next.config.kind === hop.kind &&
        (next.config.kind !== 'wireguard' || next.config.interfaceName === hop.interfaceName);
      if (!same) await this.teardown(slot, hop, context.links);
    }

    // The guard first: no redirector may listen before direct connections to it are dropped.
    const proxiesWanted = [...wanted.values()].some((outbound) => outbound.config.kind !== 'wireguard');
    const guardError = proxiesWanted ? await this.loadGuard(context) : null;
    const targets: TargetRule = {
      allowPrivate: desired.allowPrivateTargets === true,
      own: desired.allowPrivateTargets === true ? [] : await this.nodeAddresses(context),
    };
    for (const [slot, outbound] of wanted) {
      const numbers = hopNumbers(slot);
      let error: string | null = null;
      try {
        if (outbound.config.kind === 'wireguard') await this.applyWireguard(slot, outbound, context, targets);
        else if (guardError !== null)
          throw new GuardMissing(
            `the redirector guard could not be loaded, so no redirector may listen (it would be an open proxy): ${guardError}`,
          );
        else await this.applyProxy(slot, outbound, outbound.config, targets);
      } catch (e) {
        // A forbidden target, or no guard: what runs of the hop (an older config) stops too.
        const running = state.hops.get(slot);
        if ((e instanceof ForbiddenHopTarget || e instanceof GuardMissing) && running)
          await this.teardown(slot, running, context.links);
        error = errorText(e);
      }
      const wireguardName = outbound.config.kind === 'wireguard' ? outbound.config.interfaceName : null;
      hopRoutes.set(outbound.tag, {
        id: outbound.id,
        kind: outbound.config.kind,
        mark: numbers.mark,
        port: numbers.port,
        up: error === null,
        interfaceName: wireguardName,
      });
      if (outbound.config.kind === 'wireguard' && state.hops.has(slot)) {
        wireguardRoutes.push({
          slot,
          interfaceName: outbound.config.interfaceName,
          address: outbound.config.address.split('/')[0],
          up: error === null,
        });
      }
      outcomes.push(
        error === null ? { tag: outbound.tag, state: 'up' } : { tag: outbound.tag, state: 'failed', error },
      );
    }
    // The guard goes after the last redirector.
    if (state.guardTable && ![...state.hops.values()].some((hop) => hop.kind !== 'wireguard')) await this.dropGuard();
    this.save();

    const routingOutcome = await this.applyRouting(routing, context, hopRoutes, wireguardRoutes);
    this.save();
    return { outbounds: outcomes, routing: routingOutcome };
  }

  /** Loads the redirector guard table (routing-ruleset.ts); the reason when it could not be. */
  private async loadGuard(context: HopContext): Promise<string | null> {
    if (!context.probe.capabilities.nft) return 'nftables (nft) not installed';
    const state = this.load();
    try {
      const file = join(this.stateDir, 'redirector-guard.nft');
      writeFileAtomic(file, renderRedirectorGuard(this.table), { durable: false });
      state.guardTable = true;
      this.save();
      await this.runner.run('nft', ['-f', file]);
      return null;
    } catch (error) {
      return errorText(error);
    }
  }

  private async dropGuard(): Promise<void> {
    const state = this.load();
    try {
      const file = join(this.stateDir, 'redirector-guard.nft');
      writeFileAtomic(file, `table ip ${this.table}_guard {}\ndelete table ip ${this.table}_guard\n`, {
        durable: false,
      });
      await this.runner.run('nft', ['-f', file]);
      rmSync(file, { force: true });
      state.guardTable = false;
    } catch {
      // Kept as "may exist": the next apply tries again.
    }
  }

  /** The node's own addresses (its links'), for the forbidden-target check. */
  private async nodeAddresses(context: HopContext): Promise<string[]> {
    const links = context.links ?? (await readLinks(this.runner).catch(() => null));
    return links
      ? [...links.values()].flatMap((link) => link.addresses.map((address) => address.local))
      : ownAddresses();
  }

  private async applyProxy(
    slot: number,
    outbound: DesiredOutbound,
    config: ProxyHop,
    targets: TargetRule,
  ): Promise<void> {
    const state = this.load();
    const program = HOP_PROGRAM[config.kind];
    if (!(program === 'redsocks' ? this.tools.redsocks : this.tools.ssRedir)) {
      // Checked again on every apply: installing the package needs no agent restart.
      if (!(await toolInstalled(this.runner, program))) {
        throw new Error(
          `${program} is not installed (Debian package ${program === 'redsocks' ? 'redsocks' : 'shadowsocks-libev'}): ${config.kind} hops cannot run on this host`,
        );
      }
      if (program === 'redsocks') this.tools.redsocks = true;
      else this.tools.ssRedir = true;
    }
    const files = hopFiles(this.stateDir, slot);
    const address = await resolveHopHost(this.runner, config.host);
    assertAllowedHopTarget(config.host, address, targets.allowPrivate, targets.own);
    const rendered = renderProxyHop(config, address, hopNumbers(slot).port, files);
    const sha256 = createHash('sha256').update(rendered.text).digest('hex');
    const current = state.hops.get(slot);
    if (current && current.configSha256 === sha256 && isOurDaemon(current.pid, files.config)) {
      current.tag = outbound.tag;
      return;
    }
    if (current) await stopDaemon(current.pid, files.config);
    const entry: ManagedHop = {
      tag: outbound.tag,
      kind: config.kind,
      pid: null,
      configSha256: null,
      interfaceName: null,
      driver: null,
    };
    state.hops.set(slot, entry);
    writeFileAtomic(files.config, rendered.text, { durable: false });
    try {
      entry.pid = await startDaemon(this.runner, rendered.daemon);
    } catch (error) {
      if (error instanceof CommandError && error.reason === 'not-found')
        this.tools[program === 'redsocks' ? 'redsocks' : 'ssRedir'] = false;
      throw error;
    }
    entry.configSha256 = sha256;
  }

  private readonly tools = { redsocks: false, ssRedir: false, dnsmasq: false };

  private async applyWireguard(
    slot: number,
    outbound: DesiredOutbound,
    context: HopContext,
    targets: TargetRule,
  ): Promise<void> {
    const given = outbound.config as Extract<DesiredOutbound['config'], { kind: 'wireguard' }>;
    const endpoint = await resolveEndpointHost(this.runner, given.endpointHost);
    assertAllowedHopTarget(given.endpointHost, endpoint, targets.allowPrivate, targets.own);
    const config = { ...given, endpointHost: endpoint };
    const state = this.load();
    const name = tunnelArg(config.interfaceName);
    if (!context.links) throw new Error("cannot read the host's interfaces");
    const caps = context.probe.capabilities;
    if (!caps.wg) throw new Error('wireguard-tools (wg) not installed: the hop interface cannot be configured');
    const link = context.links.get(name);
    let current = state.hops.get(slot);
    if (link && !current)
      throw new Error(`an interface named ${name} exists that this agent did not create; it is left alone`);
    const driver = current?.driver ?? (caps.wireguardKernel ? 'kernel' : caps.wireguardGo ? 'wireguard-go' : null);
    if (!driver) throw new Error('no WireGuard implementation: no kernel module and wireguard-go is not installed');
    if (!current) {
      current = { tag: outbound.tag, kind: 'wireguard', pid: null, configSha256: null, interfaceName: name, driver };
      state.hops.set(slot, current);
      this.save();
    }
    current.tag = outbound.tag;
    try {
      const { sha256 } = await reconcileWireguardHop(
        this.runner,
        this.stateDir,
        slot,
        config,
        link,
        driver,
        link ? current.configSha256 : null,
      );
      current.configSha256 = sha256;
    } catch (error) {
      current.configSha256 = null;
      if (!link) {
        // Creating failed: nothing of ours may exist under that name (it may be someone else's elsewhere).
        const names = await readLinkNames(this.runner).catch(() => new Set<string>());
        if (!names.has(name)) state.hops.delete(slot);
      }
      throw error;
    }
  }

  private async teardown(slot: number, hop: ManagedHop, links: Map<string, Link> | null): Promise<void> {
    try {
      if (hop.kind === 'wireguard') {
        if (hop.interfaceName && hop.driver)
          await removeLink(this.runner, hop.interfaceName, hop.driver, links?.has(hop.interfaceName) ?? true);
        rmSync(wireguardHopConfigPath(this.stateDir, slot), { force: true });
      } else {
        const files = hopFiles(this.stateDir, slot);
        await stopDaemon(hop.pid, files.config);
        for (const file of Object.values(files)) rmSync(file, { force: true });
      }
    } catch {
      // Gone already, or not removable now: it is no longer ours to track.
    }
    this.load().hops.delete(slot);
  }

  private async applyRouting(
    routing: typeof DEFAULT_ROUTING,
    context: HopContext,
    hops: Map<string, HopRoute>,
    wireguard: WireguardHopRoute[],
  ): Promise<RoutingOutcome> {
    const state = this.load();
    const isDefault =
      hops.size === 0 && routing.rules.length === 0 && routing.defaultOutbound === 'direct' && !hasLists(routing);
    if (isDefault && !state.routingTable) return { state: 'up', rules: 0 };
    if (!context.probe.capabilities.nft)
      return { state: 'failed', rules: 0, error: 'nftables (nft) not installed: routing rules cannot be applied' };
    const errors: string[] = [];
    let rendered = 0;
    try {
      const live = await readLiveRoutingTable(this.runner, this.table);
      const render = (redirectDns: boolean) =>
        renderRuleset({
          table: this.table,
          routing: isDefault ? DEFAULT_ROUTING : routing,
          tunnels: isDefault ? [] : context.tunnels,
          hops,
          counters: live.counters,
          hopCounters: live.hopCounters,
          domainElements: live.domainElements,
          redirectDns,
        });
      let ruleset = render(true);
      for (const [name, domains] of ruleset.domainSets)
        ruleset.domainSets.set(
          name,
          domains.filter((d) => domainName.safeParse(d).success),
        );
      // The resolver before the table: clients' DNS is redirected to it only while it runs (a
      // redirect to nothing would take their DNS away).
      try {
        state.resolver = await reconcileResolver(
          this.runner,
          this.stateDir,
          this.table,
          context.tunnelAddresses,
          ruleset.domainSets,
          state.resolver,
        );
      } catch (error) {
        state.resolver = { pid: null, configText: null };
        errors.push(`domain rules not active: the resolver (dnsmasq) did not start: ${errorText(error)}`);
      }
      if (ruleset.dnsInterfaces.length && state.resolver.pid === null) ruleset = render(false);
      rendered = ruleset.rules;
      // The same table as last loaded (counters aside) that still holds all its rules is not
      // loaded again: a no-op apply of 1,000 rules costs the read instead of read + load.
      const sha256 = createHash('sha256')
        .update(ruleset.text.replace(/packets \d+ bytes \d+/g, ''))
        .digest('hex');
      const unchanged = live.exists && sha256 === state.routingSha256 && live.counters.size === rendered;
      if (!unchanged) {
        const file = join(this.stateDir, 'routing.nft');
        writeFileAtomic(file, ruleset.text, { durable: false });
        state.routingTable = true;
        state.routingSha256 = null;
        await this.runner.run('nft', ['-f', file]);
        state.routingTable = !isDefault;
        state.routingSha256 = isDefault ? null : sha256;
      }
    } catch (error) {
      errors.push(`routing table not loaded: ${errorText(error)}`);
    }
    try {
      await reconcilePolicyRoutes(this.runner, this.stateDir, wireguard, routing.failClosed);
    } catch (error) {
      errors.push(`policy routes: ${errorText(error)}`);
    }
    return errors.length
      ? { state: 'failed', rules: rendered, error: errors.join('; ') }
      : { state: 'up', rules: rendered };
  }
}

/** Whether the basics ask for anything (failClosed alone does not: with no hop there is nothing to fail). */
function hasLists(r: typeof DEFAULT_ROUTING): boolean {
  return (
    r.blockBitTorrent ||
    r.blockIps.length + r.blockDomains.length + r.blockPorts.length + r.directIps.length + r.directDomains.length > 0
  );
}

/** Whether the program runs at all (only "not found" counts as missing). */
async function toolInstalled(runner: CommandRunner, program: string): Promise<boolean> {
  try {
    await runner.run(program, ['-h'], { timeoutMs: 5000 });
    return true;
  } catch (error) {
    return !(error instanceof CommandError && (error.reason === 'not-found' || error.reason === 'spawn'));
  }
}
