import type { CommandRunner } from '../command-runner.js';
import { parseRoutingTable } from './routing-table-state.js';

/** Packets the link message allows per rule and report (libs/contracts/agent-link.ts). */
const MAX_PACKETS = 2 ** 44;

/**
 * Routing rules' hits as deltas for the `rule-hits` link message: the counters of the rules in the
 * agent's routing table (one `nft -j list chain`), minus what was last reported. The table carries
 * its counters across applies (routing-ruleset.ts), so a re-apply is no reset. The first reading
 * after the agent starts is the baseline (what happened before it was reported before the
 * restart, or is lost: never counted twice); a counter that went down (table removed and made
 * again by hand) starts over from zero. `commit()` moves the baseline only once the message was
 * handed to the link, so hits read while the controller is unreachable are sent later.
 */
export class RuleHitReader {
  private baseline: Map<string, number> | null = null;
  private pending: Map<string, number> | null = null;

  constructor(
    private readonly runner: CommandRunner,
    private readonly table: () => string,
  ) {}

  async read(): Promise<{ id: string; packets: number }[]> {
    let stdout: string;
    try {
      ({ stdout } = await this.runner.run('nft', ['-j', 'list', 'chain', 'ip', this.table(), 'route']));
    } catch {
      return []; // no routing table: no rules, no hits
    }
    const now = new Map<string, number>();
    for (const [id, counter] of parseRoutingTable(stdout).counters) now.set(id, (now.get(id) ?? 0) + counter.packets);
    if (this.baseline === null) {
      this.baseline = now;
      return [];
    }
    const hits: { id: string; packets: number }[] = [];
    for (const [id, packets] of now) {
      const before = this.baseline.get(id) ?? 0;
      const delta = packets >= before ? packets - before : packets;
      if (delta > 0) hits.push({ id, packets: Math.min(delta, MAX_PACKETS) });
    }
    this.pending = now;
    return hits;
  }

  /** The hits last read were delivered: they are the new baseline. */
  commit(): void {
    if (this.pending) this.baseline = this.pending;
    this.pending = null;
  }
}
