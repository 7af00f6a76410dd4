import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { AGENT_MAIN, ROOT_DIR, outputTail } from './panel-process.js';

/**
 * The built agent (`dist/apps/agent/src/main.js`, as production runs it) as a child process,
 * applying inside the network namespace `netns`, with its own data directory.
 */
export function startAgentProcess({ controllerUrl, enrolSecret, dataDir, netns, env = {} }) {
  if (!existsSync(AGENT_MAIN)) throw new Error(`${AGENT_MAIN} is missing: run \`npm run build\` (npm run bench does)`);
  const args = ['--controller', controllerUrl, '--data-dir', dataDir, '--netns', netns];
  if (enrolSecret) args.push('--enrol', enrolSecret);
  const childEnv = { ...process.env, WARREN_LOG_LEVEL: 'warn', ...env };
  const child = spawn(process.execPath, [AGENT_MAIN, ...args], { cwd: ROOT_DIR, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const tail = outputTail();
  child.stdout.on('data', tail.keep('[agent] '));
  child.stderr.on('data', tail.keep('[agent stderr] '));
  let exited = null;
  const exit = new Promise((resolve) => child.once('exit', (code, signal) => resolve((exited = { code, signal }))));
  return {
    pid: child.pid,
    alive: () => !exited,
    exit: () => exited,
    tail: tail.text,
    async stop() {
      if (exited) return;
      child.kill('SIGTERM');
      const timeout = new Promise((resolve) => setTimeout(() => resolve('timeout'), 10_000));
      if ((await Promise.race([exit, timeout])) === 'timeout') {
        child.kill('SIGKILL');
        await exit;
      }
    },
  };
}
