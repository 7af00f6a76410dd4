import type { TestNamespace } from './netns.js';
import { waitFor } from './wait-for.js';

/**
 * iperf3 (Debian's) between test namespaces: a server started in one, TCP runs from another, the
 * rate the receiving end measured. Needs `iperf3` (test/prepare-host.sh installs it).
 */

/** Starts `iperf3 -s` on `address:port` in `ns`; ended with the namespace (or by stop()). */
export async function startIperfServer(
  ns: TestNamespace,
  address: string,
  port: number,
): Promise<{ stop: () => Promise<void> }> {
  // --forceflush: its output is a pipe, which would otherwise hold "Server listening" back.
  const server = ns.start('iperf3', '-s', '--forceflush', '-B', address, '-p', String(port));
  await waitFor(
    `iperf3 listening on ${address}:${port}`,
    () => server.output().includes('Server listening'),
    10_000,
    50,
  );
  return { stop: server.stop };
}

export interface IperfRun {
  /** Bits per second of TCP payload, as the receiving side counted it (the first second left out). */
  bitsPerSecond: number;
  /** Bytes the receiving side got. */
  bytes: number;
}

/**
 * A TCP run of `seconds` from `ns` to the server: `direction` 'up' sends from `ns`, 'down' makes
 * the server send (`-R`). The first second (slow start, the queue filling) is omitted (`-O 1`).
 */
export async function iperf(
  ns: TestNamespace,
  server: string,
  port: number,
  direction: 'up' | 'down',
  seconds: number,
): Promise<IperfRun> {
  const args = ['-c', server, '-p', String(port), '-t', String(seconds), '-O', '1', '-J'];
  if (direction === 'down') args.push('-R');
  const report = JSON.parse(await ns.exec('iperf3', ...args)) as {
    error?: string;
    end: { sum_received: { bits_per_second: number; bytes: number } };
  };
  if (report.error) throw new Error(`iperf3: ${report.error}`);
  return { bitsPerSecond: report.end.sum_received.bits_per_second, bytes: report.end.sum_received.bytes };
}
