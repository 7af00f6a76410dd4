import { randomInt } from 'node:crypto';

/**
 * The seed of a test file's random choices: `variable` from the environment when set (to replay a
 * run), else a new one. Printed either way, so a failed run names the seed that reproduces it.
 * The fuzz suite passes it to fast-check (FUZZ_SEED); other suites draw from seededRandom.
 */
export function testSeed(variable: string, suite: string): number {
  const given = process.env[variable];
  const seed = given === undefined || given === '' ? randomInt(2 ** 31) : Number(given);
  if (!Number.isSafeInteger(seed)) throw new Error(`${variable} must be an integer, got "${given}"`);
  process.stdout.write(`${suite}: random choices from seed ${seed} (${variable}=${seed} replays them)\n`);
  return seed;
}

/** A reproducible source of random numbers (mulberry32): the same seed gives the same sequence. */
export function seededRandom(seed: number): { next(): number; int(min: number, max: number): number } {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  /** A whole number from min to max, both included. */
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return { next, int };
}
