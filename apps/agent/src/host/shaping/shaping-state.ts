import { join } from 'node:path';
import { readJsonFile, writeJsonAtomic } from '#libs/files/atomic-file.js';
import type { ShapedInterface } from './shaping-plan.js';

/**
 * `shaping.json` in the host state directory: per tunnel, the ifb, tables, classes and filter
 * handles the agent loaded, so the next apply changes only what differs. The kernel is still the
 * judge: an apply whose check does not find the qdiscs this promises rebuilds them
 * (shaping-plan.ts). A Map, as managed-state.ts explains, for names such as `__proto__`.
 */
const FILE = 'shaping.json';

export function loadShapingState(stateDir: string): Map<string, ShapedInterface> {
  try {
    const stored = readJsonFile<Record<string, ShapedInterface>>(join(stateDir, FILE));
    return new Map(Object.entries(stored ?? {}));
  } catch {
    // Unreadable: as if nothing were recorded, so every shaped tunnel is rebuilt from scratch.
    return new Map();
  }
}

export function saveShapingState(stateDir: string, state: Map<string, ShapedInterface>): void {
  writeJsonAtomic(join(stateDir, FILE), Object.fromEntries(state));
}
