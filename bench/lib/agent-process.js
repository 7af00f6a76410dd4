import { spawnBuilt } from './child.js';

/**
 * The built agent (`dist/apps/agent/src/main.js`, as production runs it) as a child process,
 * applying inside the network namespace `netns`, with its own data directory. The benches' panels
 * serve plain http:// on loopback, which the agent refuses unless told (--allow-insecure-http).
 */
export function startAgentProcess({ controllerUrl, enrolSecret, dataDir, netns, env = {} }) {
  const args = ['--controller', controllerUrl, '--data-dir', dataDir, '--netns', netns];
  if (enrolSecret) args.push('--enrol', enrolSecret);
  if (controllerUrl.startsWith('http://')) args.push('--allow-insecure-http');
  const agent = spawnBuilt('apps/agent/src/main.js', args, {
    env: { ...process.env, WARREN_LOG_LEVEL: 'warn', ...env },
    name: 'agent',
  });
  return { pid: agent.pid, alive: agent.alive, exit: agent.exited, tail: agent.tail, stop: agent.stop };
}
