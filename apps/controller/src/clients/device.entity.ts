import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { Client } from './client.entity.js';

/** One of a client's devices; it has an account (key pair and address) on each of the client's interfaces. */
export const Device = defineEntity({
  name: 'Device',
  tableName: 'devices',
  // Device names are unique per client regardless of case ("Phone" and "phone" are one name).
  indexes: [
    {
      name: 'devices_client_name_unique',
      expression: `create unique index "devices_client_name_unique" on "devices" ("client_id", lower("name"))`,
    },
  ],
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    client: () => p.manyToOne(Client).deleteRule('cascade').index(),
    name: p.string().length(64),
    upBytes: p.bigint('number').default(0),
    downBytes: p.bigint('number').default(0),
    lastHandshake: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type Device = InferEntity<typeof Device>;
