import { readFileSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { probeJobSchema } from '#libs/contracts/routing.js';
import { runProbe } from './probe.js';

/**
 * The probe as a process of its own, started by the agent through its CommandRunner
 * (`ip netns exec <ns> node probe-child.js <job file>` when the agent manages a namespace), so
 * every lookup and connection of the probe originates in the node's namespace. The job (it may
 * hold hop credentials) comes in a 0600 file that is removed as soon as it is read; the result is
 * one line of JSON on stdout.
 */
const file = process.argv[2];
try {
  const job = probeJobSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  rmSync(file, { force: true });
  const result = await runProbe(job, { workDir: dirname(file) });
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
} catch (error) {
  rmSync(file, { force: true });
  process.stderr.write(`${(error as Error)?.message ?? String(error)}\n`);
  process.exit(2);
}
