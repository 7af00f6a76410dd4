import { join } from 'node:path';
import {
  COUNTER_SEQ_WINDOW,
  MAX_PEER_BYTES_PER_BATCH,
  type HopCounters,
  MAX_PEERS_PER_BATCH,
  peerEndpoint,
  type PeerCounters,
} from '#libs/contracts/agent-link.js';
import type { PeerReading } from '../host/index.js';
import type { HopReading } from '../host/routing/hop-counters.js';
import { readJsonFile, writeJsonAtomic } from '#libs/files/atomic-file.js';

export interface CounterBatch {
  seq: number;
  at: number;
  /** When the previous reading was taken (the batch's bytes moved since then); absent on the first. */
  since?: number;
  peers: PeerCounters[];
  /** Hops that moved bytes (absent when none did). */
  hops?: HopCounters[];
}

/** [up, down] bytes per outbound id, as the hop counters last read (hop-counters.ts). */
type HopBaseline = Record<string, [number, number]>;

/**
 * [rx, tx, lastHandshake] per "interface publicKey". A plain object (it is the file's JSON), safe
 * as one: every key holds a space, which no name on Object.prototype (`__proto__`...) does.
 */
type Baseline = Record<string, [number, number, number | null]>;

function baselineKey(reading: PeerReading): string {
  return `${reading.interface} ${reading.publicKey}`;
}

interface SpoolFile {
  nextSeq: number;
  baseline: Baseline;
  pending: CounterBatch | null;
  /**
   * The counters on the host were already reported, up to a point this spool no longer knows
   * (it was lost): the next reading only sets the baseline. Absent in older files: false.
   */
  baselineUnknown?: boolean;
  /** When the baseline was read (ms); absent in older files and before the first reading. */
  readAt?: number;
  /**
   * Bytes of peers whose interface was re-created by a restart, read from the old link before it
   * went and not yet in a batch ("interface publicKey" → [rx, tx, lastHandshake]). Absent: none.
   */
  carry?: Baseline;
  /** The hops' counters at the last reading, by outbound id. Absent in older files: none read yet. */
  hops?: HopBaseline;
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
 * re-added peer starts from 0 again). A batch stays within the contract's bounds (peers per
 * batch, bytes per peer): the rest stays above the baseline for the next one.
 */
export class CounterSpool {
  private state: SpoolFile;
  private readonly file: string;

  /** No spool file was found: a first start, or a spool lost (see baselineUnknown). */
  readonly started: boolean;

  constructor(dataDir: string) {
    this.file = join(dataDir, 'counters.json');
    const found = readJsonFile<SpoolFile>(this.file);
    this.started = found === undefined;
    this.state = found ?? { nextSeq: 1, baseline: {}, pending: null };
  }

  /**
   * The spool was lost while the host kept its interfaces (the agent had applied a state before):
   * their counters hold bytes already reported, and how many is gone with the spool. Counting
   * them again would charge clients twice, so the next reading becomes the baseline and only
   * what moves after it is counted. The price is what moved between the last recorded batch and
   * that reading (at most one report interval plus the downtime); charging less is the lesser wrong.
   */
  baselineLost(): void {
    this.state = { ...this.state, baseline: {}, pending: null, baselineUnknown: true };
    this.save();
  }

  /**
   * An interface was re-created (a restart): `final` is its last reading from the old link, whose
   * counters are gone. What those peers moved since the baseline is carried into the next batch,
   * and their baseline goes, so the new link's counters count from 0. One atomic write, made after
   * the old link is gone: a crash before it loses at most what moved since the last reading (the
   * new counters, below the old baseline, count as a re-creation), and never counts a byte twice.
   */
  carry(final: readonly PeerReading[]): void {
    if (final.length === 0 || this.state.baselineUnknown) return;
    const baseline = { ...this.state.baseline };
    const carry: Baseline = { ...this.state.carry };
    for (const reading of final) {
      const key = baselineKey(reading);
      const before = baseline[key];
      const continues = before !== undefined && reading.rxBytes >= before[0] && reading.txBytes >= before[1];
      const rx = reading.rxBytes - (continues ? before[0] : 0);
      const tx = reading.txBytes - (continues ? before[1] : 0);
      delete baseline[key];
      const held = carry[key] ?? [0, 0, null];
      carry[key] = [held[0] + rx, held[1] + tx, reading.lastHandshake ?? held[2]];
    }
    this.state = { ...this.state, baseline, carry };
    this.save();
  }

