import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { Node } from '../revisions/node.entity.js';

/**
 * An outbound subscription (docs/outbounds.md, "Subscriptions"): a URL whose body lists hops as
 * share links, one a line (or base64 of that), fetched on a schedule into hops of one node. The
 * hops it made carry its id and a stable key each (outbounds.subscription_id, subscription_key);
 * the last fetch's outcome is kept here.
 */
export const OutboundSubscription = defineEntity({
  name: 'OutboundSubscription',
  tableName: 'outbound_subscriptions',
  uniques: [{ properties: ['name'] }],
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    node: () => p.manyToOne(Node).deleteRule('cascade').index(),
    name: p.string().length(64),
    url: p.string().length(2048),
    enabled: p.boolean().default(true),
    /** Seconds between scheduled refreshes; 0: only when asked for. */
    intervalSeconds: p.integer().default(3600),
    position: p.integer().default(0),
    lastFetchedAt: p.datetime().nullable(),
    /** Why the last fetch failed (null: it worked); the hops stay as they were when it fails. */
    lastError: p.string().length(500).nullable(),
    /** Lines of the last fetched list that gave no hop, each with its reason (at most 20). */
    skipped: p.array().default([]),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type OutboundSubscription = InferEntity<typeof OutboundSubscription>;
