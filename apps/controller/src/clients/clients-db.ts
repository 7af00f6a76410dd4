import type { EntityManager } from '@mikro-orm/postgresql';
import type { InferKyselyDB } from '@mikro-orm/sql';
import type { Kysely } from 'kysely';
import { type Host } from '../interfaces/host.entity.js';
import { type HostGroup } from '../interfaces/host-group.entity.js';
import { type TunnelInterface } from '../interfaces/interface.entity.js';
import { type Account } from './account.entity.js';
import { type Client } from './client.entity.js';
import { type ClientInterface } from './client-interface.entity.js';
import { type Device } from './device.entity.js';

/**
 * The tables the clients repositories read and write, typed from their defineEntity entities
 * (table and column names as in the database). Values arrive as the driver gives them, which
 * MikroORM's pg setup leaves raw: timestamps as text and int8 as strings, whatever the inferred
 * type says; rows therefore go through the readers in sql.ts.
 */
export type ClientsDb = InferKyselyDB<
  | typeof Client
  | typeof ClientInterface
  | typeof Device
  | typeof Account
  | typeof TunnelInterface
  | typeof Host
  | typeof HostGroup
> & { node_agents: CounterSequence };

/**
 * The one column of a node's agent row that accounting owns: the last counter batch counted, claimed
 * in the same transaction as the batch. Declared by hand because nodes/ (which owns the row) sits
 * above clients/ and may not be imported from here.
 */
interface CounterSequence {
  node_id: string;
  counters_seq: number;
}

/** Kysely bound to `em`'s transaction when it has one. */
export function kysely(em: EntityManager): Kysely<ClientsDb> {
  return em.getKysely<ClientsDb>();
}
