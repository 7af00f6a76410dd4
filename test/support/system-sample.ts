import type { SystemSample } from '#libs/contracts/system.js';

/** A valid system sample taken at `at` (ms), as an agent or the controller's own sampler sends one. */
export function systemSample(
  at: number,
  over: { cpu?: number; memoryUsed?: number; rxRate?: number } = {},
): SystemSample {
  return {
    at,
    cpu: { percent: over.cpu ?? 40, cores: 4, load1: 1.5, load5: 1, load15: 0.5 },
    memory: { used: over.memoryUsed ?? 512, total: 1024, percent: ((over.memoryUsed ?? 512) / 1024) * 100 },
    swap: { used: 0, total: 0, percent: 0 },
    disk: { used: 25, total: 100, percent: 25 },
    network: { rxBytes: 1_000_000, txBytes: 2_000_000, rxRate: over.rxRate ?? 100, txRate: 200 },
    uptimeSeconds: 1000,
    processRss: 50_000_000,
  };
}
