import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { TunnelInterface } from './interface.entity.js';

/** An address clients may dial for an interface; one profile is rendered per enabled host. */
export const Host = defineEntity({
  name: 'Host',
  tableName: 'hosts',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    interface: () => p.manyToOne(TunnelInterface).deleteRule('cascade').index(),
    name: p.string().length(64),
    address: p.string().length(255),
    /** 0 means the interface's listen port. */
    port: p.integer().default(0),
    priority: p.integer().default(0),
    enabled: p.boolean().default(true),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type Host = InferEntity<typeof Host>;
