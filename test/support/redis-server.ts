import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../libs/net/free-port.js';
import { redisAnswers } from '../../libs/net/redis-ping.js';
import { GiveUp, waitFor } from './wait-for.js';

/**
 * A Redis server of the test's own (never the machine's shared one), on a free port, keeping
 * nothing on disk: killed and started again it comes back empty, ACL users included, as a Redis
 * without persistence does after a crash. With `snapshots`, it keeps an RDB file in a directory
 * of its own, written only when the test asks (`SAVE`): killed and started again it comes back
 * with the data of the last snapshot, as Redis with its default RDB persistence does after a
 * crash (what changed since the snapshot is lost, older jobs come back). Our child process:
 * stop() is for afterAll.
 */
export interface TestRedisServer {
  port: number;
  url: string;
  /** SIGKILL, then a new server on the same port (empty, or from the last snapshot). */
  restart(): Promise<void>;
  stop(): Promise<void>;
  output(): string;
}

export async function startRedisServer(options: { snapshots?: boolean } = {}): Promise<TestRedisServer> {
  const port = await freePort();
  const snapshotDir = options.snapshots ? mkdtempSync(join(tmpdir(), 'warren-redis-')) : undefined;
  const persistence = snapshotDir ? ['--dir', snapshotDir, '--dbfilename', 'dump.rdb'] : [];
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
        ...persistence,
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
    async stop() {
      await kill();
      if (snapshotDir) rmSync(snapshotDir, { recursive: true, force: true });
    },
    output: () => log,
  };
}
