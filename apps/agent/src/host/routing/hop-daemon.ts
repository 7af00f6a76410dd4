import { readFileSync, rmSync } from 'node:fs';
import type { CommandRunner } from '../command-runner.js';

/**
 * A hop's long-lived helper (redsocks, ss-redir, dnsmasq) run the way wireguard-go is: in its own
 * daemon mode through `setsid --wait`, so it lives in a session of its own (a Ctrl-C on the
 * agent's terminal does not reach it) and belongs to no agent process (it keeps running while the
 * agent restarts). Its pid comes from the pid file it writes; a pid counts as ours only while
 * `/proc/<pid>/cmdline` still names our config file, so a recycled pid is never signalled.
 */

export interface DaemonSpec {
  /** Program name as the runner resolves it. */
  program: string;
  /** Full argument list; must contain `configFile` (how the process is recognised). */
  args: string[];
  configFile: string;
  pidFile: string;
}

const PID_WAIT_MS = 3000;
const SETTLE_MS = 150;

/** True when `pid` is alive and is the daemon started with this config file. */
export function isOurDaemon(pid: number | null | undefined, configFile: string): boolean {
  if (!pid || !Number.isInteger(pid) || pid <= 1) return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    if (/^\d+ \(.*\) Z/.test(stat)) return false; // a zombie is gone for our purposes
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').includes(configFile);
  } catch {
    return false;
  }
}

/** Starts the daemon and returns its pid once it has written its pid file and is still alive. */
export async function startDaemon(runner: CommandRunner, spec: DaemonSpec): Promise<number> {
  rmSync(spec.pidFile, { force: true });
  await runner.run(spec.program, spec.args, { newSession: true, timeoutMs: 10_000 });
  const deadline = Date.now() + PID_WAIT_MS;
  let pid = 0;
  while (Date.now() < deadline) {
    pid = readPid(spec.pidFile);
    if (pid && isOurDaemon(pid, spec.configFile)) break;
    await sleep(20);
  }
  if (!pid) throw new Error(`${spec.program} started but wrote no pid file (${spec.pidFile})`);
  // Some (ss-redir) bind only after forking: one that cannot bind exits right away.
  await sleep(SETTLE_MS);
  if (!isOurDaemon(pid, spec.configFile))
    throw new Error(
      `${spec.program} exited right after starting (port in use or bad settings? see ${spec.configFile.replace(/\.[a-z]+$/, '.log')})`,
    );
  return pid;
}

/** Stops our daemon (SIGTERM, then SIGKILL after 2 s); a pid that is no longer ours is left alone. */
export async function stopDaemon(pid: number | null | undefined, configFile: string): Promise<void> {
  if (!isOurDaemon(pid, configFile)) return;
  signal(pid!, 'SIGTERM');
  for (let waited = 0; waited < 2000; waited += 20) {
    if (!isOurDaemon(pid, configFile)) return;
    await sleep(20);
  }
  if (isOurDaemon(pid, configFile)) signal(pid!, 'SIGKILL');
}

function readPid(file: string): number {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 1 ? pid : 0;
  } catch {
    return 0;
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // gone meanwhile
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
