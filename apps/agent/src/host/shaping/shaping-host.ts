import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { DesiredInterface } from '#libs/contracts/desired-state.js';
import type { InterfaceOutcome } from '#libs/contracts/node-queue.js';
import { writeFileAtomic } from '#libs/files/atomic-file.js';
import { errorText, type CommandRunner } from '../command-runner.js';
import { qdiscFacts } from './qdisc-facts.js';
import { ifbName, planInterface, type InterfacePlan, type ShapedInterface } from './shaping-plan.js';
import { loadShapingState, saveShapingState } from './shaping-state.js';
import { missingTools, probeShaping, type ShapingTools } from './shaping-tools.js';

/**
 * Applies clients' speed limits to the tunnels that are up (shaping-plan.ts says how) and removes
 * them from tunnels that no longer have any or are gone. Whatever the number of peers, an apply
 * runs at most: one `tc qdisc show` (the check), one `ip -batch` before (ifb devices made), one
 * `tc -batch` with every tunnel's changes, one `ip -batch` after (ifb devices removed); a node
 * with no limits and nothing recorded runs nothing. A failure never stops the tunnel: it is an
 * error on the tunnel's outcome (the node is then not in sync), and the tunnel is rebuilt next time.
 */

export interface ShapingTarget {
  iface: DesiredInterface;
  outcome: InterfaceOutcome;
}

export class ShapingHost {
  private state: Map<string, ShapedInterface> | undefined;
  /** Found by probing again after the host's probe (probeHost) said something was missing. */
  private reprobed: ShapingTools | undefined;

  constructor(
    private readonly runner: CommandRunner,
    private readonly stateDir: string,
  ) {}

  /**
   * `up`: tunnels that are up, with their limits. `desired`: every tunnel still wanted (one that
   * failed this time keeps its shaping as it is); the rest recorded here are gone, and so is
   * their ifb.
   */
  async apply(up: readonly ShapingTarget[], desired: ReadonlySet<string>, probed: ShapingTools): Promise<void> {
    const state = (this.state ??= loadShapingState(this.stateDir));
    const targets = up.filter((t) => (t.iface.speedLimits?.length ?? 0) > 0 || state.has(t.iface.name));
    const gone = [...state.keys()].filter((name) => !desired.has(name));
    if (targets.length === 0 && gone.length === 0) return;

    const limited = targets.filter((t) => (t.iface.speedLimits?.length ?? 0) > 0);
    let tools = this.reprobed ?? probed;
    if (limited.length > 0 && missingTools(tools)) {
      // Probed again while something is missing: installing it needs no agent restart.
      tools = this.reprobed = await probeShaping(this.runner, true);
    }
    const missing = missingTools(tools);
    if (missing) {
      for (const { iface, outcome } of limited)
        note(outcome, `speed limits of ${iface.speedLimits!.length} clients not enforced: ${missing}`);
      // Without tc nothing of ours can be on the host to remove but the ifb of a deleted tunnel.
      await this.removeGone(gone, state);
      return;
    }

    let plans = await this.plan(targets, state, false);
    try {
      await this.run(plans, gone, state);
    } catch {
      // A host that drifted from the record (a hand edit, a half-applied batch): rebuild once.
      plans = await this.plan(targets, state, true);
      try {
        await this.run(plans, gone, state);
      } catch (error) {
        for (const { iface, outcome } of targets) {
          state.delete(iface.name);
          if ((iface.speedLimits?.length ?? 0) > 0) note(outcome, `speed limits not applied: ${errorText(error)}`);
        }
        saveShapingState(this.stateDir, state);
        return;
      }
    }
    for (const { iface, outcome } of targets) {
      const problems = plans.get(iface.name)?.problems ?? [];
      if (problems.length > 0) note(outcome, `speed limits: ${problems.slice(0, 3).join('; ')}`);
    }
  }

  private async plan(
    targets: readonly ShapingTarget[],
    state: Map<string, ShapedInterface>,
    rebuild: boolean,
  ): Promise<Map<string, InterfacePlan>> {
    const plans = new Map<string, InterfacePlan>();
    if (targets.length === 0) return plans;
    const { stdout } = await this.runner.run('tc', ['qdisc', 'show']);
    for (const { iface } of targets) {
      const prev = rebuild ? null : (state.get(iface.name) ?? null);
      const ifb = prev?.ifb ?? ifbName(iface.name);
      const limits = iface.speedLimits ?? [];
      const facts = qdiscFacts(stdout, iface.name, ifb);
      const digest = createHash('sha256').update(JSON.stringify(limits)).digest('hex');
      // The same limits on a host that still shows our qdiscs: nothing to plan (10,000 clients
      // would take a diff of ~0.2 s of CPU to find nothing).
      if (prev && prev.digest === digest && facts.tunnelHtb && facts.tunnelIngress && facts.ifbHtb) {
        plans.set(iface.name, { tc: [], ipBefore: [], ipAfter: [], next: prev, problems: [] });
        continue;
      }
      const plan = planInterface(iface.name, prev, limits, facts);
      if (plan.next) plan.next.digest = digest;
      plans.set(iface.name, plan);
    }
    return plans;
  }

  /** Runs the plans as one batch per tool and records what they leave behind. */
  private async run(
    plans: Map<string, InterfacePlan>,
    gone: string[],
    state: Map<string, ShapedInterface>,
  ): Promise<void> {
    const all = [...plans.values()];
    const nothing = all.every((p) => p.tc.length + p.ipBefore.length + p.ipAfter.length === 0);
    if (nothing && gone.length === 0) return;
    await this.batch(
      'ip',
      all.flatMap((p) => p.ipBefore),
    );
    await this.batch(
      'tc',
      all.flatMap((p) => p.tc),
    );
    await this.batch(
      'ip',
      all.flatMap((p) => p.ipAfter),
    );
    for (const [name, plan] of plans) {
      if (plan.next) state.set(name, plan.next);
      else state.delete(name);
    }
    await this.removeGone(gone, state);
    saveShapingState(this.stateDir, state);
  }

  /** A deleted tunnel took its qdiscs with it; its ifb is ours to delete. */
  private async removeGone(gone: string[], state: Map<string, ShapedInterface>): Promise<void> {
    if (gone.length === 0) return;
    // -force: an ifb already gone (deleted by hand, a host reboot) is no reason to stop.
    await this.batch(
      'ip',
      gone.map((name) => `link del ${state.get(name)!.ifb}`),
      true,
    ).catch(() => undefined);
    for (const name of gone) state.delete(name);
    saveShapingState(this.stateDir, state);
  }

  private async batch(tool: 'ip' | 'tc', lines: string[], force = false): Promise<void> {
    if (lines.length === 0) return;
    const file = join(this.stateDir, `shaping.${tool}`);
    writeFileAtomic(file, `${lines.join('\n')}\n`, { durable: false });
    // 10,000 limited peers are ~60,000 lines: tc reads them in well under the default limit.
    await this.runner.run(tool, [...(force ? ['-force'] : []), '-batch', file], { timeoutMs: 120_000 });
  }
}

function note(outcome: InterfaceOutcome, text: string): void {
  outcome.error = outcome.error ? `${outcome.error}; ${text}` : text;
}
