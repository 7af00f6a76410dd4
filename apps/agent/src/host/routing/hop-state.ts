import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '#libs/files/atomic-file.js';
import type { Driver } from '../managed-state.js';

/**
 * `hops.json` in the state directory: the hops the agent runs, by slot (a Map: numbers, never
 * an object's prototype), with what identifies them as the agent's own: a daemon's pid (checked
 * against its config file before every signal) or the interface it created. Written before a
 * hop is created, like managed.json.
 */

export interface ManagedHop {
  tag: string;
  kind: 'wireguard' | 'socks' | 'http' | 'shadowsocks';
  /** Proxy hops: the redirector's pid. */
  pid: number | null;
  /** SHA-256 of the config last loaded/started with. */
  configSha256: string | null;
  /** WireGuard hops: the interface and its driver. */
  interfaceName: string | null;
  driver: Driver | null;
}

export interface HopState {
  /** The agent's routing table may exist. */
  routingTable: boolean;
  /** SHA-256 of the ruleset last loaded, counters left out (the no-op check). */
  routingSha256: string | null;
  hops: Map<number, ManagedHop>;
  /** The redirector guard table (`<table>_guard`) may exist. */
  guardTable: boolean;
  resolver: { pid: number | null; configText: string | null };
}

const FILE = 'hops.json';

export function loadHopState(stateDir: string): HopState {
  let parsed: {
    routingTable?: boolean;
    routingSha256?: string | null;
    guardTable?: boolean;
    hops?: Record<string, ManagedHop>;
    resolver?: HopState['resolver'];
  } = {};
  try {
    parsed = JSON.parse(readFileSync(join(stateDir, FILE), 'utf8')) as typeof parsed;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const hops = new Map<number, ManagedHop>();
  for (const [slot, hop] of Object.entries(parsed.hops ?? {}))
    if (Number.isInteger(Number(slot))) hops.set(Number(slot), hop);
  return {
    routingTable: parsed.routingTable ?? false,
    routingSha256: parsed.routingSha256 ?? null,
    guardTable: parsed.guardTable ?? false,
    hops,
    resolver: parsed.resolver ?? { pid: null, configText: null },
  };
}

export function saveHopState(stateDir: string, state: HopState): void {
  const file = {
    routingTable: state.routingTable,
    routingSha256: state.routingSha256,
    guardTable: state.guardTable,
    hops: Object.fromEntries(state.hops),
    resolver: state.resolver,
  };
  writeFileAtomic(join(stateDir, FILE), `${JSON.stringify(file, null, 1)}\n`);
}
