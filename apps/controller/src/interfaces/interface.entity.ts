import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import type { AmneziaParams } from '#libs/wireguard/amnezia.js';
import { Node } from '../revisions/node.entity.js';

/** The protocols an interface can run: WireGuard only for now (AmneziaWG is its `mode`). */
export const INTERFACE_PROTOCOLS = ['wireguard'] as const;
export type InterfaceProtocol = (typeof INTERFACE_PROTOCOLS)[number];

export const INTERFACE_MODES = ['standard', 'amnezia'] as const;
export type InterfaceMode = (typeof INTERFACE_MODES)[number];

/** A WireGuard (or AmneziaWG) tunnel on one node; its name becomes the host's interface name. */
export const TunnelInterface = defineEntity({
  name: 'TunnelInterface',
  tableName: 'interfaces',
  uniques: [{ properties: ['node', 'name'] }, { properties: ['node', 'listenPort'] }],
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    node: () => p.manyToOne(Node).deleteRule('cascade'),
    name: p.string().length(15),
    protocol: p.string().length(16).$type<InterfaceProtocol>().default('wireguard'),
    mode: p.string().length(16).$type<InterfaceMode>(),
    listenPort: p.integer(),
    /** IPv4 network in CIDR form, e.g. 10.8.0.0/24. */
    subnet: p.string().length(18),
    endpointHost: p.string().length(255),
    mtu: p.integer().default(1420),
    dns: p.array().default([]),
    natInterface: p.string().length(15).nullable(),
    enabled: p.boolean().default(true),
    privateKey: p.string().length(44).hidden(),
    publicKey: p.string().length(44),
    awg: p.json<AmneziaParams>().nullable(),
    /** The last address handed out, so freed addresses are not reused at once. */
    allocationCursor: p.bigint('number').nullable(),
    /** Grows with each restart asked for; the agent restarts the interface when it differs from what it applied. */
    restartSerial: p.integer().default(0),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type TunnelInterface = InferEntity<typeof TunnelInterface>;
