import type { CommandRunner } from '../command-runner.js';
import { parseHopCounters } from './hop-counters.js';
import type { Counter } from './routing-ruleset.js';

/**
 * What the agent's routing table holds right now, from one `nft -j list table`: each rule's
 * counter by rule id (the rule's comment), the hops' traffic counters and the addresses the resolver put into domain sets.
 * Read before the table is replaced, so both are carried into the new one.
 */

export interface LiveRoutingTable {
  exists: boolean;
  counters: Map<string, Counter>;
  /** The hops' traffic counters by name (hop-counters.ts). */
  hopCounters: Map<string, Counter>;
  domainElements: Map<string, string[]>;
}

interface NftJson {
  nftables?: Array<{
    rule?: { chain?: string; comment?: string; expr?: Array<{ counter?: { packets?: number; bytes?: number } }> };
    set?: { name?: string; elem?: unknown[] };
  }>;
}

export async function readLiveRoutingTable(runner: CommandRunner, table: string): Promise<LiveRoutingTable> {
  let stdout: string;
  try {
    ({ stdout } = await runner.run('nft', ['-j', 'list', 'table', 'ip', table]));
  } catch {
    // No such table (first apply, or removed by hand): nothing to carry.
    return { exists: false, counters: new Map(), hopCounters: new Map(), domainElements: new Map() };
  }
  return { exists: true, ...parseRoutingTable(stdout) };
}

export function parseRoutingTable(json: string): Omit<LiveRoutingTable, 'exists'> {
  const counters = new Map<string, Counter>();
  const domainElements = new Map<string, string[]>();
  const hopCounters = parseHopCounters(json);
  const parsed = JSON.parse(json) as NftJson;
  for (const item of parsed.nftables ?? []) {
    if (item.rule?.comment && item.rule.chain === 'route') {
      const counter = item.rule.expr?.find((e) => e.counter)?.counter;
      if (counter) counters.set(item.rule.comment, { packets: counter.packets ?? 0, bytes: counter.bytes ?? 0 });
    } else if (item.set?.name?.startsWith('d_') && Array.isArray(item.set.elem)) {
      const values: string[] = [];
      for (const elem of item.set.elem) {
        if (typeof elem === 'string') values.push(elem);
        else if (elem && typeof elem === 'object' && 'elem' in elem) {
          const val = (elem as { elem?: { val?: unknown } }).elem?.val;
          if (typeof val === 'string') values.push(val);
        }
      }
      domainElements.set(item.set.name, values);
    }
  }
  return { counters, hopCounters, domainElements };
}
