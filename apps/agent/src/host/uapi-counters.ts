import { connect } from 'node:net';
import type { PeerReading } from './counters.js';

/**
 * Per-peer counters of one wireguard-go interface, read from its UAPI socket
 * (https://www.wireguard.com/xplatform/): `get=1\n\n` is answered with `key=value` lines, the
 * device's first, then per peer a `public_key=` line (hex) followed by that peer's keys, and
 * `errno=N` plus an empty line at the end. This is what `wg show` reads too; reading it here
 * saves spawning `wg` (and `ip netns exec`), printing the dump and parsing it again.
 *
 * The answer is parsed as it arrives, on the bytes (no string of the whole answer: at 100,000
 * peers it is some 35 MB), and only the fields a reading needs are decoded.
 */

const NEWLINE = 0x0a;
const EQUALS = 0x3d;

/** Keys by the length of the name before `=`: only these are read, the others skipped. */
const PUBLIC_KEY = Buffer.from('public_key');
const ENDPOINT = Buffer.from('endpoint');
const TX_BYTES = Buffer.from('tx_bytes');
const RX_BYTES = Buffer.from('rx_bytes');
const HANDSHAKE_SEC = Buffer.from('last_handshake_time_sec');
const ERRNO = Buffer.from('errno');

function keyIs(line: Buffer, start: number, eq: number, key: Buffer): boolean {
  return eq - start === key.length && line.compare(key, 0, key.length, start, eq) === 0;
}

/** A decimal field as a number. Exact up to 2^53 (8 PiB), as the counters' readers assume. */
function digits(bytes: Buffer, from: number, to: number): number {
  let value = 0;
  for (let i = from; i < to; i++) value = value * 10 + (bytes[i] - 48);
  return value;
}

function hexValue(byte: number): number {
  if (byte >= 48 && byte <= 57) return byte - 48;
  if (byte >= 97 && byte <= 102) return byte - 87;
  if (byte >= 65 && byte <= 70) return byte - 55;
  throw new UapiError('a public key that is not hex');
}

export class UapiError extends Error {}

/**
 * Turns the chunks of one `get=1` answer into readings. `push` takes chunks as they come and
 * returns true once the answer is complete (then `readings` holds every peer); a line cut by a
 * chunk boundary waits in `partial` for the rest.
 */
export class UapiCounterParser {
  readonly readings: PeerReading[] = [];
  private current: PeerReading | null = null;
  private partial: Buffer | null = null;
  private errno: number | null = null;
  private done = false;
  /** The 32 bytes of a public key, decoded from hex before base64 (the form the rest of Warren uses). */
  private readonly key = Buffer.alloc(32);

  constructor(private readonly iface: string) {}

  get complete(): boolean {
    return this.done;
  }

  /** Parses a chunk; true when the answer ended in it. Bytes after the end are ignored. */
  push(chunk: Buffer): boolean {
    if (this.done) return true;
    let pos = 0;
    if (this.partial) {
      const nl = chunk.indexOf(NEWLINE);
      if (nl === -1) {
        this.partial = Buffer.concat([this.partial, chunk]);
        return false;
      }
      const line = Buffer.concat([this.partial, chunk.subarray(0, nl)]);
      this.partial = null;
      if (this.line(line, 0, line.length)) return true;
      pos = nl + 1;
    }
    const length = chunk.length;
    while (pos < length) {
      const nl = chunk.indexOf(NEWLINE, pos);
      if (nl === -1) {
        this.partial = Buffer.from(chunk.subarray(pos)); // a copy: the chunk's memory may be reused
        return false;
      }
      if (this.line(chunk, pos, nl)) return true;
      pos = nl + 1;
    }
    return false;
  }

  /** One line, `bytes[start, end)`; true at the empty line that ends the answer. */
  private line(bytes: Buffer, start: number, end: number): boolean {
    if (start === end) {
      if (this.errno === null) throw new UapiError('the answer ended without errno');
      if (this.errno !== 0) throw new UapiError(`wireguard-go answered errno=${this.errno}`);
      this.flush();
      this.done = true;
      return true;
    }
    const eq = bytes.indexOf(EQUALS, start);
    if (eq === -1 || eq >= end) throw new UapiError('a line without "="');
    const from = eq + 1;
    switch (eq - start) {
      case 10:
        if (keyIs(bytes, start, eq, PUBLIC_KEY)) this.startPeer(bytes, from, end);
        break;
      case 8:
        if (!this.current) break;
        if (keyIs(bytes, start, eq, RX_BYTES)) this.current.rxBytes = digits(bytes, from, end);
        else if (keyIs(bytes, start, eq, TX_BYTES)) this.current.txBytes = digits(bytes, from, end);
        else if (keyIs(bytes, start, eq, ENDPOINT)) this.current.endpoint = bytes.toString('latin1', from, end);
        break;
      case 23:
        if (this.current && keyIs(bytes, start, eq, HANDSHAKE_SEC)) {
          const seconds = digits(bytes, from, end);
          this.current.lastHandshake = seconds === 0 ? null : seconds * 1000;
        }
        break;
      case 5:
        if (keyIs(bytes, start, eq, ERRNO)) this.errno = digits(bytes, from, end);
        break;
    }
    return false;
  }

  private startPeer(bytes: Buffer, from: number, end: number): void {
    this.flush();
    if (end - from !== 64) throw new UapiError('a public key that is not 32 bytes of hex');
    for (let i = 0; i < 32; i++) {
      this.key[i] = (hexValue(bytes[from + 2 * i]) << 4) | hexValue(bytes[from + 2 * i + 1]);
    }
    this.current = {
      interface: this.iface,
      publicKey: this.key.toString('base64'),
      rxBytes: 0,
      txBytes: 0,
      lastHandshake: null,
      endpoint: null,
    };
  }

  private flush(): void {
    if (this.current) this.readings.push(this.current);
    this.current = null;
  }
}

/** The socket went while asked (its daemon exited: the interface is gone with its counters). */
export class UapiGone extends Error {}

/**
 * Reads one interface's peers from its UAPI socket. Rejects with UapiGone when nothing listens
 * on the socket (no file, or a daemon that exited), with UapiError on a bad or failed answer,
 * and on a timeout: an interface that answers nothing must not stall the agent's report.
 */
export function readUapiCounters(socket: string, iface: string, timeoutMs = 10_000): Promise<PeerReading[]> {
  return new Promise((resolve, reject) => {
    const parser = new UapiCounterParser(iface);
    const conn = connect(socket);
    let settled = false;
    const finish = (error: Error | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      conn.destroy();
      if (error) reject(error);
      else resolve(parser.readings);
    };
    const timer = setTimeout(() => finish(new UapiError(`no answer from ${socket} in ${timeoutMs} ms`)), timeoutMs);
    conn.on('connect', () => conn.write('get=1\n\n'));
    conn.on('data', (chunk: Buffer) => {
      try {
        if (parser.push(chunk)) finish(null);
      } catch (error) {
        finish(error as Error);
      }
    });
    conn.on('error', (error: NodeJS.ErrnoException) => {
      const gone = error.code === 'ENOENT' || error.code === 'ECONNREFUSED';
      finish(gone ? new UapiGone(`${socket}: ${error.code}`) : error);
    });
    conn.on('close', () => finish(new UapiError(`${socket} closed before the answer ended`)));
  });
}
