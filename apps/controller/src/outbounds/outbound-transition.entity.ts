import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { Outbound } from './outbound.entity.js';

export const HOP_HEALTH = ['up', 'down'] as const;
export type HopHealth = (typeof HOP_HEALTH)[number];

/**
 * A hop's health changing, as its checks (periodic or asked for) saw it: up → down when a check
 * fails, down → up when one passes, and the first check's result (from null). Kept for the
 * notifications work to send; the log says the same as it happens. Node and tag are copied so a
 * row reads on its own.
 */
export const OutboundTransition = defineEntity({
  name: 'OutboundTransition',
  tableName: 'outbound_transitions',
  indexes: [{ properties: ['at'] }],
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    outbound: () => p.manyToOne(Outbound).deleteRule('cascade').index(),
    nodeId: p.uuid(),
    tag: p.string().length(64),
    fromState: p.string().length(8).$type<HopHealth>().nullable(),
    toState: p.string().length(8).$type<HopHealth>(),
    error: p.string().length(500).nullable(),
    at: p.datetime(),
  },
});
export type OutboundTransition = InferEntity<typeof OutboundTransition>;
