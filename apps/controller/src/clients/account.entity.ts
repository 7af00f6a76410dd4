import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { TunnelInterface } from '../interfaces/interface.entity.js';
import { Node } from '../revisions/node.entity.js';
import { Device } from './device.entity.js';

/**
 * A device's peer on one interface: its own key pair, preshared key and address. The node is
 * stored beside the interface so a node's desired state is one indexed read.
 */
export const Account = defineEntity({
  name: 'Account',
  tableName: 'accounts',
  uniques: [
    { properties: ['interface', 'ip'] },
    { properties: ['interface', 'publicKey'] },
    { properties: ['device', 'interface'] },
  ],
  // Counters from an agent name a peer by its node and public key.
  indexes: [{ properties: ['node', 'publicKey'] }],
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    device: () => p.manyToOne(Device).deleteRule('cascade').index(),
    interface: () => p.manyToOne(TunnelInterface).deleteRule('cascade'),
    node: () => p.manyToOne(Node).deleteRule('cascade').index(),
    ip: p.string().length(15),
    privateKey: p.string().length(44).hidden(),
    publicKey: p.string().length(44),
    presharedKey: p.string().length(44).hidden(),
    enabled: p.boolean().default(true),
    upBytes: p.bigint('number').default(0),
    downBytes: p.bigint('number').default(0),
    lastHandshake: p.datetime().nullable(),
    lastEndpoint: p.string().length(64).nullable(),
    /** Until when upRate/downRate hold: the latest report's time plus its interval and a margin. */
    rateUntil: p.datetime().nullable(),
    /** Bytes per second between the agent's last two readings that moved this peer. */
    upRate: p.bigint('number').default(0),
    downRate: p.bigint('number').default(0),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type Account = InferEntity<typeof Account>;
