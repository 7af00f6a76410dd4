import { randomBytes } from 'node:crypto';
import { CommandError, type CommandRunner } from '../command-runner.js';

/** What speed limits need on the host: `tc` (iproute2) and ifb devices (the `ifb` kernel module). */
export interface ShapingTools {
  tc: boolean;
  ifb: boolean;
  /** Why ifb devices cannot be made, when they cannot (the kernel's words). */
  ifbWhy?: string;
}

/**
 * Found by trying: `tc -V` runs, and an ifb device can be created (and is deleted again) under a
 * random name nobody else uses, which also loads the module where the kernel autoloads it.
 * `canCreate` false (not root, no `ip`) skips the second test: it would fail for that reason.
 */
export async function probeShaping(runner: CommandRunner, canCreate: boolean): Promise<ShapingTools> {
  const tc = await runner.run('tc', ['-V'], { timeoutMs: 5000 }).then(
    () => true,
    (error: unknown) => !(error instanceof CommandError && (error.reason === 'not-found' || error.reason === 'spawn')),
  );
  if (!canCreate) return { tc, ifb: false, ifbWhy: 'cannot create devices' };
  const name = `wrnifb${randomBytes(3).toString('hex')}`;
  try {
    await runner.run('ip', ['link', 'add', 'dev', name, 'type', 'ifb'], { timeoutMs: 5000 });
  } catch (error) {
    const why = error instanceof CommandError ? error.stderr : String(error);
    return { tc, ifb: false, ifbWhy: /Unknown device type/i.test(why) ? 'no ifb module' : why };
  }
  await runner.run('ip', ['link', 'del', 'dev', name], { timeoutMs: 5000 }).catch(() => undefined);
  return { tc, ifb: true };
}

/** Why limits cannot be enforced with these tools; null when they can. */
export function missingTools(tools: ShapingTools): string | null {
  if (!tools.tc) return 'tc (iproute2) not installed';
  if (!tools.ifb) return `ifb devices unavailable (${tools.ifbWhy ?? 'no ifb module'})`;
  return null;
}
