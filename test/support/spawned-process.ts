import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { freePort } from '../../libs/net/free-port.js';
import { GiveUp, waitFor } from './wait-for.js';

/** The repository root: the built panel and CLI are run from dist/ there, as `npm start` does. */
export const ROOT = new URL('../../', import.meta.url).pathname;
export const PANEL_MAIN = join(ROOT, 'dist/apps/controller/src/main.js');
export const CLI_MAIN = join(ROOT, 'dist/apps/controller/src/cli/main.js');

export interface Spawned {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const everySpawned = new Set<ChildProcess>();

/** Runs a built entry point on this Node (24, the one jest runs on), collecting its output; `input` is its whole stdin. */
export function run(script: string, args: string[], env: NodeJS.ProcessEnv, input?: string): Spawned {
  return runProgram(process.execPath, [script, ...args], env, { input });
}

/**
 * Runs any program (a shell script), collecting its output. `group`: in a process group of its
 * own, so that killGroup() stops whatever it started too (a pipeline's exec'd last command).
 */
export function runProgram(
  program: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  options: { input?: string; group?: boolean } = {},
): Spawned {
  const { input } = options;
  const child = spawn(program, args, {
    cwd: ROOT,
    env,
    detached: options.group ?? false,
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (input !== undefined) child.stdin!.end(input);
  everySpawned.add(child);
  const spawned: Spawned = {
    child,
    stdout: '',
    stderr: '',
    exited: new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal }))),
  };
  child.stdout!.on('data', (chunk: Buffer) => (spawned.stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (spawned.stderr += chunk.toString()));
  void spawned.exited.then(() => everySpawned.delete(child));
  return spawned;
}

/** Runs to completion; the output once it has exited. */
export async function runToEnd(script: string, args: string[], env: NodeJS.ProcessEnv, input?: string) {
  const spawned = run(script, args, env, input);
  const { code } = await spawned.exited;
  return { code, stdout: spawned.stdout, stderr: spawned.stderr };
}

/** Resolves once the text appears in stdout; fails early with the output if the process exits first. */
export async function waitForOutput(spawned: Spawned, text: string, timeoutMs: number): Promise<void> {
  let exited = false;
  void spawned.exited.then(() => (exited = true));
  const output = () => `--- stdout\n${spawned.stdout}\n--- stderr\n${spawned.stderr}`;
  await waitFor(
    `"${text}" in the output`,
    () => {
      if (spawned.stdout.includes(text)) return true;
      if (exited) throw new GiveUp(`exited before printing "${text}"\n${output()}`);
      return false;
    },
    timeoutMs,
  ).catch((error: Error) => {
    throw error instanceof GiveUp ? error : new Error(`${error.message}\n${output()}`);
  });
}

/** SIGTERM to a runProgram(…, {group: true}) process and everything in its group; resolves when the leader exited. */
export async function killGroup(spawned: Spawned): Promise<void> {
  try {
    process.kill(-spawned.child.pid!, 'SIGTERM');
  } catch {
    // already gone
  }
  await spawned.exited;
}

export async function killAllSpawned(): Promise<void> {
  await Promise.all(
    [...everySpawned].map(async (child) => {
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await gone;
    }),
  );
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The embedded PostgreSQL still running on a data directory (an orphan of a killed panel), if any. */
export function postmasterOf(dataDir: string): number | undefined {
  const lockFile = join(dataDir, 'postgres', 'postmaster.pid');
  if (!existsSync(lockFile)) return undefined;
  const pid = Number(readFileSync(lockFile, 'utf8').split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 && alive(pid) ? pid : undefined;
}

export async function stopPostmaster(dataDir: string): Promise<void> {
  const pid = postmasterOf(dataDir);
  if (!pid) return;
  process.kill(pid, 'SIGINT');
  for (let waited = 0; alive(pid) && waited < 10_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
  if (alive(pid)) process.kill(pid, 'SIGKILL');
}

/** HTTPS to the panel's self-signed certificate (trust is not what this test is about). */
export function https(
  method: string,
  url: string,
  options: { token?: string; body?: unknown } = {},
): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    if (payload) headers['content-type'] = 'application/json';
    const req = request(url, { method, headers, rejectUnauthorized: false, agent: false, timeout: 10_000 }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => {
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON: keep the text
        }
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${url} timed out`)));
    req.on('error', reject);
    req.end(payload);
  });
}

export interface PanelProcess {
  spawned: Spawned;
  /** http://127.0.0.1:<port> (plain HTTP on loopback, no base path). */
  origin: string;
  pid: number;
  /** SIGTERM, then the exit (SIGKILL after 20 s). */
  stop(): Promise<void>;
}

/**
 * The built panel (dist/, as `npm start` runs it) as a process of its own, on a free loopback
 * port over plain HTTP, with `env` on top of PATH; resolves once it listens.
 */
export async function startPanelProcess(env: NodeJS.ProcessEnv): Promise<PanelProcess> {
  const port = await freePort();
  const spawned = run(PANEL_MAIN, [], {
    PATH: process.env.PATH,
    WARREN_HOST: '127.0.0.1',
    WARREN_PORT: String(port),
    WARREN_TLS: 'off',
    // No periodic hop checks unless a test turns them on for hops of its own (docs/testing.md).
    WARREN_HOP_CHECKS: 'off',
    ...env,
  });
  await waitForOutput(spawned, 'warren: panel listening on', 120_000);
  return {
    spawned,
    // A port the caller chose (a restart where its agents look for it) wins over the free one.
    origin: `http://127.0.0.1:${env.WARREN_PORT ?? port}`,
    pid: spawned.child.pid!,
    async stop() {
      if (spawned.child.exitCode !== null || spawned.child.signalCode !== null) return;
      spawned.child.kill('SIGTERM');
      const timer = setTimeout(() => spawned.child.kill('SIGKILL'), 20_000);
      await spawned.exited;
      clearTimeout(timer);
    },
  };
}
