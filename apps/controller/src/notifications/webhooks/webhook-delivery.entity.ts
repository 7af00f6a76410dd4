import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { WebhookEndpoint } from './webhook-endpoint.entity.js';

/** One attempt to deliver an event to an endpoint: the delivery log keeps the newest per endpoint. */
export const WebhookDelivery = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_deliveries',
  indexes: [{ properties: ['endpoint', 'at'] }],
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    endpoint: () => p.manyToOne(WebhookEndpoint).deleteRule('cascade'),
    eventId: p.uuid(),
    kind: p.string().length(48),
    attempt: p.integer(),
    /** The HTTP status the endpoint answered; null when it did not answer (timeout, refused, forbidden address). */
    status: p.integer().nullable(),
    latencyMs: p.integer(),
    error: p.string().length(500).nullable(),
    at: p.datetime(),
  },
});
export type WebhookDelivery = InferEntity<typeof WebhookDelivery>;
