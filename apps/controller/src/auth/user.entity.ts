import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import type { UserRole } from '#libs/contracts/user-roles.js';

/** A person who signs in to the panel. */
export const User = defineEntity({
  name: 'User',
  tableName: 'users',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    username: p.string().length(64).unique(),
    passwordHash: p.string().length(255).hidden(),
    role: p.string().length(16).$type<UserRole>(),
    /** False: no sign-in, and the user's sessions and API tokens are refused on their next request. */
    enabled: p.boolean().default(true),
    /** Set with a temporary password the owner chose: every route but the password change refuses until then. */
    mustChangePassword: p.boolean().default(false),
    /**
     * When the user last chose their own password (null: never, still the one the first start or
     * an owner gave): the owner's null is a security warning (docs/operations.md, "Security warnings").
     */
    passwordChangedAt: p.datetime().nullable(),
    /**
     * The TOTP secret (base32): set by `POST /api/auth/totp/start`, in force once `totpEnabled`.
     * Shown once, at start; never in an answer or a log after (docs/roles.md, "Two-factor sign-in").
     */
    totpSecret: p.string().length(64).nullable().hidden(),
    totpEnabled: p.boolean().default(false),
    /** The last TOTP time step accepted for this user: a code of it or an earlier step is not taken again. */
    totpLastStep: p.bigint('number').nullable().hidden(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type User = InferEntity<typeof User>;
