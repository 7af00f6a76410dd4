import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';

/**
 * A named, ordered set of hosts (docs/interfaces.md, "Host groups"). Tied to client group names,
 * its hosts are rendered only for clients carrying one of them; untied, for every client.
 */
export const HostGroup = defineEntity({
  name: 'HostGroup',
  tableName: 'host_groups',
  // Names are unique regardless of case ("CDN" and "cdn" are one group).
  indexes: [
    {
      name: 'host_groups_name_lower_unique',
      expression: `create unique index "host_groups_name_lower_unique" on "host_groups" (lower("name"))`,
    },
  ],
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    name: p.string().length(64),
    /** Lower first: the order of groups in lists and in the configs rendered. */
    position: p.integer().default(0),
    /** Client group names (clients' `groups`); empty: every client. */
    clientGroups: p.array().default([]),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type HostGroup = InferEntity<typeof HostGroup>;
