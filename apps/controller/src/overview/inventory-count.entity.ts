import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * The folded totals of the inventory counters (docs/overview.md): one row per counter, or per
 * counter and second for the `online` handshake buckets. Written only by the database itself
 * (the fold and recount functions of Migration20261125110000_inventory_counters); the overview
 * reads it with the unfolded deltas beside it. `bucket` is 0 for plain counters, -1 for the client
 * list's per-group and per-interface counters (Migration20261127140000_client_scale), else the unix
 * second of the devices' latest handshakes it counts; it leads the key so that both reads (the
 * plain counters, a range of recent seconds) are one index range.
 */
export const InventoryCount = defineEntity({
  name: 'InventoryCount',
  tableName: 'inventory_counts',
  properties: {
    bucket: p.bigint('number').primary(),
    counter: p.string().length(80).primary(),
    // numeric: a sum of 100,000 clients' byte counters (each up to 2^53 - 1) does not fit in bigint.
    value: p.decimal('string').columnType('numeric'),
  },
});
export type InventoryCount = InferEntity<typeof InventoryCount>;
