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

/**
 * The keys read, told apart by where their "=" is and a letter or two: the protocol's keys are
 * fixed (https://www.wireguard.com/xplatform/), and a search for "=" or a compare per line costs
 * more than the rest of the line's parse. "=" at: public_key/allowed_ip 10,
 * endpoint/tx_bytes/rx_bytes 8, last_handshake_time_sec 23 (…_nsec 24), errno 5; no other key
 * has its "=" there with these letters (a longer key has a letter there, not "=").
 */
const P = 0x70;
const U = 0x75;
const E = 0x65;
const T = 0x74;
const R = 0x72;
const L = 0x6c;
const UNDERSCORE = 0x5f;

/** A decimal field as a number. Exact up to 2^53 (8 PiB), as the counters' readers assume. */
function digits(bytes: Buffer, from: number, to: number): number {
  let value = 0;
  for (let i = from; i < to; i++) value = value * 10 + (bytes[i] - 48);
  return value;
}

/** A hex digit's value by its byte; 16 for anything else. */
const HEX = new Uint8Array(256).fill(16);
for (let i = 0; i < 10; i++) HEX[48 + i] = i;
for (let i = 0; i < 6; i++) HEX[97 + i] = HEX[65 + i] = 10 + i;

export class UapiError extends Error {}

const BASE64 = new Uint8Array(64);
'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
  .split('')
  .forEach((c, i) => (BASE64[i] = c.charCodeAt(0)));
/** The 44 character codes of a key's base64, filled for each key (one array, not one per key). */
const keyCodes: number[] = new Array<number>(44).fill(61);

/**
 * A public key's 64 hex digits at `bytes[from]` as base64 (the form the rest of Warren uses),
 * straight from the digits: a Buffer's toString('base64') per key took twice as long (a native
 * call and a Buffer per key; measured at 100,000 peers, docs/agent-host.md).
 */
function hexKeyToBase64(bytes: Buffer, from: number): string {
  let bad = 0;
  let out = 0;
  // 3 bytes (6 hex digits) make 4 characters; 32 bytes are 10 such groups and 2 bytes left.
  for (let i = from; i < from + 60; i += 6) {
    const d0 = HEX[bytes[i]],
      d1 = HEX[bytes[i + 1]],
      d2 = HEX[bytes[i + 2]];
    const d3 = HEX[bytes[i + 3]],
      d4 = HEX[bytes[i + 4]],
      d5 = HEX[bytes[i + 5]];
    bad |= d0 | d1 | d2 | d3 | d4 | d5;
    keyCodes[out++] = BASE64[(d0 << 2) | (d1 >> 2)];
    keyCodes[out++] = BASE64[((d1 & 3) << 4) | d2];
    keyCodes[out++] = BASE64[(d3 << 2) | (d4 >> 2)];
    keyCodes[out++] = BASE64[((d4 & 3) << 4) | d5];
  }
  const d0 = HEX[bytes[from + 60]],
    d1 = HEX[bytes[from + 61]],
    d2 = HEX[bytes[from + 62]],
    d3 = HEX[bytes[from + 63]];
  bad |= d0 | d1 | d2 | d3;
  keyCodes[out++] = BASE64[(d0 << 2) | (d1 >> 2)];
  keyCodes[out++] = BASE64[((d1 & 3) << 4) | d2];
  keyCodes[out] = BASE64[d3 << 2];
  // keyCodes[43] stays "=".
  if (bad & 16) throw new UapiError('a public key that is not hex');
  return String.fromCharCode.apply(null, keyCodes);
}

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
    // indexOf is memchr: faster than a loop over the bytes in JS, most of which are skipped.
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

  /** One line, `bytes[start, end)`; true at the empty line that ends the answer. Other keys are skipped. */
  private line(bytes: Buffer, start: number, end: number): boolean {
    if (start === end) {
      if (this.errno === null) throw new UapiError('the answer ended without errno');
      if (this.errno !== 0) throw new UapiError(`wireguard-go answered errno=${this.errno}`);
      this.flush();
      this.done = true;
      return true;
    }
    const first = bytes[start];
    if (start + 10 < end && bytes[start + 10] === EQUALS) {
      // public_key (allowed_ip, of the same length, is skipped)
      if (first === P && bytes[start + 1] === U) this.startPeer(bytes, start + 11, end);
    } else if (start + 8 < end && bytes[start + 8] === EQUALS) {
      const peer = this.current;
      if (!peer) return false;
      if (bytes[start + 2] === UNDERSCORE) {
        if (first === R) peer.rxBytes = digits(bytes, start + 9, end);
        else if (first === T) peer.txBytes = digits(bytes, start + 9, end);
      } else if (first === E) peer.endpoint = bytes.toString('latin1', start + 9, end);
    } else if (start + 23 < end && bytes[start + 23] === EQUALS) {
      // last_handshake_time_sec
      if (this.current && first === L) {
        const seconds = digits(bytes, start + 24, end);
        this.current.lastHandshake = seconds === 0 ? null : seconds * 1000;
      }
    } else if (start + 5 < end && bytes[start + 5] === EQUALS && first === E) {
      this.errno = digits(bytes, start + 6, end); // errno
    }
    return false;
  }

  private startPeer(bytes: Buffer, from: number, end: number): void {
    this.flush();
    if (end - from !== 64) throw new UapiError('a public key that is not 32 bytes of hex');
    this.current = {
      interface: this.iface,
      publicKey: hexKeyToBase64(bytes, from),
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
