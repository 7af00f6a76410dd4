import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { probeResultSchema, type ProbeJob, type ProbeResult } from '#libs/contracts/routing.js';
import { errorText, type CommandRunner } from '../../host/command-runner.js';

/**
 * Runs a probe in a child process through the agent's CommandRunner, so it happens inside the
 * node's namespace like every other host command. The child gets the job in a 0600 file (never
 * on its command line: hop passwords) and answers with one JSON line; anything else it does
 * (crash, garbage, no answer in time) is an `internal` or `timeout` result, never an exception.
 */

/** Node starts and loads the probe in ~100 ms; the child's own deadline is the job's. */
const STARTUP_MARGIN_MS = 5000;

function childScript(): string {
  const here = fileURLToPath(import.meta.url);
  // Tests import the TypeScript source; the child always runs from the build (dist/).
  if (here.endsWith('.ts'))
    return here.replace(
      /\/apps\/agent\/src\/work\/probe\/probe-runner\.ts$/,
      '/dist/apps/agent/src/work/probe/probe-child.js',
    );
  return join(dirname(here), 'probe-child.js');
}

export async function probeThroughRunner(runner: CommandRunner, workDir: string, job: ProbeJob): Promise<ProbeResult> {
  mkdirSync(workDir, { recursive: true, mode: 0o700 });
  const file = join(workDir, `probe-${randomBytes(8).toString('hex')}.json`);
  writeFileSync(file, JSON.stringify(job), { mode: 0o600 });
  try {
    const { stdout } = await runner.run(process.execPath, [childScript(), file], {
      timeoutMs: job.timeoutMs + STARTUP_MARGIN_MS,
    });
    const line = stdout.trim().split('\n').pop() ?? '';
    return probeResultSchema.parse(JSON.parse(line));
  } catch (error) {
    const text = errorText(error);
    return {
      ok: false,
      latencyMs: null,
      stages: { dns: null, connect: null, handshake: null, firstByte: null },
      errorClass: /timed out/.test(text) ? 'timeout' : 'internal',
      error: `probe failed: ${text}`.slice(0, 500),
      egressIp: null,
    };
  } finally {
    rmSync(file, { force: true });
  }
}
