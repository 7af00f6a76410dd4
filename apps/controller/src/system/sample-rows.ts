import type { SystemSample } from '#libs/contracts/system.js';

/** The columns of system_samples after (source, tier, at), in insert order. */
export const METRIC_COLUMNS = [
  'cpu_percent',
  'cores',
  'load1',
  'load5',
  'load15',
  'memory_used',
  'memory_total',
  'swap_used',
  'swap_total',
  'disk_used',
  'disk_total',
  'rx_bytes',
  'tx_bytes',
  'rx_rate',
  'tx_rate',
  'uptime_seconds',
  'process_rss',
] as const;
export type MetricColumn = (typeof METRIC_COLUMNS)[number];
export type MetricValues = Record<MetricColumn, number>;

/** A row as read back: its time in ms since the epoch and every metric column. */
export interface StoredSample extends MetricValues {
  source: string;
  at: number;
}

/** A raw row waiting to be written. */
export interface PendingSample {
  source: string;
  /** When the controller received it, ms since the epoch. */
  at: number;
  values: MetricValues;
}

export function metricValues(sample: SystemSample): MetricValues {
  return {
    cpu_percent: sample.cpu.percent,
    cores: sample.cpu.cores,
    load1: sample.cpu.load1,
    load5: sample.cpu.load5,
    load15: sample.cpu.load15,
    memory_used: sample.memory.used,
    memory_total: sample.memory.total,
    swap_used: sample.swap.used,
    swap_total: sample.swap.total,
    disk_used: sample.disk.used,
    disk_total: sample.disk.total,
    rx_bytes: sample.network.rxBytes,
    tx_bytes: sample.network.txBytes,
    rx_rate: sample.network.rxRate,
    tx_rate: sample.network.txRate,
    uptime_seconds: sample.uptimeSeconds,
    process_rss: sample.processRss,
  };
}

export function percentOf(used: number, total: number): number {
  return total > 0 ? Math.min(100, Math.max(0, (used / total) * 100)) : 0;
}

/** A stored row as the contract's sample (percentages recomputed from used and total). */
export function sampleFromRow(row: StoredSample): SystemSample {
  const usage = (used: number, total: number) => ({ used, total, percent: percentOf(used, total) });
  return {
    at: row.at,
    cpu: { percent: row.cpu_percent, cores: row.cores, load1: row.load1, load5: row.load5, load15: row.load15 },
    memory: usage(row.memory_used, row.memory_total),
    swap: usage(row.swap_used, row.swap_total),
    disk: usage(row.disk_used, row.disk_total),
    network: { rxBytes: row.rx_bytes, txBytes: row.tx_bytes, rxRate: row.rx_rate, txRate: row.tx_rate },
    uptimeSeconds: row.uptime_seconds,
    processRss: row.process_rss,
  };
}
