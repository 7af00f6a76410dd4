import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import type { RouteGroup } from '#libs/contracts/route-groups.js';
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
    /** Only GET and HEAD (docs/roles.md, "Scoped tokens"). */
    readOnly: p.boolean().default(false),
    /** Past this moment the token answers 401, as an unknown one. */
    expiresAt: p.datetime().nullable(),
    /** The route groups (libs/contracts/route-groups.ts) the token may call; null: every group its role may. */
    routeGroups: p.json<RouteGroup[]>().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type ApiToken = InferEntity<typeof ApiToken>;
