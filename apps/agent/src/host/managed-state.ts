import { chmodSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '#libs/files/atomic-file.js';

/**
 * The agent's memory of the host, kept in `managed.json` in its state directory: which
 * interfaces it created (only those are ever changed or deleted), how, and what it last
 * loaded into each. Revisions and outcomes are not kept here but in the apply record
 * (apply-record.ts). Written before an interface is created, so a crash between the two leaves
 * an interface the agent still knows is its own.
 */

export type Driver = 'kernel' | 'wireguard-go';

export interface ManagedInterface {
  driver: Driver;
  /** SHA-256 of the config file last loaded with `wg syncconf`; null until one was. */
  configSha256: string | null;
  /** The peers that config holds. */
  peers: number;
  /**
   * The link's index when that config was loaded (a re-created link has a new one); null until
   * an apply after the one that created the link has seen it.
   */
  ifindex: number | null;
  /**
   * The restart serial (desired-state.ts) last applied; absent in files of older agents, where
   * the first apply records it without restarting.
   */
  restartSerial?: number;
}

export interface ManagedState {
  /** The agent's NAT table may exist (it has loaded one with rules, or failed to remove one). */
  natTable: boolean;
  /**
   * By interface name. A Map, not an object: an interface named `__proto__` (a valid Linux
   * name) assigned into an object sets its prototype instead of a key, so it would come up
   * and never be recorded, removed or counted.
   */
  interfaces: Map<string, ManagedInterface>;
}

const FILE = 'managed.json';

function empty(): ManagedState {
  return { natTable: false, interfaces: new Map() };
}

/** Creates the directory (0700: configs in it hold private keys) and reads the state, or starts empty. */
export function loadManagedState(stateDir: string): ManagedState {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  // mkdir's mode is ignored for an existing directory (and masked by umask for a new one).
  chmodSync(stateDir, 0o700);
  let text: string;
  try {
    text = readFileSync(join(stateDir, FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return empty();
    throw error;
  }
  const parsed = JSON.parse(text) as { natTable?: boolean; interfaces?: Record<string, ManagedInterface> };
  // Only the known fields: files of older agents also carry the revision, now in the apply record.
  // JSON.parse makes `"__proto__"` an own key, which Object.entries lists like any other.
  return { natTable: parsed.natTable ?? false, interfaces: new Map(Object.entries(parsed.interfaces ?? {})) };
}

/**
 * Replaces the file atomically (write, then rename): a crash leaves the old or the new state.
 * `durable: false` skips the wait for the disk, for what only matters while the host's
 * interfaces live (a power loss takes them too).
 */
export function saveManagedState(stateDir: string, state: ManagedState, options: { durable?: boolean } = {}): void {
  // Object.fromEntries defines own keys (never the prototype), so `__proto__` is written too.
  const file = { natTable: state.natTable, interfaces: Object.fromEntries(state.interfaces) };
  writeFileAtomic(join(stateDir, FILE), `${JSON.stringify(file, null, 1)}\n`, options);
}
