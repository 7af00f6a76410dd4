import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { InferKyselyTable } from '@mikro-orm/sql';
import { randomUUID } from 'node:crypto';
import { BUILTIN_OUTBOUNDS, HOP_KINDS, type BuiltinOutbound, type HopKind } from '#libs/contracts/routing.js';
import { Node } from '../revisions/node.entity.js';
import { OutboundSubscription } from './outbound-subscription.entity.js';

/** Every kind an outbound row has: the two built-ins (one row each per node) and the hops. */
export const OUTBOUND_KINDS = [...BUILTIN_OUTBOUNDS, ...HOP_KINDS] as const;
export type OutboundKind = BuiltinOutbound | HopKind;

/**
 * An outbound (hop) of one node. The built-ins `direct` and `blocked` are rows too (a trigger
 * on `nodes` makes them with every node, see the migration), so every outbound has an id, a
 * place for its last check and a target for rules. A hop's `slot` (1..250, unique on its node,
 * never changed) is where the agent derives its routing table, fwmark and redirector port from.
 */
export const Outbound = defineEntity({
  name: 'Outbound',
  tableName: 'outbounds',
  uniques: [
    { properties: ['node', 'tag'] },
    { properties: ['node', 'slot'] },
    { properties: ['node', 'interfaceName'] },
    { properties: ['subscription', 'subscriptionKey'] },
  ],
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    node: () => p.manyToOne(Node).deleteRule('cascade'),
    tag: p.string().length(64),
    kind: p.string().length(16).$type<OutboundKind>(),
    enabled: p.boolean().default(true),
    position: p.integer().default(0),
    /** The hop's server (SOCKS, HTTP, shadowsocks) or WireGuard endpoint: IP literal or DNS name. */
    host: p.string().length(253).nullable(),
    port: p.integer().nullable(),
    username: p.string().length(256).nullable(),
    password: p.string().length(256).nullable().hidden(),
    /** Shadowsocks cipher. */
    method: p.string().length(32).nullable(),
    privateKey: p.string().length(44).nullable().hidden(),
    publicKey: p.string().length(44).nullable(),
    peerPublicKey: p.string().length(44).nullable(),
    presharedKey: p.string().length(44).nullable().hidden(),
    allowedIps: p.array().default([]),
    /** This side's address on a WireGuard hop's tunnel, with prefix length. */
    tunnelAddress: p.string().length(64).nullable(),
    mtu: p.integer().nullable(),
    keepalive: p.integer().nullable(),
    /** A WireGuard hop's host interface (made from its slot). */
    interfaceName: p.string().length(15).nullable(),
    slot: p.integer().nullable(),
    note: p.string().length(512).default(''),
    lastCheckAt: p.datetime().nullable(),
    latencyMs: p.integer().nullable(),
    lastError: p.string().length(500).nullable(),
    egressIp: p.string().length(45).nullable(),
    /** What the last check said (null: never checked); its state shows `down` while the hop runs. */
    health: p.string().length(8).$type<'up' | 'down'>().nullable(),
    healthChangedAt: p.datetime().nullable(),
    /** The subscription that made the hop (null: made by hand, or its subscription was deleted). */
    subscription: () => p.manyToOne(OutboundSubscription).deleteRule('set null').nullable(),
    /** The hop's key in its subscription's list (kind, address, user name): refreshes update it in place. */
    subscriptionKey: p.string().length(64).nullable(),
    /** Gone from its subscription's list but kept, because a rule or the node's default uses it. */
    subscriptionGone: p.boolean().default(false),
    /**
     * Bytes the hop carried for clients since `trafficSince` (its creation or last reset): up is
     * what clients sent into it, down what came back (docs/outbounds.md, "Traffic").
     */
    upBytes: p.bigint('number').default(0),
    downBytes: p.bigint('number').default(0),
    /** A default, not onCreate: the trigger that makes the built-ins with each node inserts in SQL. */
    trafficSince: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date()),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type Outbound = InferEntity<typeof Outbound>;
export type OutboundTable = InferKyselyTable<typeof Outbound>;
