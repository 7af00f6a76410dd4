import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * One row of system history: a raw sample (tier 2) or an average over a minute (60) or ten
 * minutes (600), of one source: a node, or the controller's own host (tiers.ts
 * CONTROLLER_SOURCE). No foreign key to nodes: the controller is not a node, and a deleted
 * node's rows age out with the retention. Written and read with set-based SQL only
 * (history-store.ts); the entity describes the table for migrations.
 *
 * Percentages of memory, swap and disk are not stored: they are used / total.
 */
export const SystemSampleRow = defineEntity({
  name: 'SystemSampleRow',
  tableName: 'system_samples',
  properties: {
    source: p.uuid().primary(),
    tier: p.smallint().primary(),
    /** Raw rows: when the controller received the sample. Rollups: the start of their window. */
    at: p.datetime().primary(),
    // double precision throughout: bytes are exact up to 2^53, averages are not whole numbers, and real
    // (float4) would print percentages as 3.0999999046325684.
    cpuPercent: p.double().runtimeType('number'),
    cores: p.smallint(),
    load1: p.double().runtimeType('number'),
    load5: p.double().runtimeType('number'),
    load15: p.double().runtimeType('number'),
    memoryUsed: p.double().runtimeType('number'),
    memoryTotal: p.double().runtimeType('number'),
    swapUsed: p.double().runtimeType('number'),
    swapTotal: p.double().runtimeType('number'),
    diskUsed: p.double().runtimeType('number'),
    diskTotal: p.double().runtimeType('number'),
    rxBytes: p.double().runtimeType('number'),
    txBytes: p.double().runtimeType('number'),
    rxRate: p.double().runtimeType('number'),
    txRate: p.double().runtimeType('number'),
    uptimeSeconds: p.double().runtimeType('number'),
    processRss: p.double().runtimeType('number'),
  },
  // The primary key (source, tier, at) serves reads of one source; rollups and pruning work on
  // one tier across all sources by time, which this index serves without scanning every source.
  indexes: [{ properties: ['tier', 'at'] }],
});
export type SystemSampleRow = InferEntity<typeof SystemSampleRow>;
