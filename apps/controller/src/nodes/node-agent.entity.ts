import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { ApplyResult } from '#libs/contracts/node-queue.js';
import type { Capabilities } from '#libs/contracts/agent-link.js';
import type { InferKyselyTable } from '@mikro-orm/sql';
import { Node, type NodeTable } from '../revisions/node.entity.js';

/**
 * A node's agent: how it enrols (one-time secret, hashed), its credential (hashed), what it said
 * about itself on its link, and the last counter batch recorded for it. One row per node.
 */
export const NodeAgent = defineEntity({
  name: 'NodeAgent',
  tableName: 'node_agents',
  properties: {
    node: () => p.oneToOne(Node).primary().owner().deleteRule('cascade'),
    enrolmentHash: p.string().length(64).nullable().unique().hidden(),
    enrolmentExpiresAt: p.datetime().nullable(),
    credentialHash: p.string().length(64).nullable().unique().hidden(),
    /** SHA-256 of the node's Redis password: its ACL user is re-created from it when Redis lost it. */
    queuePasswordHash: p.string().length(64).nullable().hidden(),
    enrolledAt: p.datetime().nullable(),
    version: p.string().length(64).nullable(),
    capabilities: p.json<Capabilities>().nullable(),
    gaps: p.json<string[]>().default('[]'),
    connected: p.boolean().default(false),
    connectedAt: p.datetime().nullable(),
    lastSeenAt: p.datetime().nullable(),
    /** The last counter batch recorded; a batch with a sequence number at or below it is a repeat. */
    countersSeq: p.bigint('number').default(0),
    lastApply: p.json<ApplyResult>().nullable(),
  },
});
export type NodeAgent = InferEntity<typeof NodeAgent>;

/** The node-area tables as `em.getKysely()` sees them (column names, typed from the entities). */
export interface NodeTables {
  nodes: NodeTable;
  node_agents: InferKyselyTable<typeof NodeAgent>;
}
