import type { FieldError } from './api-error.js';

/**
 * AmneziaWG obfuscation settings of one interface. Server and every client must share them
 * exactly, so they are generated once per interface and copied into each profile. Shared by the
 * controller (which generates and checks them) and the web panel (which offers generated ones in
 * its form), so both apply the same bounds.
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

/** In the order they are checked and shown. */
export const AMNEZIA_FIELDS: readonly AmneziaField[] = ['jc', 'jmin', 'jmax', 's1', 's2', 'h1', 'h2', 'h3', 'h4'];

/** A full set within the bounds; `between(min, max)` draws an integer in [min..max]. */
export function generateAmneziaWith(between: (min: number, max: number) => number): AmneziaParams {
  const draw = (field: AmneziaField) => between(AMNEZIA_BOUNDS[field][0], AMNEZIA_BOUNDS[field][1]);
  const jmin = draw('jmin');
  const s1 = draw('s1');
  let s2: number;
  do s2 = draw('s2');
  while (s2 - s1 === FORBIDDEN_S_DIFFERENCE);
  return {
    jc: draw('jc'),
    jmin,
    jmax: between(jmin + JMAX_MIN_GAP, AMNEZIA_BOUNDS.jmax[1]),
    s1,
    s2,
    h1: draw('h1'),
    h2: draw('h2'),
    h3: draw('h3'),
    h4: draw('h4'),
  };
}

/**
 * Every failing field of a set (empty when it is valid), each as `awg.<field>` with a code the
 * web panel translates and a sentence. Accepts unknown input so operator-supplied (imported,
 * patched) parameters can be checked before they are trusted.
 */
export function amneziaFailures(p: unknown): FieldError[] {
  if (typeof p !== 'object' || p === null || Array.isArray(p))
    return [{ field: 'awg', code: 'object', message: 'awg must be an object of AmneziaWG parameters' }];
  const v = p as Record<string, unknown>;
  const failures: FieldError[] = [];
  const fail = (field: AmneziaField, code: string, message: string, params?: Record<string, number>) =>
    failures.push({ field: `awg.${field}`, code, message, ...(params ? { params } : {}) });
  for (const field of AMNEZIA_FIELDS) {
    const value = v[field];
    const [min, max] = AMNEZIA_BOUNDS[field];
    const range = `awg.${field} must be an integer in [${min}..${max}]`;
    if (value === undefined) fail(field, 'required', range);
    else if (typeof value !== 'number' || !Number.isInteger(value)) fail(field, 'wholeNumber', range);
    else if (value < min) fail(field, 'tooSmall', range, { min });
    else if (value > max) fail(field, 'tooLarge', range, { max });
    else if (field === 'jmax' && typeof v.jmin === 'number' && value < v.jmin + JMAX_MIN_GAP) {
      const least = v.jmin + JMAX_MIN_GAP;
      fail(field, 'tooSmall', `awg.jmax must be at least awg.jmin + ${JMAX_MIN_GAP} (${least})`, { min: least });
    } else if (field === 's2' && typeof v.s1 === 'number' && value - v.s1 === FORBIDDEN_S_DIFFERENCE) {
      fail(
        field,
        'invalid',
        `awg.s2 must not equal awg.s1 + ${FORBIDDEN_S_DIFFERENCE}: handshake initiation and response would have the same size`,
      );
    }
  }
  // Unreachable with the disjoint ranges above, kept so narrowing the bounds cannot break it.
  if (!failures.length && new Set(AMNEZIA_FIELDS.slice(5).map((field) => v[field])).size !== 4)
    fail('h4', 'repeated', 'awg.h1..h4 must differ from each other');
  return failures;
}
