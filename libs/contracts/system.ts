import { z } from 'zod';

/**
 * One reading of a host's state. The agent samples every 2 s and sends it over its WebSocket;
 * the controller samples its own host the same way (libs/system).
 */
const usage = z.object({
  used: z.number().nonnegative(),
  total: z.number().nonnegative(),
  percent: z.number().min(0).max(100),
});

export const systemSampleSchema = z.object({
  /** When it was read, ms since the epoch. */
  at: z.number().int().nonnegative(),
  cpu: z.object({
    percent: z.number().min(0).max(100),
    cores: z.number().int().positive(),
    load1: z.number().nonnegative(),
    load5: z.number().nonnegative(),
    load15: z.number().nonnegative(),
  }),
  /** used = total - available. */
  memory: usage,
  swap: usage,
  /** The filesystem holding the data directory. */
  disk: usage,
  /** All interfaces but loopback; rates in bytes per second over the last interval (0 on the first sample). */
  network: z.object({
    rxBytes: z.number().nonnegative(),
    txBytes: z.number().nonnegative(),
    rxRate: z.number().nonnegative(),
    txRate: z.number().nonnegative(),
  }),
  uptimeSeconds: z.number().nonnegative(),
  /** Resident memory of the process that took the sample (agent or controller), bytes. */
  processRss: z.number().nonnegative(),
});
export type SystemSample = z.infer<typeof systemSampleSchema>;
