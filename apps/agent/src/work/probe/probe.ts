import { execFile, spawn } from 'node:child_process';
import { lookup } from 'node:dns/promises';
import { rmSync, writeFileSync } from 'node:fs';
import { createServer, isIP, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { SocksClient } from 'socks';
import type { ProbeJob, ProbeResult } from '#libs/contracts/routing.js';
import { forbiddenReason } from '#libs/net/forbidden-targets.js';
import { ProbeFailure } from './probe-errors.js';
import { getOver, httpConnect, remaining, tcpConnect, tlsWrap } from './probe-socket.js';

/**
 * One probe, run inside the node's namespace (probe-child.ts): the hop's address (and the URL's
 * host) resolved and checked, a TCP connect timed, the hop's handshake (SOCKS5, HTTP CONNECT,
 * shadowsocks through a temporary ss-local, or none for WireGuard and direct), and in http mode
 * one GET of the URL through it. A proxy that shakes hands while its upstream is down fails at
 * the CONNECT reply or the GET, never passes.
 */

type Stages = ProbeResult['stages'];
type Hop = ProbeJob['config'];

export interface ProbeOptions {
  /** Where ss-local's temporary 0600 config goes. */
  workDir: string;
}

export async function runProbe(job: ProbeJob, options: ProbeOptions): Promise<ProbeResult> {
  const started = performance.now();
  const deadline = Date.now() + job.timeoutMs;
  const stages: Stages = { dns: null, connect: null, handshake: null, firstByte: null };
  const cleanups: (() => void)[] = [];
  const timed = async <T>(stage: keyof Stages, work: () => Promise<T>): Promise<T> => {
    const t = performance.now();
    try {
      return await work();
    } finally {
      stages[stage] = round((stages[stage] ?? 0) + performance.now() - t);
    }
  };
  try {
    const egressIp = await probe(job, options, deadline, stages, timed, cleanups);
    return { ok: true, latencyMs: round(performance.now() - started), stages, errorClass: null, error: null, egressIp };
  } catch (error) {
    const failure =
      error instanceof ProbeFailure ? error : new ProbeFailure('internal', (error as Error)?.message ?? String(error));
    return {
      ok: false,
      latencyMs: null,
      stages,
      errorClass: failure.errorClass,
      error: failure.message.slice(0, 500),
      egressIp: null,
    };
  } finally {
    for (const cleanup of cleanups) cleanup();
  }
}

type Timed = <T>(stage: keyof Stages, work: () => Promise<T>) => Promise<T>;

async function probe(
  job: ProbeJob,
  options: ProbeOptions,
  deadline: number,
  stages: Stages,
  timed: Timed,
  cleanups: (() => void)[],
): Promise<string | null> {
  const hop: Hop = job.config;
  let url: URL;
  try {
    url = new URL(job.url);
  } catch {
    throw new ProbeFailure('unsupported', 'the probe URL is not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ProbeFailure('unsupported', `only http and https URLs can be probed, not ${url.protocol}`);
  const urlHost = url.hostname.replace(/^\[|\]$/g, '');
  const urlPort = Number(url.port || (url.protocol === 'https:' ? 443 : 80));

  // Where the first TCP connection goes: the hop (proxies), or the URL's host (direct, WireGuard).
  const hopHost =
    hop.kind === 'socks' || hop.kind === 'http' || hop.kind === 'shadowsocks'
      ? hop.host
      : hop.kind === 'wireguard'
        ? hop.endpointHost
        : null;
  const hopAddress = hopHost === null ? null : await timed('dns', () => resolve(hopHost, 'the hop'));
  if (hopAddress && !job.allowPrivateTargets) refuse(hopHost!, hopAddress, 'hop');
  // Proxies resolve the target themselves; it is still checked here when it resolves here.
  const targetAddress =
    hop.kind === 'direct' || hop.kind === 'wireguard'
      ? await timed('dns', () => resolve(urlHost, 'the URL host'))
      : await timed('dns', () => resolve(urlHost, 'the URL host')).catch(() => null);
  if (targetAddress && !job.allowPrivateTargets) refuse(urlHost, targetAddress, 'URL host');

  if (job.mode === 'tcp') {
    if (hop.kind === 'wireguard')
      throw new ProbeFailure(
        'unsupported',
        'a WireGuard hop is UDP: tcp mode has nothing to connect to (use http mode)',
      );
    const socket = await timed('connect', () =>
      tcpConnect(
        hopAddress ?? targetAddress!,
        hop.kind === 'direct' ? urlPort : (hop as { port: number }).port,
        deadline,
      ),
    );
    socket.destroy();
    return null;
  }

  let socket: Socket;
  switch (hop.kind) {
    case 'direct':
      socket = await timed('connect', () => tcpConnect(targetAddress!, urlPort, deadline));
      break;
    case 'wireguard': {
      const local = hop.address.split('/')[0];
      socket = await timed('connect', () => tcpConnect(targetAddress!, urlPort, deadline, local)).catch(
        async (error: ProbeFailure) => {
          if ((error as ProbeFailure).message.includes('EADDRNOTAVAIL'))
            throw new ProbeFailure('connect', `the hop's interface ${hop.interfaceName} is not up on this node`);
          if (error.errorClass === 'timeout' && !(await recentHandshake(hop.interfaceName))) {
            throw new ProbeFailure(
              'handshake',
              `no WireGuard handshake with the upstream ${hop.endpointHost}:${hop.endpointPort}`,
            );
          }
          throw error;
        },
      );
      break;
    }
    case 'socks': {
      const raw = await timed('connect', () => tcpConnect(hopAddress!, hop.port, deadline));
      socket = await timed('handshake', () =>
        socksConnect(raw, hop.host, hop.port, urlHost, urlPort, hop.username, hop.password, deadline),
      );
      break;
    }
    case 'http': {
      const raw = await timed('connect', () => tcpConnect(hopAddress!, hop.port, deadline));
      const auth =
        hop.username !== null || hop.password !== null ? `${hop.username ?? ''}:${hop.password ?? ''}` : null;
      await timed('handshake', () => httpConnect(raw, urlHost, urlPort, auth, deadline));
      socket = raw;
      break;
    }
    case 'shadowsocks': {
      // The server itself first: a refused or silent server is a connect failure, not a handshake one.
      (await timed('connect', () => tcpConnect(hopAddress!, hop.port, deadline))).destroy();
      socket = await timed('handshake', async () => {
        const port = await ssLocal(hop, hopAddress!, options.workDir, deadline, cleanups);
        const raw = await tcpConnect('127.0.0.1', port, deadline);
        return socksConnect(raw, '127.0.0.1', port, urlHost, urlPort, null, null, deadline);
      });
      break;
    }
  }
  cleanupSocket(socket, cleanups);
  if (url.protocol === 'https:') socket = await timed('handshake', () => tlsWrap(socket, urlHost, deadline));
  const fetched = await getOver(socket, url, deadline, () => performance.now());
  stages.firstByte = round(fetched.firstByteMs);
  if (fetched.status >= 400) throw new ProbeFailure('http', `the test URL answered HTTP ${fetched.status}`);
  const body = fetched.body.trim();
  return isIP(body) ? body : null;
}

async function resolve(host: string, what: string): Promise<string> {
  if (isIP(host)) return host;
  try {
    return (await lookup(host, { family: 4 })).address;
  } catch (error) {
    throw new ProbeFailure(
      'dns',
      `${what} ${host} does not resolve: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
}

/**
 * Evaluated inside the node's namespace (the probe child runs there): "own addresses" are the
 * node's. The message never names the address a name resolved to: it becomes the outbound's
 * lastError, which every role reads, and would map the node's internal DNS for whoever asks.
 */
function refuse(host: string, address: string, what: string): void {
  const reason = forbiddenReason(address);
  if (!reason) return;
  const refused = isIP(host) ? `${what} ${host} is ${reason}` : `${what} ${host} resolves to a forbidden address`;
  throw new ProbeFailure('forbidden', `${refused}; private targets are not allowed (settings)`);
}

async function socksConnect(
  socket: Socket,
  proxyHost: string,
  proxyPort: number,
  host: string,
  port: number,
  username: string | null,
  password: string | null,
  deadline: number,
): Promise<Socket> {
  try {
    const { socket: tunnel } = await SocksClient.createConnection({
      existing_socket: socket,
      proxy: {
        host: proxyHost,
        port: proxyPort,
        type: 5,
        ...(username !== null || password !== null ? { userId: username ?? '', password: password ?? '' } : {}),
      },
      command: 'connect',
      destination: { host, port },
      timeout: remaining(deadline),
    });
    return tunnel;
  } catch (error) {
    socket.destroy();
    const message = (error as Error).message;
    if (/timed out|timeout/i.test(message)) throw new ProbeFailure('timeout', `SOCKS5: ${message}`);
    if (/authentication/i.test(message)) throw new ProbeFailure('auth', `SOCKS5: ${message}`);
    if (/rejected connection/i.test(message)) throw new ProbeFailure('upstream', `SOCKS5: ${message}`);
    throw new ProbeFailure('handshake', `SOCKS5: ${message}`);
  }
}

/** A temporary ss-local in this namespace, giving a SOCKS5 port into the shadowsocks hop. */
async function ssLocal(
  hop: Extract<Hop, { kind: 'shadowsocks' }>,
  address: string,
  workDir: string,
  deadline: number,
  cleanups: (() => void)[],
): Promise<number> {
  const port = await freePort();
  const config = `${workDir}/probe-ss-${process.pid}-${port}.json`;
  writeFileSync(
    config,
    JSON.stringify({
      server: address,
      server_port: hop.port,
      local_address: '127.0.0.1',
      local_port: port,
      password: hop.password,
      method: hop.method,
      timeout: 30,
    }),
    { mode: 0o600 },
  );
  const child = spawn('ss-local', ['-c', config], { stdio: 'ignore' });
  cleanups.push(() => {
    child.kill('SIGKILL');
    rmSync(config, { force: true });
  });
  const failed = new Promise<never>((_, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new ProbeFailure(
          error.code === 'ENOENT' ? 'unsupported' : 'internal',
          error.code === 'ENOENT' ? 'ss-local is not installed (Debian package shadowsocks-libev)' : error.message,
        ),
      ),
    );
    child.once('exit', (code) => reject(new ProbeFailure('internal', `ss-local exited (${code})`)));
  });
  failed.catch(() => undefined);
  for (;;) {
    const ready = await Promise.race([
      tcpConnect('127.0.0.1', port, Math.min(deadline, Date.now() + 200)).then(
        (s) => (s.destroy(), true),
        () => false,
      ),
      failed,
    ]);
    if (ready) return port;
    if (remaining(deadline) <= 1) throw new ProbeFailure('timeout', 'ss-local did not start in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** True when the hop's interface had a handshake in the last 3 minutes (`wg show <if> latest-handshakes`). */
function recentHandshake(name: string): Promise<boolean> {
  return new Promise((done) => {
    execFile('wg', ['show', name, 'latest-handshakes'], { timeout: 3000 }, (error, stdout) => {
      if (error) return done(false);
      const latest = Math.max(0, ...stdout.split('\n').map((line) => Number(line.split('\t')[1] ?? 0)));
      done(latest > 0 && Date.now() / 1000 - latest < 180);
    });
  });
}

function cleanupSocket(socket: Socket, cleanups: (() => void)[]): void {
  cleanups.push(() => socket.destroy());
}

const round = (ms: number) => Math.round(ms * 10) / 10;
