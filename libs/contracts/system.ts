import { z } from 'zod';
import { byteCount, MAX_TIMESTAMP_MS, timestampMs } from './numbers.js';

/**
 * One reading of a host's state. The agent samples every 2 s and sends it over its WebSocket;
 * the controller samples its own host the same way (libs/system).
 */
/** Linux's largest CONFIG_NR_CPUS; the history keeps cores in a smallint column. */
export const MAX_CORES = 8192;
/** A load average far beyond any real host (it is a run-queue length), yet finite and printable. */
export const MAX_LOAD = 1_000_000;

const usage = z.object({
  used: byteCount,
  total: byteCount,
  percent: z.number().min(0).max(100),
});

export const systemSampleSchema = z.object({
  /** When it was read, ms since the epoch. */
  at: timestampMs,
  cpu: z.object({
    percent: z.number().min(0).max(100),
    cores: z.number().int().min(1).max(MAX_CORES),
    load1: z.number().nonnegative().max(MAX_LOAD),
    load5: z.number().nonnegative().max(MAX_LOAD),
    load15: z.number().nonnegative().max(MAX_LOAD),
  }),
  /** used = total - available. */
  memory: usage,
  swap: usage,
  /** The filesystem holding the data directory. */
  disk: usage,
  /** All interfaces but loopback; rates in bytes per second over the last interval (0 on the first sample). */
  network: z.object({
    rxBytes: byteCount,
    txBytes: byteCount,
    rxRate: byteCount,
    txRate: byteCount,
  }),
  uptimeSeconds: z
    .number()
    .nonnegative()
    .max(MAX_TIMESTAMP_MS / 1000),
  /** Resident memory of the process that took the sample (agent or controller), bytes. */
  processRss: byteCount,
});
export type SystemSample = z.infer<typeof systemSampleSchema>;
