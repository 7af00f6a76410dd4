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
import { PeerTable } from './peer-table.js';
import { readSpoolFiles, SpoolJournal, type JournalRecord, type SpoolState } from './spool-journal.js';

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

/** The spool as on disk, in the snapshot's form (spool-journal.ts). */
export type SpoolFile = SpoolState<CounterBatch>;

/** A round that moved no counter writes its baseline changes (peers come and gone) this often at most. */
const LAZY_WRITE_MS = 30_000;

/** The spool's state in memory: the baseline and carry as tables changed in place. */
interface LoadedSpool {
  nextSeq: number;
  pending: CounterBatch | null;
  baselineUnknown: boolean;
  readAt?: number;
  hops?: HopBaseline;
  baseline: PeerTable;
  carry: PeerTable;
}

/** The spool in a data directory: its snapshot with the journal replayed (undefined: none). */
function loadSpool(
  dataDir: string,
): { spool: LoadedSpool; files: NonNullable<ReturnType<typeof readSpoolFiles>> } | undefined {
  const files = readSpoolFiles<CounterBatch>(dataDir);
  if (!files) return undefined;
  const { snapshot } = files;
  const spool: LoadedSpool = {
    nextSeq: snapshot.nextSeq,
    pending: snapshot.pending,
    baselineUnknown: snapshot.baselineUnknown === true,
    readAt: snapshot.readAt,
    hops: snapshot.hops,
    baseline: PeerTable.fromRecord(snapshot.baseline),
    carry: PeerTable.fromRecord(snapshot.carry),
  };
  for (const record of files.records) {
    spool.nextSeq = record.nextSeq;
    spool.pending = record.pending;
    spool.baselineUnknown = record.baselineUnknown === true;
    spool.readAt = record.readAt;
    spool.hops = record.hops;
    if (record.b) spool.baseline.replay(record.b);
    if (record.c) spool.carry.replay(record.c);
  }
  return { spool, files };
}

function toFile(spool: LoadedSpool): SpoolFile {
  return {
    nextSeq: spool.nextSeq,
    baseline: spool.baseline.toRecord(),
    pending: spool.pending,
    ...(spool.baselineUnknown ? { baselineUnknown: true } : {}),
    ...(spool.readAt === undefined ? {} : { readAt: spool.readAt }),
    ...(spool.carry.size > 0 ? { carry: spool.carry.toRecord() } : {}),
    ...(spool.hops === undefined ? {} : { hops: spool.hops }),
  };
}

/**
 * The spool of a data directory as the agent would load it (its snapshot with the journal
 * replayed), in the snapshot's form; undefined when there is none. Read only: safe beside a
 * running agent (a record it is appending is not whole yet and is left out).
 */
export function readCounterSpool(dataDir: string): SpoolFile | undefined {
  const loaded = loadSpool(dataDir);
  return loaded && toFile(loaded.spool);
}

function sameHops(a: HopBaseline | undefined, b: HopBaseline): boolean {
  if (a === undefined) return Object.keys(b).length === 0;
  const keys = Object.keys(b);
  if (Object.keys(a).length !== keys.length) return false;
  return keys.every((id) => Object.hasOwn(a, id) && a[id][0] === b[id][0] && a[id][1] === b[id][1]);
}

/**
 * Turns absolute counters into deltas that reach the controller exactly once.
 *
 * One batch is in flight at a time. Reading, cutting a batch and moving the baseline are one
 * atomic durable step, made before the batch is sent: one journal record (the batch and the
 * baselines that moved), flushed to disk (spool-journal.ts). A crash before it is whole leaves
 * the bytes in the kernel counters for the next reading (a torn record is never replayed), a
 * crash after it resends the same batch (same sequence number, which the controller records
 * once). While a batch waits for its acknowledgement no new one is cut; traffic meanwhile stays
 * in the counters and goes into the next batch, so an outage of any length costs one batch of
 * memory, not one per interval.
 *
 * A counter lower than the baseline means the interface was re-created (counters restart at 0):
 * the new value is the delta. A peer absent from the reading leaves the baseline (a removed and
 * re-added peer starts from 0 again). A batch stays within the contract's bounds (peers per
 * batch, bytes per peer): the rest stays above the baseline for the next one.
 *
 * The cost of a round follows what moved: the baseline is a table changed in place (a peer that
 * did not move costs one look-up), and the disk gets the changed peers only, once per batch; a
 * round in which nothing moved writes nothing (see cut()).
 */
