import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { User } from '../auth/user.entity.js';

/** A long-lived credential for automation. Only the SHA-256 of the whole token is kept. */
export const ApiToken = defineEntity({
  name: 'ApiToken',
  tableName: 'api_tokens',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    name: p.string().length(64),
    /** The first characters of the token, so people can tell tokens apart without the secret. */
    hint: p.string().length(16),
    secretHash: p.string().length(64).unique().hidden(),
    enabled: p.boolean().default(true),
    user: () => p.manyToOne(User).deleteRule('cascade').index(),
    lastUsedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type ApiToken = InferEntity<typeof ApiToken>;
