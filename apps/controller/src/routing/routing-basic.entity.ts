import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Outbound } from '../outbounds/outbound.entity.js';
import { Node } from '../revisions/node.entity.js';

/**
 * A node's basic routing settings; a node without a row routes by the defaults (everything
 * direct, nothing blocked, fail closed). The default outbound is referenced by id (null = `direct`), so a
 * renamed hop stays the default and a used one cannot be deleted.
 */
export const RoutingBasic = defineEntity({
  name: 'RoutingBasic',
  tableName: 'routing_basics',
  properties: {
    node: () => p.oneToOne(Node).primary().owner().deleteRule('cascade'),
    defaultOutbound: () => p.manyToOne(Outbound).nullable().deleteRule('no action').index(),
    blockBitTorrent: p.boolean().default(false),
    blockIps: p.array().default([]),
    blockDomains: p.array().default([]),
    blockPorts: p.array().default([]),
    directIps: p.array().default([]),
    directDomains: p.array().default([]),
    /** Default on since Migration20261126090000_fail_closed_default; existing nodes kept what they had. */
    failClosed: p.boolean().default(true),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type RoutingBasic = InferEntity<typeof RoutingBasic>;
