import {
  closeSync,
  existsSync,
  mkdirSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { readJsonFile, writeFileAtomic } from '#libs/files/atomic-file.js';
import type { PeerChange, PeerCounts } from './peer-table.js';

/**
 * The counter spool on disk: a snapshot (`counters.json`, the whole state, replaced atomically)
 * and a journal beside it (`counters.<generation>.journal`) of what changed since: one line per
 * record, appended and flushed with each batch, so a round writes what moved, not every peer.
 *
 * A record is `<crc32 hex> <json>\n`. On load the records are replayed in order up to the first
 * one that is cut short or fails its checksum: that one, and anything after it, was never
 * flushed (a flush makes every byte before it durable), so no batch it led to was sent. The tail
 * is cut off there before anything is appended again.
 *
 * Compaction writes a new snapshot under the next generation once the journal outgrows the last
 * snapshot (so the snapshots cost no more than the journal did), then starts an empty journal of
 * that generation: the snapshot names its generation, so a crash anywhere in between leaves
 * either the old snapshot with its journal or the new one, and a journal of another generation
 * is stale and never replayed.
 */

/** The state the spool keeps, in the snapshot's form (counters.json; older files lack `generation`). */
export interface SpoolState<Batch> {
  nextSeq: number;
  baseline: Record<string, PeerCounts>;
  pending: Batch | null;
  baselineUnknown?: boolean;
  readAt?: number;
  carry?: Record<string, PeerCounts>;
  hops?: Record<string, [number, number]>;
  /** Which journal goes with this snapshot. Absent in older files: 0. */
  generation?: number;
}

/** One journal record: the scalars as they stand, and the peers that changed since the last record. */
export interface JournalRecord<Batch> {
  nextSeq: number;
  pending: Batch | null;
  readAt?: number;
  baselineUnknown?: boolean;
  hops?: Record<string, [number, number]>;
  /** Baseline changes. */
  b?: PeerChange[];
  /** Carry changes. */
  c?: PeerChange[];
}

const SNAPSHOT = 'counters.json';
const JOURNAL = /^counters\.(\d+)\.journal$/;
const journalName = (generation: number) => `counters.${generation}.journal`;

/** A journal never shorter than this is compacted, whatever the snapshot's size (tiny spools). */
export const MIN_COMPACT_BYTES = 1 << 20;

export function encodeRecord(record: unknown): string {
  const json = JSON.stringify(record);
  return `${crc32(json).toString(16)} ${json}\n`;
}

/** The records of a journal's text up to the first torn or corrupt one, and the bytes they take. */
export function decodeJournal<Batch>(text: Buffer): { records: JournalRecord<Batch>[]; validBytes: number } {
  const records: JournalRecord<Batch>[] = [];
  let at = 0;
  while (at < text.length) {
    const end = text.indexOf(0x0a, at);
    if (end === -1) break; // cut short: never flushed whole
    const line = text.toString('utf8', at, end);
    const space = line.indexOf(' ');
    const json = line.slice(space + 1);
    if (space < 1 || line.slice(0, space) !== crc32(json).toString(16)) break;
    let record: JournalRecord<Batch>;
    try {
      record = JSON.parse(json) as JournalRecord<Batch>;
    } catch {
      break;
    }
    records.push(record);
    at = end + 1;
  }
  return { records, validBytes: at };
}

/** Fsyncs a directory, so the renames and new files in it survive a crash. */
function syncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The snapshot, and the journal of its generation if there is one (read only: nothing is repaired). */
export function readSpoolFiles<Batch>(
  dataDir: string,
):
  | { snapshot: SpoolState<Batch>; records: JournalRecord<Batch>[]; validBytes: number; journalBytes: number }
  | undefined {
  const snapshot = readJsonFile<SpoolState<Batch>>(join(dataDir, SNAPSHOT));
  if (!snapshot) return undefined;
  const journal = join(dataDir, journalName(snapshot.generation ?? 0));
  const text = existsSync(journal) ? readFileSync(journal) : Buffer.alloc(0);
  return { snapshot, ...decodeJournal<Batch>(text), journalBytes: text.length };
}

/**
 * Appends records to the journal and writes snapshots; owns the journal's file descriptor. Opened
 * on a spool read from disk (see readSpoolFiles) or on none.
 */
export class SpoolJournal {
  private fd: number | null = null;
  private generation: number;
  private journalBytes: number;
  private snapshotBytes: number;
  /** No snapshot on disk yet: the first write is one (a journal never stands without its snapshot). */
  private needsSnapshot: boolean;

  constructor(
    private readonly dataDir: string,
    found: { generation: number; validBytes: number; journalBytes: number } | undefined,
    private readonly compactAtBytes = MIN_COMPACT_BYTES,
  ) {
    this.generation = found?.generation ?? 0;
    this.needsSnapshot = found === undefined;
    this.journalBytes = found?.validBytes ?? 0;
    this.snapshotBytes = found ? statSync(join(dataDir, SNAPSHOT)).size : 0;
    // Journals of other generations are stale (a compaction cut short, or a spool lost with its
    // snapshot): never replayed, removed so that no later snapshot can take them for its own.
    if (existsSync(dataDir)) {
      for (const name of readdirSync(dataDir)) {
        const match = JOURNAL.exec(name);
        if (match && (this.needsSnapshot || Number(match[1]) !== this.generation)) rmSync(join(dataDir, name));
      }
    }
    // A torn tail (records never flushed whole) goes before anything is appended after it.
    if (found && found.validBytes < found.journalBytes) {
      const fd = this.open();
      ftruncateSync(fd, found.validBytes);
      fsyncSync(fd);
    }
  }

  /**
   * Appends one record; `durable`: flushed to disk before this returns (a batch is sent after).
   * Compacts when the journal has outgrown the snapshot (`snapshot` gives the whole state then).
   */
  append<Batch>(record: JournalRecord<Batch>, durable: boolean, snapshot: () => SpoolState<Batch>): void {
    if (this.needsSnapshot) return this.compact(snapshot());
    const bytes = Buffer.from(encodeRecord(record));
    const fd = this.open();
    try {
      // writeSync may write part of it (a disk filling up) without throwing: the rest follows.
      for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done);
      if (durable) fsyncSync(fd);
    } catch (error) {
      // Nothing after a torn record would be replayed: the file goes back to its last whole one.
      try {
        ftruncateSync(fd, this.journalBytes);
      } catch {
        // The next load cuts the torn tail itself.
      }
      throw error;
    }
    this.journalBytes += bytes.length;
    if (this.journalBytes >= Math.max(this.compactAtBytes, this.snapshotBytes)) this.compact(snapshot());
  }

  /** Writes the whole state as a snapshot of the next generation and starts its empty journal. */
  compact<Batch>(state: SpoolState<Batch>): void {
    const next = this.generation + 1;
    this.close();
    mkdirSync(this.dataDir, { recursive: true, mode: 0o700 });
    // The new journal exists before the snapshot naming it, both made durable by one directory
    // flush: records appended after this find their file whatever a crash does to the directory.
    const fd = openSync(join(this.dataDir, journalName(next)), 'w', 0o600);
    const text = JSON.stringify({ ...state, generation: next });
    writeFileAtomic(join(this.dataDir, SNAPSHOT), text);
    syncDirectory(this.dataDir);
    if (!this.needsSnapshot) rmSync(join(this.dataDir, journalName(this.generation)), { force: true });
    this.fd = fd;
    this.generation = next;
    this.journalBytes = 0;
    this.snapshotBytes = Buffer.byteLength(text);
    this.needsSnapshot = false;
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  private open(): number {
    this.fd ??= openSync(join(this.dataDir, journalName(this.generation)), 'a', 0o600);
    return this.fd;
  }
}
