/**
 * Parsers for the few /proc files the sampler reads. Pure functions over the file text, so they
 * can be tested against fixed text as well as against the real files.
 */

/** The aggregate CPU line of /proc/stat, in clock ticks since boot, and the number of CPUs listed. */
export interface CpuTimes {
  /** All time except guest time, which the kernel already counts inside user and nice. */
  total: number;
  /** idle + iowait: a CPU waiting on I/O is free to run something else. */
  idle: number;
  cores: number;
}

export function parseCpuTimes(stat: string): CpuTimes {
  let aggregate: number[] | undefined;
  let cores = 0;
  for (const line of stat.split('\n')) {
    if (line.startsWith('cpu ')) aggregate = line.trim().split(/\s+/).slice(1).map(Number);
    else if (/^cpu\d+\s/.test(line)) cores++;
  }
  if (!aggregate || aggregate.length < 4) throw new Error('/proc/stat has no aggregate cpu line');
  // user nice system idle iowait irq softirq steal guest guest_nice (older kernels stop earlier)
  const [user, nice, system, idle, iowait = 0, irq = 0, softirq = 0, steal = 0] = aggregate;
  return {
    total: user + nice + system + idle + iowait + irq + softirq + steal,
    idle: idle + iowait,
    cores: Math.max(1, cores),
  };
}

/** Busy share of the CPU time between two readings, 0..100; null when no time passed. */
export function cpuPercent(previous: CpuTimes, current: CpuTimes): number | null {
  const total = current.total - previous.total;
  if (total <= 0) return null;
  const busy = total - (current.idle - previous.idle);
  return clampPercent((busy / total) * 100);
}

export interface MemoryInfo {
  memoryTotal: number;
  memoryAvailable: number;
  swapTotal: number;
  swapFree: number;
}

/** /proc/meminfo in bytes. */
export function parseMeminfo(meminfo: string): MemoryInfo {
  const kib = new Map<string, number>();
  for (const line of meminfo.split('\n')) {
    const match = /^([A-Za-z0-9_()]+):\s+(\d+)/.exec(line);
    if (match) kib.set(match[1], Number(match[2]));
  }
  const value = (key: string) => (kib.get(key) ?? 0) * 1024;
  if (!kib.has('MemTotal')) throw new Error('/proc/meminfo has no MemTotal');
  // Kernels before 3.14 have no MemAvailable; free + buffers + page cache is the old estimate.
  const available = kib.has('MemAvailable')
    ? value('MemAvailable')
    : value('MemFree') + value('Buffers') + value('Cached');
  return {
    memoryTotal: value('MemTotal'),
    memoryAvailable: Math.min(available, value('MemTotal')),
    swapTotal: value('SwapTotal'),
    swapFree: Math.min(value('SwapFree'), value('SwapTotal')),
  };
}

export interface InterfaceCounters {
  rxBytes: number;
  txBytes: number;
}

/** Byte counters per interface from /proc/net/dev (the sampler's network namespace). */
export function parseNetDev(netDev: string): Map<string, InterfaceCounters> {
  const interfaces = new Map<string, InterfaceCounters>();
  for (const line of netDev.split('\n')) {
    const colon = line.indexOf(':');
    if (colon < 0) continue; // the two header lines have no colon
    const name = line.slice(0, colon).trim();
    const fields = line
      .slice(colon + 1)
      .trim()
      .split(/\s+/)
      .map(Number);
    // Receive: bytes packets errs drop fifo frame compressed multicast; then transmit: bytes ...
    if (!name || fields.length < 9 || !Number.isFinite(fields[0]) || !Number.isFinite(fields[8])) continue;
    interfaces.set(name, { rxBytes: fields[0], txBytes: fields[8] });
  }
  return interfaces;
}

/** Seconds since boot: the first number of /proc/uptime. */
export function parseUptime(uptime: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)/.exec(uptime);
  if (!match) throw new Error('/proc/uptime is unreadable');
  return Number(match[1]);
}

export function clampPercent(value: number): number {
  if (!Number.isFinite(value)) return 0;
  return Math.min(100, Math.max(0, value));
}
