import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { TunnelInterface } from '../interfaces/interface.entity.js';
import { Client } from './client.entity.js';

/** Which interfaces a client is attached to (written with set-based SQL by the clients service). */
export const ClientInterface = defineEntity({
  name: 'ClientInterface',
  tableName: 'client_interfaces',
  properties: {
    client: () => p.manyToOne(Client).primary().deleteRule('cascade').updateRule('cascade'),
    // The primary key starts with client_id; counting an interface's clients needs its own index.
    interface: () => p.manyToOne(TunnelInterface).primary().deleteRule('cascade').updateRule('cascade').index(),
  },
});
export type ClientInterface = InferEntity<typeof ClientInterface>;
