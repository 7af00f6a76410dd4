import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * One change of one inventory counter, appended by the statement triggers on clients, devices
 * and interfaces in the transaction of the change itself. Appending never waits on another
 * transaction (updating one shared row would make every client write queue behind the previous
 * one and deadlock transactions that touch two counters in opposite orders); the fold moves
 * deltas into inventory_counts every few seconds.
 */
export const InventoryDelta = defineEntity({
  name: 'InventoryDelta',
  tableName: 'inventory_deltas',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    counter: p.string().length(80),
    bucket: p.bigint('number').default(0),
    delta: p.decimal('string').columnType('numeric'),
  },
});
export type InventoryDelta = InferEntity<typeof InventoryDelta>;
