import { request as httpRequest, type IncomingMessage } from 'node:http';
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { classify, ProbeFailure } from './probe-errors.js';

/** Socket plumbing of a probe: a timed TCP connect, an HTTP CONNECT, and one GET over a socket. */

export async function tcpConnect(host: string, port: number, deadline: number, localAddress?: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = netConnect({ host, port, localAddress, noDelay: true });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new ProbeFailure('timeout', `no TCP connection to ${host}:${port} in time`));
    }, remaining(deadline));
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(classify(error, 'connect'));
    });
  });
}

/** `CONNECT host:port` through an HTTP proxy already connected on `socket`. */
export async function httpConnect(
  socket: Socket,
  host: string,
  port: number,
  auth: string | null,
  deadline: number,
): Promise<void> {
  const target = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  const lines = [`CONNECT ${target} HTTP/1.1`, `Host: ${target}`];
  if (auth) lines.push(`Proxy-Authorization: Basic ${Buffer.from(auth).toString('base64')}`);
  socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  const head = await new Promise<string>((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(
      () => fail(new ProbeFailure('timeout', 'the HTTP proxy did not answer CONNECT in time')),
      remaining(deadline),
    );
    const done = () => {
      clearTimeout(timer);
      socket.off('data', onData).off('error', fail).off('close', onClose);
    };
    function fail(error: Error) {
      done();
      reject(error);
    }
    const onClose = () => fail(new ProbeFailure('handshake', 'the HTTP proxy closed the connection during CONNECT'));
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString('latin1');
      const end = buffer.indexOf('\r\n\r\n');
      if (end === -1) return;
      done();
      // Bytes after the head belong to the tunnel; a CONNECT answer carries none before we speak.
      resolve(buffer.slice(0, end));
    };
    socket
      .on('data', onData)
      .once('error', (e) => fail(classify(e, 'handshake')))
      .once('close', onClose);
  });
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
  if (status === 407) throw new ProbeFailure('auth', 'the HTTP proxy refused the credentials (407)');
  if (status === 0) throw new ProbeFailure('handshake', 'the HTTP proxy did not answer CONNECT with HTTP');
  if (status < 200 || status > 299)
    throw new ProbeFailure('upstream', `the HTTP proxy could not reach the target (CONNECT answered ${status})`);
}

export async function tlsWrap(socket: Socket, servername: string, deadline: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const tls = tlsConnect({ socket, servername, ALPNProtocols: ['http/1.1'] });
    const timer = setTimeout(() => {
      tls.destroy();
      reject(new ProbeFailure('timeout', 'no TLS handshake in time'));
    }, remaining(deadline));
    tls.once('secureConnect', () => {
      clearTimeout(timer);
      resolve(tls);
    });
    tls.once('error', (error) => {
      clearTimeout(timer);
      reject(new ProbeFailure('handshake', `TLS: ${error.message}`));
    });
  });
}

export interface Fetched {
  status: number;
  body: string;
  /** ms from sending the request to its first response byte. */
  firstByteMs: number;
}

const MAX_BODY = 64 * 1024;

/** One GET over an established socket (through whatever hop it already goes). */
export async function getOver(socket: Socket, url: URL, deadline: number, now: () => number): Promise<Fetched> {
  return new Promise((resolve, reject) => {
    const sent = now();
    let firstByte: number | null = null;
    socket.once('data', () => (firstByte ??= now() - sent));
    const req = httpRequest({
      createConnection: () => socket,
      method: 'GET',
      path: `${url.pathname}${url.search}`,
      headers: { host: url.host, 'user-agent': 'warren-probe', accept: '*/*', connection: 'close' },
      // No agent: with one (even agent: false) Node opens a connection of its own instead.
    });
    const timer = setTimeout(() => {
      req.destroy(new ProbeFailure('timeout', 'no HTTP response in time'));
    }, remaining(deadline));
    req.once('response', (res: IncomingMessage) => {
      firstByte ??= now() - sent;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (body.length < MAX_BODY) body += chunk;
      });
      res.once('end', () => {
        clearTimeout(timer);
        socket.destroy();
        resolve({ status: res.statusCode ?? 0, body, firstByteMs: firstByte! });
      });
      res.once('error', (error) => {
        clearTimeout(timer);
        reject(classify(error, 'http'));
      });
    });
    req.once('error', (error) => {
      clearTimeout(timer);
      reject(classify(error, 'http'));
    });
    req.end();
  });
}

export function remaining(deadline: number): number {
  return Math.max(1, deadline - Date.now());
}
