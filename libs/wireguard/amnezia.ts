import { randomInt } from 'node:crypto';

/**
 * AmneziaWG obfuscation settings of one interface. Server and every client must share them
 * exactly, so they are generated once per interface and copied into each profile.
 */
export interface AmneziaParams {
  /** Junk packets sent before each handshake. */
  jc: number;
  /** Junk packet size range, bytes. */
  jmin: number;
  jmax: number;
  /** Random padding prepended to handshake initiation (s1) and response (s2). */
  s1: number;
  s2: number;
  /** Replacements for the four WireGuard message-type headers. */
  h1: number;
  h2: number;
  h3: number;
  h4: number;
}

export type AmneziaField = keyof AmneziaParams;

export const AMNEZIA_BOUNDS = {
  jc: [3, 6],
  jmin: [40, 89],
  // jmax's lower bound is jmin + JMAX_MIN_GAP, checked separately.
  jmax: [40 + 50, 250],
  s1: [15, 150],
  s2: [15, 150],
  // Each header gets its own decade so they can never coincide with each other or with
  // WireGuard's own types 1..4, which is what would make the traffic recognisable.
  h1: [100_000, 500_000],
  h2: [1_000_000, 5_000_000],
  h3: [10_000_000, 50_000_000],
  h4: [100_000_000, 500_000_000],
} as const satisfies Record<AmneziaField, readonly [number, number]>;

/** A wider junk range makes junk sizes less predictable. */
export const JMAX_MIN_GAP = 50;

/**
 * An initiation (148 bytes) padded by s1 and a response (92 bytes) padded by s2 are the same
 * size when s2 - s1 = 56. AmneziaWG tells the two messages apart by size, so it refuses that
 * combination.
 */
export const FORBIDDEN_S_DIFFERENCE = 148 - 92;

/** Checked in this order; validation reports the first failing field. */
const FIELD_ORDER: readonly AmneziaField[] = ['jc', 'jmin', 'jmax', 's1', 's2', 'h1', 'h2', 'h3', 'h4'];

export function generateAmneziaParams(): AmneziaParams {
  const jmin = between(AMNEZIA_BOUNDS.jmin);
  const s1 = between(AMNEZIA_BOUNDS.s1);
  let s2: number;
  do s2 = between(AMNEZIA_BOUNDS.s2);
  while (s2 - s1 === FORBIDDEN_S_DIFFERENCE);
  return {
    jc: between(AMNEZIA_BOUNDS.jc),
    jmin,
    jmax: between([jmin + JMAX_MIN_GAP, AMNEZIA_BOUNDS.jmax[1]]),
    s1,
    s2,
    h1: between(AMNEZIA_BOUNDS.h1),
    h2: between(AMNEZIA_BOUNDS.h2),
    h3: between(AMNEZIA_BOUNDS.h3),
    h4: between(AMNEZIA_BOUNDS.h4),
  };
}

/**
 * Returns the first offending field name, or null when the set is valid. Accepts unknown input
 * so operator-supplied (imported, patched) parameters can be checked before they are trusted.
 */
export function validateAmneziaParams(p: unknown): AmneziaField | null {
  if (typeof p !== 'object' || p === null) return FIELD_ORDER[0];
  const v = p as Record<string, unknown>;
  for (const field of FIELD_ORDER) {
    const value = v[field];
    const [min, max] = AMNEZIA_BOUNDS[field];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      return field;
    }
    if (field === 'jmax' && value < (v.jmin as number) + JMAX_MIN_GAP) return field;
    if (field === 's2' && value - (v.s1 as number) === FORBIDDEN_S_DIFFERENCE) return field;
  }
  const headers = new Set([v.h1, v.h2, v.h3, v.h4]);
  // Unreachable with the disjoint ranges above, kept so narrowing the bounds cannot break it.
  if (headers.size !== 4) return 'h4';
  return null;
}

function between([min, max]: readonly [number, number]): number {
  // crypto.randomInt's upper bound is exclusive.
  return randomInt(min, max + 1);
}
