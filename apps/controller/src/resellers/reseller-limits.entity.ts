import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { User } from '../auth/user.entity.js';

/**
 * The ceilings the owner set for one reseller, and the account of their traffic pool
 * (docs/operators.md, "Ceilings"). A null ceiling is no ceiling. The row exists once the owner set
 * ceilings or the reseller's clients used traffic; none is the same as no ceilings and an empty pool.
 */
export const ResellerLimits = defineEntity({
  name: 'ResellerLimits',
  tableName: 'reseller_limits',
  properties: {
    user: () => p.manyToOne(User).primary().deleteRule('cascade'),
    maxClients: p.integer().nullable(),
    /** Bytes their clients may use together, counted as usage accrues (poolUsedBytes). */
    trafficPoolBytes: p.bigint('number').nullable(),
    maxExpiryDays: p.integer().nullable(),
    maxQuotaBytes: p.bigint('number').nullable(),
    /** Interfaces their clients may be attached to (uuids as text); null: any. */
    interfaceIds: p.array().nullable(),
    /** Nodes whose interfaces their clients may be attached to; null: any. */
    nodeIds: p.array().nullable(),
    /** Bytes their clients used since the pool was last reset (the counter batches add to it). */
    poolUsedBytes: p.bigint('number').default(0),
    poolResetAt: p.datetime().nullable(),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type ResellerLimits = InferEntity<typeof ResellerLimits>;
