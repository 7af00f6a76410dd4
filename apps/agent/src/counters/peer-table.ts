/** [rx, tx, lastHandshake] of one peer, as the spool keeps it (the file's form). */
export type PeerCounts = [number, number, number | null];

/** One peer's counts in memory, changed in place; `seen` is the last reading round that listed it. */
export interface PeerEntry {
  rx: number;
  tx: number;
  handshake: number | null;
  seen: number;
}

/** A change for the journal: the peer's counts now, or [interface, publicKey] alone when it left. */
export type PeerChange = [string, string, number, number, number | null] | [string, string];

/**
 * Counts per peer, by interface then public key, kept in memory and changed in place: a round in
 * which a peer did not move costs one look-up and no allocation (a whole new object of every peer
 * each round was half of the agent's counter CPU at 100,000 peers, docs/benchmarks.md). What
 * changed since the last `takeChanges()` is remembered by key, so the journal gets only that.
 */
export class PeerTable {
  private readonly byInterface = new Map<string, Map<string, PeerEntry>>();
  private readonly dirty = new Map<string, Set<string>>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  get(iface: string, publicKey: string): PeerEntry | undefined {
    return this.byInterface.get(iface)?.get(publicKey);
  }

  /** Adds or replaces a peer's entry. */
  put(iface: string, publicKey: string, rx: number, tx: number, handshake: number | null, seen = 0): PeerEntry {
    let peers = this.byInterface.get(iface);
    if (!peers) this.byInterface.set(iface, (peers = new Map()));
    let entry = peers.get(publicKey);
    if (entry) {
      entry.rx = rx;
      entry.tx = tx;
      entry.handshake = handshake;
      entry.seen = seen;
    } else {
      peers.set(publicKey, (entry = { rx, tx, handshake, seen }));
      this.count++;
    }
    this.changed(iface, publicKey);
    return entry;
  }

  delete(iface: string, publicKey: string): void {
    const peers = this.byInterface.get(iface);
    if (!peers?.delete(publicKey)) return;
    this.count--;
    if (peers.size === 0) this.byInterface.delete(iface);
    this.changed(iface, publicKey);
  }

  /** Records that an entry was changed in place (it goes into the next journal record). */
  changed(iface: string, publicKey: string): void {
    let keys = this.dirty.get(iface);
    if (!keys) this.dirty.set(iface, (keys = new Set()));
    keys.add(publicKey);
  }

  get hasChanges(): boolean {
    return this.dirty.size > 0;
  }

  /** Each peer changed since the last call, as it stands now (absent: deleted); forgets them. */
  takeChanges(): PeerChange[] {
    const changes: PeerChange[] = [];
    for (const [iface, keys] of this.dirty) {
      const peers = this.byInterface.get(iface);
      for (const key of keys) {
        const entry = peers?.get(key);
        changes.push(entry ? [iface, key, entry.rx, entry.tx, entry.handshake] : [iface, key]);
      }
    }
    this.dirty.clear();
    return changes;
  }

  /** Forgets what changed (a snapshot of the whole table is being written instead). */
  forgetChanges(): void {
    this.dirty.clear();
  }

  /** Applies a journal record's changes (a reload), without marking them changed again. */
  replay(changes: readonly PeerChange[]): void {
    for (const change of changes) {
      if (change.length === 2) this.delete(change[0], change[1]);
      else this.put(change[0], change[1], change[2], change[3], change[4]);
    }
    this.dirty.clear();
  }

  *entries(): IterableIterator<[string, string, PeerEntry]> {
    for (const [iface, peers] of this.byInterface) for (const [key, entry] of peers) yield [iface, key, entry];
  }

  /** Drops the entries not seen in round `round` (peers gone from the reading); their keys become changes. */
  dropUnseen(round: number): void {
    for (const [iface, peers] of this.byInterface) {
      for (const [key, entry] of peers) {
        if (entry.seen === round) continue;
        peers.delete(key);
        this.count--;
        this.changed(iface, key);
      }
      if (peers.size === 0) this.byInterface.delete(iface);
    }
  }

  clear(): void {
    for (const [iface, peers] of this.byInterface) for (const key of peers.keys()) this.changed(iface, key);
    this.byInterface.clear();
    this.count = 0;
  }

  /**
   * The file's form: "interface publicKey" → [rx, tx, lastHandshake]. A plain object is safe as
   * one: every key holds a space, which no name on Object.prototype (`__proto__`...) does.
   */
  toRecord(): Record<string, PeerCounts> {
    const record: Record<string, PeerCounts> = {};
    for (const [iface, key, entry] of this.entries()) record[`${iface} ${key}`] = [entry.rx, entry.tx, entry.handshake];
    return record;
  }

  static fromRecord(record: Record<string, PeerCounts> | undefined): PeerTable {
    const table = new PeerTable();
    for (const [name, [rx, tx, handshake]] of Object.entries(record ?? {})) {
      const space = name.indexOf(' ');
      table.put(name.slice(0, space), name.slice(space + 1), rx, tx, handshake);
    }
    table.dirty.clear();
    return table;
  }
}
