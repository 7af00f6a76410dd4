import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { User } from './user.entity.js';

/** A signed-in browser or script. Only the SHA-256 of the token is kept. */
export const Session = defineEntity({
  name: 'Session',
  tableName: 'sessions',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    tokenHash: p.string().length(64).unique().hidden(),
    user: () => p.manyToOne(User).deleteRule('cascade').index(),
    createdAt: p.datetime().onCreate(() => new Date()),
    expiresAt: p.datetime().index(),
    /** Kept to the minute, as API tokens' lastUsedAt: a write per request would double its cost. */
    lastSeenAt: p.datetime().nullable(),
    /** Where the session signed in from, and with what (both as the request said; shown to its user). */
    address: p.string().length(64).nullable(),
    userAgent: p.string().length(256).nullable(),
  },
});
export type Session = InferEntity<typeof Session>;
