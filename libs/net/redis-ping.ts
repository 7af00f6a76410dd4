import { connect } from 'node:net';

/**
 * Whether a Redis server answers on host:port: PING over a bare socket (no client library, no
 * retries). A server that wants a password answers NOAUTH: it is there, counted as answering
 * when `passwordProtected` allows it. Used where a Redis must be found or waited for (the tests).
 */
export function redisAnswers(
  host: string,
  port: number,
  options: { timeoutMs?: number; passwordProtected?: boolean } = {},
): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, host);
    let answer = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(options.timeoutMs ?? 1000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      answer += chunk.toString();
      if (answer.includes('\r\n'))
        done(answer.startsWith('+PONG') || (options.passwordProtected === true && answer.startsWith('-NOAUTH')));
    });
  });
}
