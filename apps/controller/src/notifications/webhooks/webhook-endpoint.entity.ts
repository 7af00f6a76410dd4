import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';

/** A URL the panel POSTs signed events to (docs/notifications.md, "Webhooks"). */
export const WebhookEndpoint = defineEntity({
  name: 'WebhookEndpoint',
  tableName: 'webhook_endpoints',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    name: p.string().length(128),
    url: p.string().length(2048),
    /** The HMAC key: shown once at creation, never in an answer after. */
    secret: p.string().length(128).hidden(),
    /** Event kinds sent; empty means every kind. */
    events: p.array().default([]),
    enabled: p.boolean().default(true),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type WebhookEndpoint = InferEntity<typeof WebhookEndpoint>;