  /** The batch waiting for its acknowledgement, if any. */
  get pending(): CounterBatch | null {
    return this.state.pending;
  }

  /**
   * Cuts the next batch from a reading, unless one is still in flight or nothing moved.
   * Returns the batch to send (already on disk).
   */
  cut(
    readings: readonly PeerReading[],
    at = Date.now(),
    hopReadings: readonly HopReading[] | null = [],
  ): CounterBatch | null {
    if (this.state.pending) return null;
    if (this.state.baselineUnknown) {
      const baseline: Baseline = {};
      for (const r of readings) baseline[baselineKey(r)] = [r.rxBytes, r.txBytes, r.lastHandshake];
      const hops: HopBaseline = {};
      for (const r of hopReadings ?? []) hops[r.id] = [r.upBytes, r.downBytes];
      this.state = { nextSeq: this.state.nextSeq, baseline, pending: null, readAt: at, hops };
      this.save();
      return null;
    }
    const { hops, hopBaseline } = this.hopDeltas(hopReadings);
    const baseline: Baseline = {};
    const peers: PeerCounters[] = [];
    const carried: Baseline = { ...this.state.carry };
    for (const reading of this.carriedOnly(readings)) {
      const key = baselineKey(reading);
      const before = this.state.baseline[key];
      // Counters below the baseline: the interface was re-created and counts from 0 again.
      const continues = before !== undefined && reading.rxBytes >= before[0] && reading.txBytes >= before[1];
      const fromRx = continues ? before[0] : 0;
      const fromTx = continues ? before[1] : 0;
      const handshakeBefore = before?.[2] ?? null;
      // The contract bounds a batch (agent-link.ts): what is beyond it stays above the baseline
      // and goes into the next batch, so no byte is lost and none counted twice.
      const rx = Math.min(reading.rxBytes - fromRx, MAX_PEER_BYTES_PER_BATCH);
      const tx = Math.min(reading.txBytes - fromTx, MAX_PEER_BYTES_PER_BATCH);
      // Bytes of the peer's old link (a restart re-created it): they go with this batch.
      const held = carried[key];
      const heldRx = held ? Math.min(held[0], MAX_PEER_BYTES_PER_BATCH - rx) : 0;
      const heldTx = held ? Math.min(held[1], MAX_PEER_BYTES_PER_BATCH - tx) : 0;
      const handshakeMoved = reading.lastHandshake !== null && reading.lastHandshake !== handshakeBefore;
      const moved = rx + heldRx > 0 || tx + heldTx > 0 || handshakeMoved;
      if (moved && peers.length >= MAX_PEERS_PER_BATCH) {
        baseline[key] = [fromRx, fromTx, handshakeBefore]; // the batch is full: this peer waits for the next
        continue;
      }
      baseline[key] = [fromRx + rx, fromTx + tx, reading.lastHandshake];
      if (held) {
        if (heldRx === held[0] && heldTx === held[1]) delete carried[key];
        else carried[key] = [held[0] - heldRx, held[1] - heldTx, held[2]];
      }
      if (!moved) continue;
      peers.push({
        interface: reading.interface,
        publicKey: reading.publicKey,
        rxBytes: rx + heldRx,
        txBytes: tx + heldTx,
        lastHandshake: reading.lastHandshake,
        // An endpoint the contract cannot carry (never seen from wg) is left out, not the batch.
        endpoint:
          reading.endpoint !== null && peerEndpoint.safeParse(reading.endpoint).success ? reading.endpoint : null,
      });
    }
    // The baseline moves at every reading, so a batch's bytes moved since the previous reading,
    // not since the previous batch: `since` is that reading's time (the controller's rate).
    const since = this.state.readAt !== undefined && this.state.readAt < at ? this.state.readAt : undefined;
    const batch =
      peers.length > 0 || hops.length > 0
        ? {
            seq: this.state.nextSeq,
            at,
            ...(since === undefined ? {} : { since }),
            peers,
            ...(hops.length > 0 ? { hops } : {}),
          }
        : null;
    this.state = {
      nextSeq: this.state.nextSeq + (batch ? 1 : 0),
      baseline,
      pending: batch,
      readAt: at,
      ...(Object.keys(carried).length > 0 ? { carry: carried } : {}),
      hops: hopBaseline,
    };
    // Without a batch the baseline moved only where nothing counts: new or vanished peers, or
    // counters that restarted at 0. Losing that to a crash is harmless (a lower reading than the
    // baseline is a restart, and its value is the delta), so the disk is spared a write per tick.
    if (batch) this.save();
    else this.saveLazily();
    return batch;
  }

