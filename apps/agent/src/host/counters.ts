import { existsSync } from 'node:fs';
import { isTunnelName } from '#libs/contracts/interface-names.js';
import { CommandError, type CommandRunner } from './command-runner.js';
import { readUapiCounters, UapiGone } from './uapi-counters.js';
import { socketPath } from './wireguard-link.js';

/**
 * Per-peer traffic counters of the agent's interfaces: from wireguard-go's UAPI socket, or with
 * one `wg show all dump` for interfaces that have none (the kernel module). Values are absolute, as WireGuard keeps them (since the interface came up); turning
 * them into deltas, and treating a drop as an interface restart, is the caller's job.
 */

export interface PeerReading {
  interface: string;
  publicKey: string;
  /** Bytes received from the peer (the client's upload). */
  rxBytes: number;
  /** Bytes sent to the peer (the client's download). */
  txBytes: number;
  /** Latest handshake, ms since the epoch; null when none yet. */
  lastHandshake: number | null;
  /** ip:port the peer's packets last came from; null when none yet. */
  endpoint: string | null;
}

/**
 * Parses `wg show all dump`: per interface one line of 5 tab-separated fields (name, private
 * key, public key, port, fwmark), then one line of 9 per peer: name, public key, preshared key,
 * endpoint, allowed IPs, latest handshake (s), rx, tx, keepalive. Only interfaces `wanted`
 * accepts are kept. Fields are cut with indexOf rather than split or a regex: no array or
 * match per line; measured 5-8 ms per 10,000 peers against 14-18 ms for either (docs/agent-host.md).
 */
export function parseWgDump(dump: string, wanted: (name: string) => boolean): PeerReading[] {
  const readings: PeerReading[] = [];
  let lastName = '';
  let lastWanted = false;
  let lineStart = 0;
  const length = dump.length;
  while (lineStart < length) {
    let lineEnd = dump.indexOf('\n', lineStart);
    if (lineEnd === -1) lineEnd = length;
    const t1 = dump.indexOf('\t', lineStart);
    if (t1 !== -1 && t1 < lineEnd) {
      const name = dump.slice(lineStart, t1);
      // Lines of one interface come together: ask about each name once, not once per peer.
      if (name !== lastName) {
        lastName = name;
        lastWanted = wanted(name);
      }
      if (lastWanted) {
        const reading = parsePeerLine(dump, name, t1, lineEnd);
        if (reading) readings.push(reading);
      }
    }
    lineStart = lineEnd + 1;
  }
  return readings;
}

/** The peer fields after the interface name, or null for an interface's own line (5 fields). */
function parsePeerLine(dump: string, name: string, t1: number, lineEnd: number): PeerReading | null {
  const t2 = dump.indexOf('\t', t1 + 1);
  const t3 = dump.indexOf('\t', t2 + 1);
  const t4 = dump.indexOf('\t', t3 + 1);
  const t5 = dump.indexOf('\t', t4 + 1);
  if (t5 === -1 || t5 > lineEnd) return null; // interface line: name, private, public, port, fwmark
  const t6 = dump.indexOf('\t', t5 + 1);
  const t7 = dump.indexOf('\t', t6 + 1);
  const t8 = dump.indexOf('\t', t7 + 1);
  if (t8 === -1 || t8 > lineEnd) return null;
  const endpoint = dump.slice(t3 + 1, t4);
  const handshake = digits(dump, t5 + 1, t6);
  return {
    interface: name,
    publicKey: dump.slice(t1 + 1, t2),
    rxBytes: digits(dump, t6 + 1, t7),
    txBytes: digits(dump, t7 + 1, t8),
    lastHandshake: handshake === 0 ? null : handshake * 1000,
    endpoint: endpoint === '(none)' ? null : endpoint,
  };
}

/** A decimal field as a number, without making a substring. Exact up to 2^53 (8 PiB). */
function digits(text: string, from: number, to: number): number {
  let value = 0;
  for (let i = from; i < to; i++) value = value * 10 + (text.charCodeAt(i) - 48);
  return value;
}

export interface CounterReaderOptions {
  /**
   * false: every interface through `wg show all dump`, as before the UAPI reads (the bench's
   * same-run baseline). Default true.
   */
  uapi?: boolean;
}

/**
 * Reads the managed interfaces' counters. A wireguard-go interface (one with a UAPI socket) is
 * read from its socket directly (uapi-counters.ts); the others, kernel-module interfaces, through
 * one `wg show all dump`. Netlink for those is not done here: no kernel module on the machine
 * this was built on, so it could not be tested (docs/agent-host.md, "Counters").
 */
export class CounterReader {
  constructor(
    private readonly runner: CommandRunner,
    /** The interfaces to report (the agent's own): others on the host are ignored. */
    private readonly interfaces: () => Iterable<string>,
    private readonly options: CounterReaderOptions = {},
  ) {}

  /**
   * One reading of every managed interface's peers. An interface that vanishes mid-read is left
   * out (its counters went with it); the others are still returned.
   */
  async read(): Promise<PeerReading[]> {
    const names = new Set(this.interfaces());
    if (names.size === 0) return [];
    const viaWg = new Set<string>();
    let readings: PeerReading[] = [];
    for (const name of names) {
      // A name from managed.json is checked before it becomes a path (the socket's).
      if (this.options.uapi === false || !isTunnelName(name) || !existsSync(socketPath(name))) {
        viaWg.add(name);
        continue;
      }
      try {
        const read = await readUapiCounters(socketPath(name), name);
        readings = readings.length === 0 ? read : readings.concat(read);
      } catch (error) {
        if (!(error instanceof UapiGone)) throw error;
      }
    }
    if (viaWg.size > 0) readings = readings.concat(await this.readWg(viaWg));
    return readings;
  }

  /** When an interface vanishes mid-read, wg exits non-zero after printing the others: those are kept. */
  private async readWg(names: ReadonlySet<string>): Promise<PeerReading[]> {
    let dump: string;
    try {
      dump = (await this.runner.run('wg', ['show', 'all', 'dump'])).stdout;
    } catch (error) {
      if (!(error instanceof CommandError) || error.reason !== 'exit' || error.stdout === '') throw error;
      dump = error.stdout;
    }
    return parseWgDump(dump, (name) => names.has(name));
  }
}

/**
 * A restart's two moments for the counter spool: `starting` before the old link's last reading
 * (no batch may be cut from then on: one cut between that reading and `done` would move the
 * baseline past it, and the carry would count the old link's bytes again), `done` with that
 * reading once the link is gone (empty when the restart failed: the old link still counts).
 */
export interface CountersResetListener {
  starting(): void;
  done(final: PeerReading[]): void;
}
