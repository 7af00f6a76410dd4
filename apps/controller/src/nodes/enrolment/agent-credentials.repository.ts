import { sql } from 'kysely';
import { Inject, Injectable } from '@nestjs/common';
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import type { NodeTables } from '../node-agent.entity.js';

/**
 * The credential columns of `node_agents`: enrolment secrets, node credentials and Redis
 * password hashes (all SHA-256; the secrets themselves are never stored).
 */
@Injectable()
export class AgentCredentialsRepository {
  constructor(@Inject(MikroORM) private readonly orm: MikroORM) {}

  private db(em: EntityManager = this.orm.em.fork()) {
    return em.getKysely<NodeTables>();
  }

  /** Runs `work` in one transaction (an enrolment's claim and queue grant stand or fall together). */
  transaction<T>(work: (tx: EntityManager) => Promise<T>): Promise<T> {
    return this.orm.em.fork().transactional(work);
  }

  /** Every enrolled node's Redis password hash. */
  async queuePasswordHashes(): Promise<Map<string, string>> {
    const rows = await this.db()
      .selectFrom('node_agents')
      .select(['node_id', 'queue_password_hash'])
      .where('queue_password_hash', 'is not', null)
      .execute();
    return new Map(rows.map((row) => [row.node_id, row.queue_password_hash!]));
  }

  /** The node, and whether it holds secrets its agent would receive (an interface's key, a hop's). */
  async node(nodeId: string): Promise<{ isLocal: boolean; holdsSecrets: boolean } | undefined> {
    const row = await this.db()
      .selectFrom('nodes as n')
      .select([
        'n.is_local',
        // Interfaces and hops are other modules' tables: read here by name, one statement.
        sql<boolean>`exists (select 1 from interfaces i where i.node_id = n.id)
          or exists (select 1 from outbounds o where o.node_id = n.id and o.kind not in ('direct', 'blocked'))`.as(
          'holds_secrets',
        ),
      ])
      .where('n.id', '=', nodeId)
      .executeTakeFirst();
    return row && { isLocal: row.is_local, holdsSecrets: Boolean(row.holds_secrets) };
  }

  /** Stores the node's one enrolment secret, replacing an unused earlier one. */
  async storeEnrolment(nodeId: string, enrolmentHash: string, expiresAt: Date): Promise<void> {
    await this.db()
      .insertInto('node_agents')
      .values({ node_id: nodeId, enrolment_hash: enrolmentHash, enrolment_expires_at: expiresAt })
      .onConflict((conflict) =>
        conflict.column('node_id').doUpdateSet((eb) => ({
          enrolment_hash: eb.ref('excluded.enrolment_hash'),
          enrolment_expires_at: eb.ref('excluded.enrolment_expires_at'),
        })),
      )
      .execute();
  }

  /**
   * Consumes a live enrolment secret and sets the node's new credential, in the one statement
   * that finds it: of two agents racing with one secret, only one gets a row back.
   */
  async claimEnrolment(
    tx: EntityManager,
    enrolmentHash: string,
    credentialHash: string,
  ): Promise<{ nodeId: string; nodeName: string } | undefined> {
    const row = await this.db(tx)
      .updateTable('node_agents as a')
      .from('nodes as n')
      .set((eb) => ({
        enrolment_hash: null,
        enrolment_expires_at: null,
        credential_hash: credentialHash,
        enrolled_at: eb.fn<Date>('now', []),
      }))
      .where('a.enrolment_hash', '=', enrolmentHash)
      .where((eb) => eb('a.enrolment_expires_at', '>', eb.fn<Date>('now', [])))
      .whereRef('n.id', '=', 'a.node_id')
      .returning(['a.node_id', 'n.name'])
      .executeTakeFirst();
    return row && { nodeId: row.node_id, nodeName: row.name };
  }

  /** The local agent's credential, set directly (no enrolment secret); the node's name, if it exists. */
  async setCredential(nodeId: string, credentialHash: string): Promise<string | undefined> {
    return this.transaction(async (tx) => {
      await this.db(tx)
        .insertInto('node_agents')
        .values((eb) => ({ node_id: nodeId, credential_hash: credentialHash, enrolled_at: eb.fn<Date>('now', []) }))
        .onConflict((conflict) =>
          conflict.column('node_id').doUpdateSet((eb) => ({
            credential_hash: eb.ref('excluded.credential_hash'),
            enrolled_at: eb.fn<Date>('now', []),
          })),
        )
        .execute();
      return (await this.db(tx).selectFrom('nodes').select('name').where('id', '=', nodeId).executeTakeFirst())?.name;
    });
  }

  /** Kept before Redis gets the password, so a Redis that lost its users can be given them back. */
  async recordQueuePassword(nodeId: string, passwordHash: string, tx?: EntityManager): Promise<void> {
    await this.db(tx)
      .updateTable('node_agents')
      .set({ queue_password_hash: passwordHash })
      .where('node_id', '=', nodeId)
      .execute();
  }

  /** The node a credential belongs to. */
  async nodeOfCredential(credentialHash: string): Promise<string | undefined> {
    const row = await this.db()
      .selectFrom('node_agents')
      .select('node_id')
      .where('credential_hash', '=', credentialHash)
      .executeTakeFirst();
    return row?.node_id;
  }
}