export class CounterSpool {
  private state!: LoadedSpool;
  private journal!: SpoolJournal;
  /** Reading rounds so far (a baseline entry's `seen` says the last one that listed it). */
  private round = 0;
  private lastWriteAt = Date.now();
  /** Carries so far (readingMark): a reading begun before one may hold a gone link's counters. */
  private carries = 0;
  /** A restart is under way (holdCuts() until carry()): no batch is cut meanwhile. */
  private holding = false;

  /** No spool file was found: a first start, or a spool lost (see baselineLost). */
  readonly started: boolean;

  /** `compactAtBytes`: the journal's size that makes a snapshot at least (tests make it small). */
  constructor(
    private readonly dataDir: string,
    private readonly options: { compactAtBytes?: number } = {},
  ) {
    this.started = this.load();
  }

  /** Reads the spool from disk into memory (a start, or after a failed write); true when none was found. */
  private load(): boolean {
    const { dataDir, options } = this;
    const loaded = loadSpool(dataDir);
    this.state = loaded?.spool ?? {
      nextSeq: 1,
      pending: null,
      baselineUnknown: false,
      baseline: new PeerTable(),
      carry: new PeerTable(),
    };
    this.journal = new SpoolJournal(
      dataDir,
      loaded && {
        generation: loaded.files.snapshot.generation ?? 0,
        validBytes: loaded.files.validBytes,
        journalBytes: loaded.files.journalBytes,
      },
      options.compactAtBytes,
    );
    return loaded === undefined;
  }

  /**
   * Runs a write of the spool. Should it fail (a full disk, an I/O error), memory may hold what
   * the disk does not (a batch cut, baselines moved, their changes taken for the record): so
   * memory goes back to what the disk holds, and the error goes on. The batch is then not sent,
   * and the next reading cuts it again from the durable baseline: no byte sent that a restart
   * would count again.
   */
  private written(write: () => void): void {
    try {
      write();
    } catch (error) {
      this.journal.close();
      this.load();
      throw error;
    }
  }

  /**
   * The spool was lost while the host kept its interfaces (the agent had applied a state before):
   * their counters hold bytes already reported, and how many is gone with the spool. Counting
   * them again would charge clients twice, so the next reading becomes the baseline and only
   * what moves after it is counted. The price is what moved between the last recorded batch and
   * that reading (at most one report interval plus the downtime); charging less is the lesser wrong.
   */
  baselineLost(): void {
    this.state.baseline.clear();
    this.state.pending = null;
    this.state.baselineUnknown = true;
    this.snapshot();
  }

  /**
   * An interface was re-created (a restart): `final` is its last reading from the old link, whose
   * counters are gone. What those peers moved since the baseline is carried into the next batch,
   * and their baseline goes, so the new link's counters count from 0. One durable record, made
   * after the old link is gone: a crash before it loses at most what moved since the last reading
   * (the new counters, below the old baseline, count as a re-creation), and never counts a byte twice.
   */
  carry(final: readonly PeerReading[]): void {
    this.carries++;
    this.holding = false;
    if (final.length === 0 || this.state.baselineUnknown) return;
    const { baseline, carry } = this.state;
    for (const reading of final) {
      const before = baseline.get(reading.interface, reading.publicKey);
      const continues = before !== undefined && reading.rxBytes >= before.rx && reading.txBytes >= before.tx;
      const rx = reading.rxBytes - (continues ? before.rx : 0);
      const tx = reading.txBytes - (continues ? before.tx : 0);
      baseline.delete(reading.interface, reading.publicKey);
      const held = carry.get(reading.interface, reading.publicKey);
      carry.put(
        reading.interface,
        reading.publicKey,
        (held?.rx ?? 0) + rx,
        (held?.tx ?? 0) + tx,
        reading.lastHandshake ?? held?.handshake ?? null,
      );
    }
    this.record(true);
  }

