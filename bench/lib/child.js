import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: the working directory of every built app a bench starts. */
export const ROOT_DIR = fileURLToPath(new URL('../../', import.meta.url));

/** A file of the build (`dist/<path>`); fails with what to do when it is not there. */
export function builtFile(path) {
  const file = join(ROOT_DIR, 'dist', path);
  if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` (npm run bench does)`);
  return file;
}

/** Keeps the last `size` lines of a child's output, for the error message when it dies. */
export function outputTail(size = 40) {
  const lines = [];
  return {
    keep: (prefix) => (chunk) => {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (!line.trim()) continue;
        lines.push(`${prefix}${line}`);
        if (lines.length > size) lines.shift();
      }
    },
    text: () => lines.join('\n'),
  };
}

/**
 * Follows a child's exit: `exit` resolves to its `{code, signal}`, `exited()` is that once it is
 * gone (else null). stop() asks it to end (SIGTERM unless `ask` says otherwise) and kills it
 * when it has not within `graceMs`, so no stop can hang and no child outlives its bench.
 */
export function exitWatch(child) {
  let exited = null;
  const exit = new Promise((resolve) => child.once('exit', (code, signal) => resolve((exited = { code, signal }))));
  return {
    exit,
    exited: () => exited,
    async stop({ graceMs = 10_000, ask = () => child.kill('SIGTERM') } = {}) {
      if (exited) return;
      ask();
      let timer;
      const timeout = new Promise((resolve) => (timer = setTimeout(() => resolve('timeout'), graceMs)));
      const first = await Promise.race([exit, timeout]);
      clearTimeout(timer);
      if (first === 'timeout') {
        child.kill('SIGKILL');
        await exit;
      }
    },
  };
}

/**
 * A built app (`dist/<path>`, run as production runs it: this Node with `nodeArgs`, the repository
 * as working directory) as a child process; its output is kept (last lines) under `[<name>]` and
 * `[<name> stderr]`.
 */
export function spawnBuilt(path, args, { env, name, nodeArgs = [] }) {
  const file = builtFile(path);
  const child = spawn(process.execPath, [...nodeArgs, file, ...args], {
    cwd: ROOT_DIR,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tail = outputTail();
  child.stdout.on('data', tail.keep(`[${name}] `));
  child.stderr.on('data', tail.keep(`[${name} stderr] `));
  const watch = exitWatch(child);
  return {
    child,
    pid: child.pid,
    tail: tail.text,
    exit: watch.exit,
    alive: () => !watch.exited(),
    exited: watch.exited,
    stop: () => watch.stop(),
  };
}
