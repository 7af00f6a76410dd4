import { join } from 'node:path';
import type { PeerCounters } from '#libs/contracts/agent-link.js';
import type { PeerReading } from '../host/index.js';
import { readJsonFile, writeJsonAtomic } from '#libs/files/atomic-file.js';


export interface CounterBatch {
  seq: number;
  at: number;
  peers: PeerCounters[];
}

/** [rx, tx, lastHandshake] per "interface publicKey". */
type Baseline = Record<string, [number, number, number | null]>;

interface SpoolFile {
  nextSeq: number;
  baseline: Baseline;
  pending: CounterBatch | null;
}

/**
 * Turns absolute counters into deltas that reach the controller exactly once.
 *
 * One batch is in flight at a time. Reading, cutting a batch and moving the baseline are one
 * atomic file write, made before the batch is sent: a crash before it leaves the bytes in the
 * kernel counters for the next reading, a crash after it resends the same batch (same sequence
 * number, which the controller records once). While a batch waits for its acknowledgement no new
 * one is cut; traffic meanwhile stays in the counters and goes into the next batch, so an outage
 * of any length costs one batch of memory, not one per interval.
 *
 * A counter lower than the baseline means the interface was re-created (counters restart at 0):
 * the new value is the delta. A peer absent from the reading leaves the baseline (a removed and
 * re-added peer starts from 0 again).
 */
export class CounterSpool {
  private state: SpoolFile;
  private readonly file: string;

  constructor(dataDir: string) {
    this.file = join(dataDir, 'counters.json');
    this.state = readJsonFile<SpoolFile>(this.file) ?? { nextSeq: 1, baseline: {}, pending: null };
  }

  /** The batch waiting for its acknowledgement, if any. */
  get pending(): CounterBatch | null {
    return this.state.pending;
  }

  /**
   * Cuts the next batch from a reading, unless one is still in flight or nothing moved.
   * Returns the batch to send (already on disk).
   */
  cut(readings: readonly PeerReading[], at = Date.now()): CounterBatch | null {
    if (this.state.pending) return null;
    const baseline: Baseline = {};
    const peers: PeerCounters[] = [];
    for (const reading of readings) {
      const key = `${reading.interface} ${reading.publicKey}`;
      const before = this.state.baseline[key];
      baseline[key] = [reading.rxBytes, reading.txBytes, reading.lastHandshake];
      let rx = reading.rxBytes;
      let tx = reading.txBytes;
      if (before && reading.rxBytes >= before[0] && reading.txBytes >= before[1]) {
        rx -= before[0];
        tx -= before[1];
      }
      const handshakeMoved = reading.lastHandshake !== null && reading.lastHandshake !== (before?.[2] ?? null);
      if (rx === 0 && tx === 0 && !handshakeMoved) continue;
      peers.push({
        interface: reading.interface,
        publicKey: reading.publicKey,
        rxBytes: rx,
        txBytes: tx,
        lastHandshake: reading.lastHandshake,
        endpoint: reading.endpoint,
      });
    }
    const batch = peers.length > 0 ? { seq: this.state.nextSeq, at, peers } : null;
    this.state = { nextSeq: this.state.nextSeq + (batch ? 1 : 0), baseline, pending: batch };
    // Without a batch the baseline moved only where nothing counts: new or vanished peers, or
    // counters that restarted at 0. Losing that to a crash is harmless (a lower reading than the
    // baseline is a restart, and its value is the delta), so the disk is spared a write per tick.
    if (batch) this.save();
    else this.saveLazily();
    return batch;
  }

  /** The controller recorded this batch (or an older one). */
  acknowledge(seq: number): void {
    if (this.state.pending && this.state.pending.seq <= seq) {
      this.state.pending = null;
      this.save();
    }
  }

  /**
   * The controller's word on the link's start: the last sequence number it recorded. A pending
   * batch at or below it is done; numbering continues above it even if this host lost its spool
   * (otherwise new batches would look like repeats and be dropped).
   */
  resume(recordedSeq: number): void {
    if (this.state.pending && this.state.pending.seq <= recordedSeq) this.state.pending = null;
    if (this.state.nextSeq <= recordedSeq) this.state.nextSeq = recordedSeq + 1;
    this.save();
  }

  private lazyTimer?: NodeJS.Timeout;

  private saveLazily(): void {
    this.lazyTimer ??= setTimeout(() => {
      this.lazyTimer = undefined;
      this.save();
    }, 30_000);
    this.lazyTimer.unref();
  }

  private save(): void {
    clearTimeout(this.lazyTimer);
    this.lazyTimer = undefined;
    writeJsonAtomic(this.file, this.state);
  }
}
