import { Inject, Injectable } from '@nestjs/common';
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';

/**
 * The rows an interface's clear touches: the interface (read by table name: interfaces/ sits
 * below clients/), its accounts and its client attachments. Writes take the service's
 * transaction, which owns the lock order.
 */
@Injectable()
export class InterfaceAccountsRepository {
  constructor(@Inject(MikroORM) private readonly orm: MikroORM) {}

  transaction<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    return this.orm.em.fork().transactional(work);
  }

  /** Locks the interface row until the transaction ends; its name and node, or undefined. */
  async lockInterface(em: EntityManager, id: string): Promise<{ name: string; nodeId: string } | undefined> {
    const [row] = await em.execute<{ name: string; node_id: string }[]>(
      'select name, node_id from interfaces where id = ? for update',
      [id],
    );
    return row && { name: row.name, nodeId: row.node_id };
  }

  /** Deletes every account on the interface; how many. */
  async deleteAccounts(em: EntityManager, interfaceId: string): Promise<number> {
    const rows = await em.execute<{ id: string }[]>('delete from accounts where interface_id = ? returning id', [
      interfaceId,
    ]);
    return rows.length;
  }

  /** Detaches every client from the interface; how many. */
  async detachClients(em: EntityManager, interfaceId: string): Promise<number> {
    const rows = await em.execute<{ client_id: string }[]>(
      'delete from client_interfaces where interface_id = ? returning client_id',
      [interfaceId],
    );
    return rows.length;
  }
}
