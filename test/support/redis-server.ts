import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../../libs/net/free-port.js';
import { redisAnswers } from '../../libs/net/redis-ping.js';
import { GiveUp, waitFor } from './wait-for.js';

/**
 * A Redis server of the test's own (never the machine's shared one), on a free port, keeping
 * nothing on disk: killed and started again it comes back empty, ACL users included, as a Redis
 * without persistence does after a crash. Our child process: stop() is for afterAll.
 */
export interface TestRedisServer {
  port: number;
  url: string;
  /** SIGKILL, then a new server on the same port (empty). */
  restart(): Promise<void>;
  stop(): Promise<void>;
  output(): string;
}

export async function startRedisServer(): Promise<TestRedisServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  let log = '';

  const launch = async () => {
    const started = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--daemonize',
        'no',
        '--loglevel',
        'warning',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child = started;
    started.stdout!.on('data', (chunk: Buffer) => (log += chunk.toString()));
    started.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
    await waitFor(
      `redis-server on ${port} to answer`,
      async () => {
        if (started.exitCode !== null) throw new GiveUp(`redis-server on ${port} exited:\n${log}`);
        return redisAnswers('127.0.0.1', port);
      },
      10_000,
      50,
    ).catch((error: Error) => {
      throw error instanceof GiveUp ? error : new Error(`redis-server on ${port} did not start:\n${log}`);
    });
  };
  const kill = async () => {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  };

  await launch();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async restart() {
      await kill();
      await launch();
    },
    stop: kill,
    output: () => log,
  };
}
