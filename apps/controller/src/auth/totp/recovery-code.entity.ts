import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { User } from '../user.entity.js';

/**
 * A one-time recovery code for two-factor sign-in, given out when 2FA is turned on. Only the
 * SHA-256 of the code is kept; `usedAt` is set by the sign-in (or disable) that spends it.
 */
export const RecoveryCode = defineEntity({
  name: 'RecoveryCode',
  tableName: 'totp_recovery_codes',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    user: () => p.manyToOne(User).deleteRule('cascade').index(),
    codeHash: p.string().length(64).hidden(),
    usedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type RecoveryCode = InferEntity<typeof RecoveryCode>;
