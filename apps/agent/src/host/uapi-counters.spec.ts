import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseWgDump } from './counters.js';
import { readUapiCounters, UapiCounterParser, UapiError, UapiGone } from './uapi-counters.js';

// Captured from a real wireguard-go (v0.0.20220316) in a namespace, after a ping through the
// tunnel: the `get=1` answer of its UAPI socket, and `wg show all dump` of the same interface at
// the same moment (the private key blanked in both). Three peers: one with a handshake, traffic
// and a preshared key, one never seen with two allowed IPs, one with an IPv6 endpoint set by hand.
const testdata = (name: string) => readFileSync(new URL(`./testdata/${name}`, import.meta.url));
const uapi = testdata('uapi-get.txt');
const dump = testdata('wg-show-all-dump.txt').toString();

function parseInChunks(bytes: Buffer, size: number): UapiCounterParser {
  const parser = new UapiCounterParser('wg0');
  let done = false;
  for (let at = 0; at < bytes.length; at += size) {
    expect(done).toBe(false);
    done = parser.push(bytes.subarray(at, at + size));
  }
  expect(done).toBe(true);
  return parser;
}

test("the UAPI answer gives the readings wg's dump of the same interface gives", () => {
  const expected = parseWgDump(dump, () => true);
  expect(expected).toHaveLength(3);
  expect(expected[0]).toMatchObject({ rxBytes: 532, txBytes: 476, lastHandshake: 1795768595000 });
  expect(parseInChunks(uapi, uapi.length).readings).toEqual(expected);
});

test('a line cut anywhere by a chunk boundary parses the same', () => {
  const whole = parseInChunks(uapi, uapi.length).readings;
  for (const size of [1, 2, 3, 7, 11, 64, 65, 100, 333]) expect(parseInChunks(uapi, size).readings).toEqual(whole);
});

test('the answer ends at the empty line after errno; what follows is not read', () => {
  const parser = new UapiCounterParser('wg0');
  expect(parser.push(Buffer.concat([uapi, Buffer.from('public_key=zz\n')]))).toBe(true);
  expect(parser.readings).toHaveLength(3);
});

test('keys come out as the base64 Buffer makes of them, whatever the bytes', () => {
  const keys = [Buffer.alloc(32, 0), Buffer.alloc(32, 255), ...Array.from({ length: 200 }, () => randomBytes(32))];
  const text = keys.map((k, i) => `public_key=${i % 2 ? k.toString('hex').toUpperCase() : k.toString('hex')}\n`);
  const parser = new UapiCounterParser('wg0');
  expect(parser.push(Buffer.from(`${text.join('')}errno=0\n\n`))).toBe(true);
  expect(parser.readings.map((r) => r.publicKey)).toEqual(keys.map((k) => k.toString('base64')));
});

test('an error number, a missing errno and a bad key are refused; unknown keys are skipped', () => {
  const bad = (text: string) => () => new UapiCounterParser('wg0').push(Buffer.from(text));
  expect(bad('errno=19\n\n')).toThrow(new UapiError('wireguard-go answered errno=19'));
  expect(bad('listen_port=1\n\n')).toThrow(/without errno/);
  expect(bad(`public_key=${'g'.repeat(64)}\n`)).toThrow(/not hex/);
  expect(bad('public_key=abcd\n')).toThrow(/not 32 bytes/);
  const parser = new UapiCounterParser('wg0');
  expect(parser.push(Buffer.from('some_future_key=1\nx\nerrno=0\n\n'))).toBe(true);
  expect(parser.readings).toEqual([]);
});

test('an interface without peers gives no readings', () => {
  const parser = new UapiCounterParser('wg0');
  expect(parser.push(Buffer.from('private_key=00\nlisten_port=51820\nerrno=0\n\n'))).toBe(true);
  expect(parser.readings).toEqual([]);
});

describe('over a unix socket', () => {
  let dir: string;
  let server: Server | undefined;
  const connections = new Set<Socket>();
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'warren-uapi-'))));
  afterEach(async () => {
    for (const conn of connections) conn.destroy();
    connections.clear();
    if (server) await new Promise((resolve) => server!.close(resolve));
    server = undefined;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A stand-in daemon: answers `get=1\n\n` with `answer` in small writes, as wireguard-go's socket would. */
  function serve(socket: string, answer: Buffer, closeAfter?: number): Promise<void> {
    server = createServer((conn) => {
      connections.add(conn);
      let asked = '';
      conn.on('data', (chunk: Buffer) => {
        asked += chunk.toString();
        if (asked !== 'get=1\n\n') return;
        const end = closeAfter ?? answer.length;
        for (let at = 0; at < end; at += 50) conn.write(answer.subarray(at, Math.min(at + 50, end)));
        if (closeAfter !== undefined) conn.end();
        // Otherwise left open, as wireguard-go does (it waits for the next operation).
      });
    });
    return new Promise((resolve) => server!.listen(socket, resolve));
  }

  test('asks with get=1 and resolves once the answer ended, the connection still open', async () => {
    const socket = join(dir, 'ok.sock');
    await serve(socket, uapi);
    expect(await readUapiCounters(socket, 'wg0')).toEqual(parseWgDump(dump, () => true));
  });

  test('an answer cut short by the daemon rejects, so no partial reading is taken for the whole', async () => {
    const socket = join(dir, 'short.sock');
    await serve(socket, uapi, 400);
    await expect(readUapiCounters(socket, 'wg0')).rejects.toThrow(/closed before the answer ended/);
  });

  test('no socket: the interface is gone', async () => {
    await expect(readUapiCounters(join(dir, 'none.sock'), 'wg0')).rejects.toBeInstanceOf(UapiGone);
  });

  test('a daemon that never answers times out', async () => {
    const socket = join(dir, 'mute.sock');
    await serve(socket, Buffer.alloc(0), 0);
    server!.removeAllListeners('connection');
    server!.on('connection', (conn: Socket) => connections.add(conn));
    await expect(readUapiCounters(socket, 'wg0', 200)).rejects.toThrow(/no answer/);
  });
});