  /**
   * A restart begins: no batch is cut until its carry(). Its last reading of the old link comes
   * next; a batch cut between that reading and the carry would move the baseline past it (or drop
   * the peers, their socket already gone), and the carry would then count the old link's bytes
   * in full a second time. The traffic meanwhile stays in the counters for the next batch.
   */
  holdCuts(): void {
    this.carries++;
    this.holding = true;
  }

  /**
   * To take before a reading and give to cut(). A reading is awaited while an apply may restart an
   * interface: begun before the restart, it holds the old link's counters, whose baseline the
   * carry just removed, so cutting it would count the old link's bytes a second time. Such a
   * reading is dropped (cut() returns null) and the next round reads again.
   */
  readingMark(): number {
    return this.carries;
  }

  /** The batch waiting for its acknowledgement, if any. */
  get pending(): CounterBatch | null {
    return this.state.pending;
  }

  /**
   * Cuts the next batch from a reading, unless one is still in flight, nothing moved, a restart
   * is under way (holdCuts), or the reading began before a carry (`mark` from readingMark() then). Returns the batch to send (already on disk).
   *
   * A round without a batch writes nothing at once: its baseline moved only where nothing counts
   * (new peers at 0, vanished peers, counters that restarted at 0, hops likewise) and the time of
   * the reading. Losing that to a crash is harmless: a peer missing from the baseline counts its
   * whole counter, which is then what it moved since it came; a lower reading than the baseline
   * is a restart, and its value is the delta; the next batch's `since` is then an older reading's
   * time (a lower rate, no byte more or less). Such changes are written, not flushed, every
   * LAZY_WRITE_MS at most, and with the next batch's record in any case.
   */
  cut(
    readings: readonly PeerReading[],
    at = Date.now(),
    hopReadings: readonly HopReading[] | null = [],
    mark = this.carries,
  ): CounterBatch | null {
    if (this.state.pending || this.holding || mark !== this.carries) return null;
    if (this.state.baselineUnknown) {
      const { baseline } = this.state;
      baseline.clear();
      for (const r of readings) baseline.put(r.interface, r.publicKey, r.rxBytes, r.txBytes, r.lastHandshake);
      const hops: HopBaseline = {};
      for (const r of hopReadings ?? []) hops[r.id] = [r.upBytes, r.downBytes];
      this.state.carry.clear();
      this.state = { ...this.state, pending: null, baselineUnknown: false, readAt: at, hops };
      this.snapshot();
      return null;
    }
    const round = ++this.round;
    const { hops, hopBaseline } = this.hopDeltas(hopReadings);
    const peers: PeerCounters[] = [];
    let seen = 0;
    for (const reading of readings) seen += this.step(reading, round, peers);
    // Carried bytes are sent whether or not the peer shows up again (gone with the restart, or
    // not handshaken on the new link yet): as a reading of 0 for each carried peer not read.
    if (this.state.carry.size > 0) {
      const unread: PeerReading[] = [];
      for (const [iface, publicKey, held] of this.state.carry.entries()) {
        if (this.state.baseline.get(iface, publicKey)?.seen === round) continue;
        unread.push({
          interface: iface,
          publicKey,
          rxBytes: 0,
          txBytes: 0,
          lastHandshake: held.handshake,
          endpoint: null,
        });
      }
      for (const reading of unread) seen += this.step(reading, round, peers);
    }
    // Peers absent from the reading leave the baseline: found without a walk when none did.
    if (seen < this.state.baseline.size) this.state.baseline.dropUnseen(round);
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
    const hopsChanged = !sameHops(this.state.hops, hopBaseline);
    this.state.nextSeq += batch ? 1 : 0;
    this.state.pending = batch;
    this.state.readAt = at;
    this.state.hops = hopBaseline;
    if (batch) this.record(true);
    else if (
      (hopsChanged || this.state.baseline.hasChanges || this.state.carry.hasChanges) &&
      Date.now() - this.lastWriteAt >= LAZY_WRITE_MS
    )
      this.record(false);
    return batch;
  }

