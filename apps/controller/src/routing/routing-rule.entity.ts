import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { Balancer } from '../balancers/balancer.entity.js';
import { Outbound } from '../outbounds/outbound.entity.js';
import { Node } from '../revisions/node.entity.js';

export const RULE_NETWORKS = ['tcp', 'udp', 'icmp'] as const;
export type RuleNetwork = (typeof RULE_NETWORKS)[number];

/**
 * One policy-routing rule of a node. It points at its outbound by id, so renaming a hop keeps
 * its rules; the foreign key refuses deleting an outbound a rule still uses (the service says
 * which rules first). `clients`, `groups` and `interfaces` keep what the operator named (client
 * ids, group names, interface ids); delivery resolves them for the host.
 */
export const RoutingRule = defineEntity({
  name: 'RoutingRule',
  tableName: 'routing_rules',
  indexes: [{ properties: ['node', 'position'] }],
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    node: () => p.manyToOne(Node).deleteRule('cascade'),
    name: p.string().length(128),
    enabled: p.boolean().default(true),
    position: p.integer(),
    sourceIps: p.array().default([]),
    sourcePorts: p.array().default([]),
    network: p.string().length(8).$type<RuleNetwork>().nullable(),
    destIps: p.array().default([]),
    domains: p.array().default([]),
    ports: p.array().default([]),
    clients: p.array().default([]),
    groups: p.array().default([]),
    interfaces: p.array().default([]),
    /** Exactly one of outbound and balancer is set: what the rule's traffic goes to. */
    outbound: () => p.manyToOne(Outbound).deleteRule('no action').index().nullable(),
    balancer: () => p.manyToOne(Balancer).deleteRule('no action').index().nullable(),
    /** Packets matched, added up from the agents' rule-hits reports. */
    hits: p.bigint('number').default(0),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type RoutingRule = InferEntity<typeof RoutingRule>;
