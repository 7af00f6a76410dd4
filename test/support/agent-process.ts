import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run, ROOT, runProgram, type Spawned } from './spawned-process.js';

export const AGENT_MAIN = join(ROOT, 'dist/apps/agent/src/main.js');
/** The agent's launcher and update watchdog (what warren-agent.service runs). */
export const AGENT_LAUNCHER = join(ROOT, 'bin/warren-agent-launcher');

export interface AgentProcess {
  dataDir: string;
  current: Spawned;
  /** Starts it again on the same data directory (after kill or stop). */
  restart(extraArgs?: string[]): Spawned;
  /** SIGKILL: no shutdown hooks, as a crash or power loss. */
  kill(): Promise<void>;
  stop(): Promise<void>;
  output(): string;
}

/**
 * The built agent (`dist/`, as production runs it) as a child process applying inside a test's
 * network namespace, with its own data directory. With `installDir` (a releases layout:
 * test/support/agent-install-dir.ts) it runs through its launcher, as warren-agent.service does,
 * in a process group of its own so that kill() ends the agent under it too.
 */
export function startAgent(options: {
  controllerUrl: string;
  enrolSecret?: string;
  netns: string;
  env?: Record<string, string>;
  installDir?: string;
}): AgentProcess {
  const dataDir = mkdtempSync(join(tmpdir(), 'warren-agent-'));
  const env = {
    ...process.env,
    WARREN_AGENT_REPORT_INTERVAL_MS: '500',
    WARREN_LOG_LEVEL: 'log',
    ...options.env,
  };
  // Test panels serve plain HTTP on loopback.
  const baseArgs = [
    '--controller',
    options.controllerUrl,
    '--data-dir',
    dataDir,
    '--netns',
    options.netns,
    '--allow-insecure-http',
  ];
  let log = '';
  const launch = (args: string[]) => {
    const spawned = options.installDir
      ? runProgram(AGENT_LAUNCHER, [options.installDir, ...args], env, { group: true })
      : run(AGENT_MAIN, args, env);
    void spawned.exited.then(() => (log += spawned.stdout + spawned.stderr));
    return spawned;
  };
  const agent: AgentProcess = {
    dataDir,
    current: launch(options.enrolSecret ? [...baseArgs, '--enrol', options.enrolSecret] : baseArgs),
    restart(extraArgs = []) {
      agent.current = launch([...baseArgs, ...extraArgs]);
      return agent.current;
    },
    async kill() {
      if (options.installDir) process.kill(-agent.current.child.pid!, 'SIGKILL');
      else agent.current.child.kill('SIGKILL');
      await agent.current.exited;
    },
    async stop() {
      if (agent.current.child.exitCode === null && agent.current.child.signalCode === null) {
        agent.current.child.kill('SIGTERM');
        const timer = setTimeout(() => agent.current.child.kill('SIGKILL'), 10_000);
        await agent.current.exited;
        clearTimeout(timer);
      }
    },
    output: () => log + agent.current.stdout + agent.current.stderr,
  };
  return agent;
}
