import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { applyDelta, type DesiredDelta } from '#libs/contracts/desired-delta.js';
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

/** What to do with a delta job (see ApplyRecord.fit). */
export type DeltaFit =
  | { verdict: 'fits'; state: DesiredState }
  | { verdict: 'stale'; result: ApplyResult }
  | { verdict: 'gap'; appliedRevision: number };

/**
 * Deltas journalled on top of the last whole record before it is written whole again: each
 * delta costs one small append, and a restart replays at most this many.
 */
const MAX_JOURNAL_ENTRIES = 200;
/** The same, by the journal's size (deltas of many peers at once). */
const MAX_JOURNAL_BYTES = 4 * 2 ** 20;

interface JournalEntry {
  delta: DesiredDelta;
  result: ApplyResult;
}

/**
 * The one record of applies (`applied.json`), written after every apply, and the one
 * stale-revision guard. A partly failed apply is kept as the state to re-apply and as the
 * newest revision applied, but `revision` moves only when the host matches it completely, so a
 * node with a failed interface is never reported in sync.
 *
 * A delta (libs/contracts/desired-delta.ts) is recorded by appending it to `applied.json.journal`
 * instead of rewriting the whole state (8 MB at 60,000 peers, tens of ms): the record in memory
 * is the merged whole state, and loading replays the journal on top of the file. A torn last line
 * (a crash mid-append) is dropped: the agent then reports the revision before it and is sent the
 * whole state.
 */
export class ApplyRecord {
  private current: AppliedRecord;
  private readonly journal: string;
  private journalEntries = 0;
  private journalBytes = 0;

  constructor(private readonly file: string) {
    this.journal = `${file}.journal`;
    const stored = readJsonFile<Partial<AppliedRecord>>(file);
    this.current = { revision: stored?.revision ?? 0, state: stored?.state ?? null, result: stored?.result ?? null };
    this.replay();
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

  /**
   * Whether a delta applies on top of what was last applied: `fits` (with the whole state it
   * leads to), `stale` (its revision is applied already: that outcome stands), or `gap` (its base
   * is not the revision last applied, or nothing was: the whole state is needed).
   */
  fit(delta: DesiredDelta): DeltaFit {
    const { state, result } = this.current;
    const appliedRevision = state?.revision ?? 0;
    if (!state || !result || state.nodeId !== delta.nodeId) return { verdict: 'gap', appliedRevision };
    if (delta.revision <= state.revision) return { verdict: 'stale', result };
    const merged = applyDelta(state, delta);
    return merged ? { verdict: 'fits', state: merged } : { verdict: 'gap', appliedRevision };
  }

  record(state: DesiredState, result: ApplyResult): void {
    this.current = { revision: result.ok ? state.revision : this.current.revision, state, result };
    writeJsonAtomic(this.file, this.current);
    rmSync(this.journal, { force: true });
    this.journalEntries = 0;
    this.journalBytes = 0;
  }

  /** A delta applied: `state` is the whole state it led to (fit's). */
  recordDelta(delta: DesiredDelta, state: DesiredState, result: ApplyResult): void {
    if (this.journalEntries >= MAX_JOURNAL_ENTRIES || this.journalBytes >= MAX_JOURNAL_BYTES) {
      this.record(state, result);
      return;
    }
    this.current = { revision: result.ok ? state.revision : this.current.revision, state, result };
    const line = `${JSON.stringify({ delta, result } satisfies JournalEntry)}\n`;
    // Not flushed to disk: a process crash keeps what the kernel was given, and a power loss
    // takes the host's interfaces too (they are rebuilt from the record either way). A lost tail
    // only makes the agent report an older revision, which is sent the whole state.
    const fd = openSync(this.journal, 'a', 0o600);
    try {
      writeSync(fd, line);
    } finally {
      closeSync(fd);
    }
    this.journalEntries++;
    this.journalBytes += line.length;
  }

  /** Applies the journal's deltas on top of the whole record just read (see the class). */
  private replay(): void {
    let text: string;
    try {
      text = readFileSync(this.journal, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    this.journalBytes = text.length;
    for (const line of text.split('\n')) {
      if (line === '') continue;
      let entry: JournalEntry;
      try {
        entry = JSON.parse(line) as JournalEntry;
      } catch {
        break; // torn by a crash: what follows it cannot be there
      }
      this.journalEntries++;
      const state = this.current.state;
      // Entries the whole record already holds (a crash between writing it and dropping the journal).
      if (!state || entry.delta.revision <= state.revision) continue;
      const merged = applyDelta(state, entry.delta);
      if (!merged) break;
      this.current = {
        revision: entry.result.ok ? merged.revision : this.current.revision,
        state: merged,
        result: entry.result,
      };
    }
  }
}
