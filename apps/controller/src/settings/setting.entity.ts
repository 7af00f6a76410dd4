import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** One panel-wide option (panel-settings.ts): a key absent here reads as its default. */
export const Setting = defineEntity({
  name: 'Setting',
  tableName: 'settings',
  properties: {
    key: p.string().length(64).primary(),
    value: p.json<unknown>(),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type Setting = InferEntity<typeof Setting>;