  /**
   * One peer's reading against its baseline: moves the baseline, takes carried bytes, and adds
   * the peer to the batch if it moved. Returns 1 when this is the round's first sight of a peer
   * the baseline holds (or now holds), else 0: the count that tells whether any peer vanished.
   */
  private step(reading: PeerReading, round: number, peers: PeerCounters[]): number {
    const { baseline, carry } = this.state;
    const before = baseline.get(reading.interface, reading.publicKey);
    const first = before === undefined || before.seen !== round ? 1 : 0;
    const held = carry.size > 0 ? carry.get(reading.interface, reading.publicKey) : undefined;
    // Nothing moved and nothing carried (most peers, most rounds): the baseline stands as it is.
    if (
      before !== undefined &&
      held === undefined &&
      reading.rxBytes === before.rx &&
      reading.txBytes === before.tx &&
      reading.lastHandshake === before.handshake
    ) {
      before.seen = round;
      return first;
    }
    // Counters below the baseline: the interface was re-created and counts from 0 again.
    const continues = before !== undefined && reading.rxBytes >= before.rx && reading.txBytes >= before.tx;
    const fromRx = continues ? before.rx : 0;
    const fromTx = continues ? before.tx : 0;
    const handshakeBefore = before?.handshake ?? null;
    // The contract bounds a batch (agent-link.ts): what is beyond it stays above the baseline
    // and goes into the next batch, so no byte is lost and none counted twice.
    const rx = Math.min(reading.rxBytes - fromRx, MAX_PEER_BYTES_PER_BATCH);
    const tx = Math.min(reading.txBytes - fromTx, MAX_PEER_BYTES_PER_BATCH);
    // Bytes of the peer's old link (a restart re-created it): they go with this batch.
    const heldRx = held ? Math.min(held.rx, MAX_PEER_BYTES_PER_BATCH - rx) : 0;
    const heldTx = held ? Math.min(held.tx, MAX_PEER_BYTES_PER_BATCH - tx) : 0;
    const handshakeMoved = reading.lastHandshake !== null && reading.lastHandshake !== handshakeBefore;
    const moved = rx + heldRx > 0 || tx + heldTx > 0 || handshakeMoved;
    if (moved && peers.length >= MAX_PEERS_PER_BATCH) {
      // The batch is full: this peer waits for the next.
      baseline.put(reading.interface, reading.publicKey, fromRx, fromTx, handshakeBefore, round);
      return first;
    }
    baseline.put(reading.interface, reading.publicKey, fromRx + rx, fromTx + tx, reading.lastHandshake, round);
    if (held) {
      if (heldRx === held.rx && heldTx === held.tx) carry.delete(reading.interface, reading.publicKey);
      else carry.put(reading.interface, reading.publicKey, held.rx - heldRx, held.tx - heldTx, held.handshake);
    }
    if (!moved) return first;
    peers.push({
      interface: reading.interface,
      publicKey: reading.publicKey,
      rxBytes: rx + heldRx,
      txBytes: tx + heldTx,
      lastHandshake: reading.lastHandshake,
      // An endpoint the contract cannot carry (never seen from wg) is left out, not the batch.
      endpoint: reading.endpoint !== null && peerEndpoint.safeParse(reading.endpoint).success ? reading.endpoint : null,
    });
    return first;
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

  /** The controller recorded this batch (or an older one). */
  acknowledge(seq: number): void {
    if (this.state.pending && this.state.pending.seq <= seq) {
      this.state.pending = null;
      this.record(true);
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
    this.record(true);
  }

  /** Appends what changed since the last record to the journal; `durable`: flushed before returning. */
  private record(durable: boolean): void {
    const { state } = this;
    const record: JournalRecord<CounterBatch> = {
      nextSeq: state.nextSeq,
      pending: state.pending,
      ...(state.readAt === undefined ? {} : { readAt: state.readAt }),
      ...(state.baselineUnknown ? { baselineUnknown: true } : {}),
      ...(state.hops === undefined ? {} : { hops: state.hops }),
      ...(state.baseline.hasChanges ? { b: state.baseline.takeChanges() } : {}),
      ...(state.carry.hasChanges ? { c: state.carry.takeChanges() } : {}),
    };
    this.written(() => this.journal.append(record, durable, () => toFile(state)));
    this.lastWriteAt = Date.now();
  }

  /** The whole state as a new snapshot (a whole-state change: a lost or re-taken baseline). */
  private snapshot(): void {
    this.state.baseline.forgetChanges();
    this.state.carry.forgetChanges();
    this.written(() => this.journal.compact(toFile(this.state)));
    this.lastWriteAt = Date.now();
  }
}
