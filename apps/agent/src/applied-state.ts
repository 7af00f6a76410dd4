import { join } from 'node:path';
import type { DesiredState } from '#libs/contracts/desired-state.js';
import type { ApplyResult } from '#libs/contracts/node-queue.js';
import { readJsonFile, writeJsonAtomic } from '#libs/files/atomic-file.js';

interface AppliedFile {
  /** The revision the host fully matches (every interface up), 0 before the first. */
  revision: number;
  /** The state last applied, re-applied at start and by the watchdog (vanished interfaces). */
  state: DesiredState | null;
}

/**
 * What this host has applied, kept across agent restarts: the revision reported in hello (so a
 * host that lost its state reports that it is behind) and the state to re-apply when the host
 * drifts (an interface deleted, a reboot).
 */
export class AppliedState {
  private file: string;
  private current: AppliedFile;
  /** The outcome of the latest apply in this process, reported again after a reconnect. */
  lastResult?: ApplyResult;

  constructor(dataDir: string) {
    this.file = join(dataDir, 'applied.json');
    this.current = readJsonFile<AppliedFile>(this.file) ?? { revision: 0, state: null };
  }

  get revision(): number {
    return this.current.revision;
  }

  get state(): DesiredState | null {
    return this.current.state;
  }

  record(state: DesiredState, result: ApplyResult): void {
    this.lastResult = result;
    // A partly failed apply is kept as the state to re-apply, but the revision moves only when
    // the host matches it completely.
    this.current = { revision: result.ok ? state.revision : this.current.revision, state };
    writeJsonAtomic(this.file, this.current);
  }
}
