import { spawn, type ChildProcess } from 'node:child_process';
import type { TestNamespace } from './netns.js';
import { GiveUp, waitFor } from './wait-for.js';

/**
 * A DNS server of the test's own, in a test namespace: answers A queries for the names it is
 * given (authoritative), NXDOMAIN for others, on UDP port 53 of `address`, and logs every query
 * with the address it came from. A small Node program (no dependency: the few bytes of an A
 * answer are written by hand), so tests need no resolver package and send nothing outside
 * their namespaces.
 */

const PROGRAM = `
const dgram = require('node:dgram');
const [address, json, port] = process.argv.slice(1);
const records = JSON.parse(json);
const socket = dgram.createSocket('udp4');
socket.on('message', (query, from) => {
  if (query.length < 17) return;
  const labels = [];
  let at = 12;
  while (at < query.length && query[at] !== 0) {
    labels.push(query.toString('latin1', at + 1, at + 1 + query[at]));
    at += query[at] + 1;
  }
  const questionEnd = at + 5; // the root label, QTYPE, QCLASS
  const name = labels.join('.').toLowerCase();
  const ip = records[name];
  const wantsA = query.readUInt16BE(at + 1) === 1;
  // A pointer to the question's name (offset 12), type A, class IN, TTL 60, 4 bytes of address.
  const answer = ip && wantsA ? Buffer.from([0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, ...ip.split('.').map(Number)]) : Buffer.alloc(0);
  const header = Buffer.from(query.subarray(0, 12));
  header[2] = 0x84 | (query[2] & 0x01); // a response, authoritative, recursion desired as asked
  header[3] = ip ? 0x80 : 0x83; // recursion available; NXDOMAIN for an unknown name
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(answer.length > 0 ? 1 : 0, 6);
  header.writeUInt32BE(0, 8);
  socket.send(Buffer.concat([header, query.subarray(12, questionEnd), answer]), from.port, from.address);
  console.log('query ' + name + ' from ' + from.address);
});
socket.bind(Number(port ?? 53), address, () => console.log('ready ' + socket.address().port));
`;

export interface DnsResponder {
  /** Queries seen so far, as `<name> from <address>`. */
  queries(): string[];
}

export async function startDnsResponder(
  ns: TestNamespace,
  address: string,
  records: Record<string, string>,
): Promise<DnsResponder> {
  const child = spawn(
    'ip',
    ['netns', 'exec', ns.name, process.execPath, '-e', PROGRAM, address, JSON.stringify(records)],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  // It lives as long as its namespace: TestNamespace.destroy() ends every process inside.
  return (await watch(child)).responder;
}

/**
 * The same server on the test machine's loopback, on a port of the system's choosing, for a
 * panel told to ask it (WARREN_DNS_SERVERS=127.0.0.1:<port>): no namespace, nothing sent out.
 */
export async function startLocalDnsResponder(
  records: Record<string, string>,
): Promise<DnsResponder & { server: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['-e', PROGRAM, '127.0.0.1', JSON.stringify(records), '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const { responder, port } = await watch(child);
  return {
    ...responder,
    server: `127.0.0.1:${port}`,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((done) => child.once('exit', done));
      child.kill();
      await exited;
    },
  };
}

async function watch(child: ChildProcess): Promise<{ responder: DnsResponder; port: number }> {
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  await waitFor('the DNS responder to listen', () => {
    if (child.exitCode !== null) throw new GiveUp(`the DNS responder exited with ${child.exitCode}: ${err}`);
    return out.includes('ready');
  });
  const port = Number(/ready (\d+)/.exec(out)![1]);
  const responder = {
    queries: () =>
      out
        .split('\n')
        .filter((line) => line.startsWith('query '))
        .map((line) => line.slice('query '.length)),
  };
  return { responder, port };
}