  /**
   * The hops' deltas since the baseline, by the peers' rules: a counter below its baseline was
   * made again (the routing table went with the node's last tunnel) and counts from 0. A hop
   * absent from the reading leaves the baseline (its counters are gone with it). `null`: the
   * counters could not be read this time; the baseline stays and the bytes wait for a reading.
   */
  private hopDeltas(readings: readonly HopReading[] | null): { hops: HopCounters[]; hopBaseline: HopBaseline } {
    const before = this.state.hops ?? {};
    if (readings === null) return { hops: [], hopBaseline: before };
    const hops: HopCounters[] = [];
    const hopBaseline: HopBaseline = {};
    for (const reading of readings) {
      const was = Object.hasOwn(before, reading.id) ? before[reading.id] : undefined;
      const continues = was !== undefined && reading.upBytes >= was[0] && reading.downBytes >= was[1];
      const fromUp = continues ? was[0] : 0;
      const fromDown = continues ? was[1] : 0;
      const upBytes = Math.min(reading.upBytes - fromUp, MAX_PEER_BYTES_PER_BATCH);
      const downBytes = Math.min(reading.downBytes - fromDown, MAX_PEER_BYTES_PER_BATCH);
      hopBaseline[reading.id] = [fromUp + upBytes, fromDown + downBytes];
      if (upBytes > 0 || downBytes > 0) hops.push({ id: reading.id, upBytes, downBytes });
    }
    return { hops, hopBaseline };
  }

  /**
   * The reading, plus a zero reading of each carried peer it lacks (its peer gone with the
   * restart, or not handshaken on the new link yet): carried bytes are sent whether or not the
   * peer shows up again.
   */
  private carriedOnly(readings: readonly PeerReading[]): readonly PeerReading[] {
    const carry = this.state.carry;
    if (!carry) return readings;
    const read = new Set(readings.map(baselineKey));
    const extra: PeerReading[] = [];
    for (const [key, held] of Object.entries(carry)) {
      if (read.has(key)) continue;
      const space = key.indexOf(' ');
      extra.push({
        interface: key.slice(0, space),
        publicKey: key.slice(space + 1),
        rxBytes: 0,
        txBytes: 0,
        lastHandshake: held[2],
        endpoint: null,
      });
    }
    return extra.length === 0 ? readings : [...readings, ...extra];
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
    const { pending } = this.state;
    if (pending && pending.seq <= recordedSeq) this.state.pending = null;
    if (this.state.nextSeq <= recordedSeq) this.state.nextSeq = recordedSeq + 1;
    // Further ahead than the controller accepts (COUNTER_SEQ_WINDOW; say its database came back
    // from an older backup): numbering restarts right above its number. The waiting batch was
    // never recorded (its number is above the recorded one), so renumbering it is safe.
    if (this.state.nextSeq - 1 > recordedSeq + COUNTER_SEQ_WINDOW) {
      if (this.state.pending) this.state.pending = { ...this.state.pending, seq: recordedSeq + 1 };
      this.state.nextSeq = recordedSeq + (this.state.pending ? 2 : 1);
    }
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
