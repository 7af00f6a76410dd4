import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { basename } from 'node:path';
import type { CommandRunner } from './command-runner.js';
import { tunnelArg } from './host-arguments.js';
import type { Driver } from './managed-state.js';

/**
 * Creating and deleting the WireGuard link itself, by kernel module or wireguard-go.
 *
 * wireguard-go is run in its default daemon mode: the parent creates the TUN device and binds
 * the UAPI socket before it forks the daemon and exits 0, so when the command returns the
 * interface is ready for `wg`, and a failure (name taken, socket in use) is its exit status.
 * The daemon belongs to no agent process, and to no process group of the agent's (it starts in a
 * session of its own): tunnels stay up while the agent restarts, and when a terminal's Ctrl-C
 * stops the agent with everything else in its foreground group.
 */

/** Where wireguard-go's UAPI sockets live: one directory for the whole host, not per namespace. */
export const WIREGUARD_SOCKET_DIR = '/var/run/wireguard';
const REMOVAL_WAIT_MS = 3000;

export function socketPath(name: string): string {
  return `${WIREGUARD_SOCKET_DIR}/${name}.sock`;
}

export async function createLink(runner: CommandRunner, name: string, driver: Driver): Promise<void> {
  const dev = tunnelArg(name);
  if (driver === 'kernel') await runner.run('ip', ['link', 'add', 'dev', dev, 'type', 'wireguard']);
  else await runner.run('wireguard-go', [dev], { newSession: true });
}

/**
 * Deletes the link. For wireguard-go, deleting the TUN device makes the daemon exit and remove
 * its socket; this waits for that, then as a fallback removes the socket (the daemon watches it
 * and exits when it goes) and finally signals a daemon that still serves this name.
 * Resolves to a warning when something was left behind, or null.
 */
export async function removeLink(
  runner: CommandRunner,
  name: string,
  driver: Driver,
  exists: boolean,
): Promise<string | null> {
  // Names come back from managed.json here: checked like new ones (the socket path is built from it too).
  if (exists) await runner.run('ip', ['link', 'del', 'dev', tunnelArg(name)]);
  else tunnelArg(name);
  if (driver === 'kernel') return null;

  const gone = () => !existsSync(socketPath(name)) && wireguardGoPids(name).length === 0;
  if (await waitFor(gone, REMOVAL_WAIT_MS)) return null;
  rmSync(socketPath(name), { force: true });
  if (await waitFor(gone, REMOVAL_WAIT_MS)) return null;
  for (const pid of wireguardGoPids(name)) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // exited meanwhile
    }
  }
  if (await waitFor(gone, REMOVAL_WAIT_MS)) return null;
  return `wireguard-go for ${name} did not exit (pids ${wireguardGoPids(name).join(', ')})`;
}

/**
 * Processes running `wireguard-go <name>` (either mode). Interface names are unique on a host
 * (the socket directory is shared by all namespaces), so the name identifies the daemon.
 */
export function wireguardGoPids(name: string): number[] {
  const pids: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return pids;
  }
  for (const entry of entries) {
    const first = entry.charCodeAt(0);
    if (first < 48 || first > 57) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'latin1');
    } catch {
      continue; // exited while we looked
    }
    const argv = cmdline.split('\0');
    if (basename(argv[0]) !== 'wireguard-go') continue;
    const args = argv.slice(1).filter((a) => a !== '' && a !== '-f' && a !== '--foreground');
    if (args.length === 1 && args[0] === name) pids.push(Number(entry));
  }
  return pids;
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (condition()) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
