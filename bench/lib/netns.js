import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';

const exec = promisify(execFile);

export const randomHex = (length) =>
  randomBytes(Math.ceil(length / 2))
    .toString('hex')
    .slice(0, length);

/** Fails with the Debian package to install when a tool is missing. */
export async function requireTools(tools, packages) {
  for (const tool of tools) {
    await exec('sh', ['-c', `command -v ${tool}`]).catch(() => {
      throw new Error(`${tool} is missing: apt-get install -y ${packages}`);
    });
  }
}

/**
 * A network namespace of the bench's own under a random name. destroy() ends every process
 * inside (SIGTERM, then SIGKILL after 5 s: wireguard-go removes its UAPI socket on SIGTERM) and
 * deletes it; it never throws and may be called more than once.
 */
export async function createNamespace(prefix) {
  if (process.getuid?.() !== 0) throw new Error('network namespaces need root');
  const name = `${prefix}-${randomHex(8)}`;
  await exec('ip', ['netns', 'add', name]);
  let destroyed = false;
  const ns = {
    name,
    // A large buffer: `wg show … dump` of 10,000 peers is megabytes.
    exec: async (command, ...args) =>
      (await exec('ip', ['netns', 'exec', name, command, ...args], { maxBuffer: 1 << 28 })).stdout,
    pids: async () => (await exec('ip', ['netns', 'pids', name])).stdout.split('\n').filter(Boolean).map(Number),
    async destroy() {
      if (destroyed) return;
      destroyed = true;
      let pids = await ns.pids().catch(() => []);
      for (const pid of pids) signal(pid, 'SIGTERM');
      for (let waited = 0; pids.length > 0 && waited < 5000; waited += 50) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        pids = pids.filter(alive);
      }
      for (const pid of pids) signal(pid, 'SIGKILL');
      await exec('ip', ['netns', 'del', name]).catch((error) =>
        console.error(`bench: deleting namespace ${name} failed: ${error.message}`),
      );
    },
  };
  try {
    await ns.exec('ip', 'link', 'set', 'lo', 'up');
  } catch (error) {
    await ns.destroy();
    throw error;
  }
  return ns;
}

function signal(pid, name) {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}

/** Alive and not a zombie. */
function alive(pid) {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
