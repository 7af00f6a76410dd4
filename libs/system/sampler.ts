import { readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { SystemSample } from '#libs/contracts/system.js';
import { diskUsage } from './disk.js';
import { hostTotals, transferredBetween } from './network.js';
import {
  clampPercent,
  cpuPercent,
  parseCpuTimes,
  parseMeminfo,
  parseNetDev,
  parseUptime,
  type CpuTimes,
  type InterfaceCounters,
} from './proc.js';

export interface SamplerOptions {
  /** The filesystem holding this path is the sample's `disk` (the data directory). */
  diskPath: string;
  /** Where procfs is mounted; tests of the parsers use fixed text instead, so this is rarely changed. */
  procDir?: string;
}

export interface Sampler {
  /** Reads the host now. CPU percent and network rates cover the time since the previous call. */
  sample(): Promise<SystemSample>;
}

interface Previous {
  at: number;
  cpu: CpuTimes;
  cpuPercent: number;
  interfaces: Map<string, InterfaceCounters>;
}

const usage = (used: number, total: number) => ({
  used,
  total,
  percent: total > 0 ? clampPercent((used / total) * 100) : 0,
});

/**
 * A reader of the local host's state, cheap enough to run every 2 s on every host: four small
 * procfs files, one statfs and two calls Node answers without I/O (load averages and its own
 * RSS). It keeps the previous reading, because CPU percent and network rates are differences.
 * The first sample's CPU percent is the average since boot (the counters' own start); its
 * network rates are 0, as the contract says.
 */
export function createSampler(options: SamplerOptions): Sampler {
  const proc = options.procDir ?? '/proc';
  const read = (file: string) => readFile(join(proc, file), 'utf8');
  let previous: Previous | undefined;
  // Calls are serialised: two overlapping samples would both measure against the same previous one.
  let queue: Promise<unknown> = Promise.resolve();

  async function take(): Promise<SystemSample> {
    const [stat, meminfo, netDev, uptime, disk] = await Promise.all([
      read('stat'),
      read('meminfo'),
      read('net/dev'),
      read('uptime'),
      diskUsage(options.diskPath),
    ]);
    const at = Date.now();
    const cpu = parseCpuTimes(stat);
    const memory = parseMeminfo(meminfo);
    const interfaces = parseNetDev(netDev);
    const [load1, load5, load15] = loadavg();

    const sinceBoot = cpuPercent({ total: 0, idle: 0, cores: cpu.cores }, cpu) ?? 0;
    // No tick passed since the previous call (two calls in the same few ms): keep its figure.
    const percent = previous ? (cpuPercent(previous.cpu, cpu) ?? previous.cpuPercent) : sinceBoot;
    const totals = hostTotals(interfaces);
    let rxRate = 0;
    let txRate = 0;
    if (previous && at > previous.at) {
      const moved = transferredBetween(previous.interfaces, interfaces);
      const seconds = (at - previous.at) / 1000;
      rxRate = moved.rxBytes / seconds;
      txRate = moved.txBytes / seconds;
    }
    previous = { at, cpu, cpuPercent: percent, interfaces };

    return {
      at,
      cpu: { percent, cores: cpu.cores, load1, load5, load15 },
      memory: usage(memory.memoryTotal - memory.memoryAvailable, memory.memoryTotal),
      swap: usage(memory.swapTotal - memory.swapFree, memory.swapTotal),
      disk,
      network: { rxBytes: totals.rxBytes, txBytes: totals.txBytes, rxRate, txRate },
      uptimeSeconds: parseUptime(uptime),
      processRss: process.memoryUsage.rss(),
    };
  }

  return {
    sample() {
      const next = queue.then(take);
      queue = next.catch(() => undefined);
      return next;
    },
  };
}
