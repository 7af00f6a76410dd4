import { randomInt } from 'node:crypto';

import {
  AMNEZIA_FIELDS,
  amneziaFailures,
  generateAmneziaWith,
  type AmneziaField,
  type AmneziaParams,
} from '#libs/contracts/amnezia.js';

// The parameters, their bounds and checks are shared with the web panel (libs/contracts).
export {
  AMNEZIA_BOUNDS,
  AMNEZIA_FIELDS,
  amneziaFailures,
  FORBIDDEN_S_DIFFERENCE,
  JMAX_MIN_GAP,
  type AmneziaField,
  type AmneziaParams,
} from '#libs/contracts/amnezia.js';

export function generateAmneziaParams(): AmneziaParams {
  return generateAmneziaWith((min, max) => between([min, max]));
}

/**
 * Returns the first offending field name, or null when the set is valid (every failing field:
 * amneziaFailures).
 */
export function validateAmneziaParams(p: unknown): AmneziaField | null {
  const first = amneziaFailures(p)[0];
  if (!first) return null;
  return first.field === 'awg' ? AMNEZIA_FIELDS[0]! : (first.field.slice('awg.'.length) as AmneziaField);
}

function between([min, max]: readonly [number, number]): number {
  // crypto.randomInt's upper bound is exclusive.
  return randomInt(min, max + 1);
}
