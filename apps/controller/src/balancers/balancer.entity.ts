import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { type BalancerStrategy } from '../outbounds/balancer-pick.js';
import { Node } from '../revisions/node.entity.js';

/**
 * A balancer (docs/outbounds.md, "Balancers"): several hops of one node (`hops`, outbound ids in
 * order) that routing rules target by the balancer's tag. `failover` takes the first healthy hop
 * in order; `hash` spreads clients over the healthy hops by source address. `overrideId` pins one
 * of the hops until cleared. The hops' deletion is refused while a balancer lists them
 * (outbounds.service), so the ids stay valid.
 */
export const Balancer = defineEntity({
  name: 'Balancer',
  tableName: 'balancers',
  uniques: [{ properties: ['node', 'tag'] }],
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    node: () => p.manyToOne(Node).deleteRule('cascade').index(),
    tag: p.string().length(64),
    strategy: p.string().length(16).$type<BalancerStrategy>(),
    hops: p.array().default([]),
    overrideId: p.uuid().nullable(),
    note: p.string().length(500).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type Balancer = InferEntity<typeof Balancer>;
