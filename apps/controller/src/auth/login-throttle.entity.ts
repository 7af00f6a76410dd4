import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * Sign-in attempt counts per username+address (`pair:<address> <username>`) and per address
 * (`address:<address>`): login-throttle.service.ts. Kept in the database rather than in memory
 * so that every controller replica sees the same counts and a restart does not reset them.
 */
export const LoginThrottle = defineEntity({
  name: 'LoginThrottle',
  tableName: 'login_throttles',
  properties: {
    key: p.string().length(160).primary(),
    failures: p.integer().default(0),
    lockedUntil: p.datetime().nullable(),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type LoginThrottle = InferEntity<typeof LoginThrottle>;
