/**
 * Tests wait for conditions, not for time: the one poll loop every test and support file uses.
 * The timeout only bounds how long a condition that never comes is waited for; how fast things
 * happen is measured by the benchmarks.
 */

/** Thrown by a check to stop waiting at once (the process it waits on has exited, say). */
export class GiveUp extends Error {}

/**
 * Polls `check` until it returns a value other than undefined or false, and returns that value.
 * A check that throws is tried again (the last error is quoted if time runs out), unless it
 * throws GiveUp. Fails with `what` after `timeoutMs`.
 */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 20_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      if (error instanceof GiveUp) throw error;
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
