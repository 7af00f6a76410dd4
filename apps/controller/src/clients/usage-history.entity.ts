import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Client } from './client.entity.js';

/**
 * One bucket of a client's traffic: bytes up and down in a 5-minute (tier 300), hourly (3600) or
 * daily (86400) window starting at `at`. Written and read with set-based SQL only
 * (usage-history.repository.ts); the entity describes the table for migrations. The table is
 * created with fillfactor 60 (the migration) so the in-place updates of the current bucket stay HOT.
 */
export const ClientUsageRow = defineEntity({
  name: 'ClientUsageRow',
  tableName: 'client_usage_history',
  properties: {
    // A deleted client's history goes with it.
    client: () => p.manyToOne(Client).primary().deleteRule('cascade'),
    tier: p.integer().primary(),
    at: p.datetime().primary(),
    upBytes: p.bigint('number'),
    downBytes: p.bigint('number'),
  },
  // The primary key serves one client's reads; rollups and pruning read one tier by time.
  indexes: [{ properties: ['tier', 'at'] }],
});
export type ClientUsageRow = InferEntity<typeof ClientUsageRow>;

/**
 * The same buckets per node: the overview's traffic series is the sum over a few nodes instead
 * of over every client, and each node's batch writes only its own row (no row shared by
 * concurrent batches of different nodes). No foreign key: a deleted node's traffic still happened.
 */
export const NodeUsageRow = defineEntity({
  name: 'NodeUsageRow',
  tableName: 'node_usage_history',
  properties: {
    nodeId: p.uuid().primary(),
    tier: p.integer().primary(),
    at: p.datetime().primary(),
    upBytes: p.bigint('number'),
    downBytes: p.bigint('number'),
  },
  indexes: [{ properties: ['tier', 'at'] }],
});
export type NodeUsageRow = InferEntity<typeof NodeUsageRow>;
