import type { SystemSample } from '#libs/contracts/system.js';

/** Reads this host's state (libs/system). */
export interface SystemSampler {
  sample(): Promise<SystemSample>;
}

export const SYSTEM_SAMPLER = Symbol('SYSTEM_SAMPLER');
