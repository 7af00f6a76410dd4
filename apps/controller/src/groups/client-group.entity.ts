import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * A group of clients with the defaults a client created in it takes (docs/groups.md). Membership
 * is not here: it is the name in each client's `groups` array (GIN-indexed), so a group's members
 * are what `GET /api/clients?group=` lists.
 */
export const ClientGroup = defineEntity({
  name: 'ClientGroup',
  tableName: 'client_groups',
  properties: {
    name: p.string().length(64).primary(),
    note: p.string().length(512).default(''),
    /** 0 = unlimited. */
    quotaBytes: p.bigint('number').default(0),
    /** A new member expires this many days after its creation; 0 = never. */
    expiryDays: p.integer().default(0),
    deviceLimit: p.integer().default(1),
    /** Interfaces a new member is attached to when its creation names none. */
    interfaceIds: p.array().default([]),
    /** 0 = unmetered. */
    rateBitsPerSec: p.bigint('number').default(0),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type ClientGroup = InferEntity<typeof ClientGroup>;
