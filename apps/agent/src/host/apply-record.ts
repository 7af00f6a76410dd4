import type { DesiredState } from '#libs/contracts/desired-state.js';
import type { ApplyResult } from '#libs/contracts/node-queue.js';
import { readJsonFile, writeJsonAtomic } from '#libs/files/atomic-file.js';

/** What the host has applied: the agent's one record of it, kept across restarts. */
export interface AppliedRecord {
  /** The revision the host fully matches (every interface up), 0 before the first: what hello reports. */
  revision: number;
  /** The state last applied, whatever its outcome: re-applied at start and by the watchdog. */
  state: DesiredState | null;
  /** That apply's outcome; reported again after a reconnect, and its revision bounds stale jobs. */
  result: ApplyResult | null;
}

/**
 * The one record of applies (`applied.json`), written after every apply, and the one
 * stale-revision guard. A partly failed apply is kept as the state to re-apply and as the
 * newest revision applied, but `revision` moves only when the host matches it completely, so a
 * node with a failed interface is never reported in sync.
 */
export class ApplyRecord {
  private current: AppliedRecord;

  constructor(private readonly file: string) {
    const stored = readJsonFile<Partial<AppliedRecord>>(file);
    this.current = { revision: stored?.revision ?? 0, state: stored?.state ?? null, result: stored?.result ?? null };
  }

  get applied(): Readonly<AppliedRecord> {
    return this.current;
  }

  /**
   * An older job than the newest one applied (queued before it, taken after it) must not undo
   * it: that apply's outcome stands instead. Undefined when `desired` is to be applied.
   */
  supersededBy(desired: DesiredState): ApplyResult | undefined {
    const { state, result } = this.current;
    if (!state || !result || state.nodeId !== desired.nodeId || desired.revision >= result.revision) return undefined;
    return result;
  }

  record(state: DesiredState, result: ApplyResult): void {
    this.current = { revision: result.ok ? state.revision : this.current.revision, state, result };
    writeJsonAtomic(this.file, this.current);
  }
}
