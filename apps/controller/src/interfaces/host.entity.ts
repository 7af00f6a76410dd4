import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { HostGroup } from './host-group.entity.js';
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
    /** Its group (null: none, carried for every client); the group going leaves the host ungrouped. */
    group: () => p.manyToOne(HostGroup).nullable().deleteRule('set null').updateRule('cascade').index(),
    /** Free labels for finding and bulk-selecting hosts; no effect on configs. */
    tags: p.array().default([]),
    /** Lower first among hosts of equal priority (POST /api/hosts/reorder). */
    position: p.integer().default(0),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type Host = InferEntity<typeof Host>;
