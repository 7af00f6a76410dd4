import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { InferKyselyTable } from '@mikro-orm/sql';
import { randomUUID } from 'node:crypto';

/**
 * A tunnel host. `desiredRevision` grows with every change that affects what the host must look
 * like (in the same transaction as the change); `appliedRevision` is what its agent last applied.
 * The node is in sync when the two match.
 */
export const Node = defineEntity({
  name: 'Node',
  tableName: 'nodes',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    name: p.string().length(64).unique(),
    /** Where operators and agents reach the host (informational until agents exist). */
    address: p.string().length(255).default(''),
    /** The host the controller itself runs on; exists from the first start and cannot be deleted. */
    isLocal: p.boolean().default(false),
    desiredRevision: p.bigint('number').default(1),
    appliedRevision: p.bigint('number').default(0),
    /** The highest revision an apply job was enqueued for (the outbox mark; see nodes/delivery). */
    deliveredRevision: p.bigint('number').default(0).hidden(),
    note: p.string().length(512).default(''),
    /** Every interface of the node is kept down on the host (POST /api/tunnels/stop) until started. */
    tunnelsStopped: p.boolean().default(false),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type Node = InferEntity<typeof Node>;

/** The `nodes` table as `em.getKysely()` sees it (column names, typed from the entity). */
export type NodeTable = InferKyselyTable<typeof Node>;
